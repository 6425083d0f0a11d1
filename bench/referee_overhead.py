"""Per-decision cost of a match through the referee, against a bare gRPC echo.

Measured: a referee process plays Bid Euchre between two echo bot processes (streams,
as in production); its cost per decision is match duration / decisions, which includes
the engine, building each request, the round trip, metrics and the replay.

Baseline: this process sends the very same requests (the same match, replayed with the
echo bots' policy and serialized by the referee's own encoder) to the very same two bot
processes, seat by seat, as unary ``Bot.Act`` calls: the same payloads and the same
process layout without a referee. A second, stricter baseline sends one mid-game
request to one bot only; it is printed for comparison, because talking to two
processes in turn costs more than talking to one (the one that answers has been
asleep), a cost of the layout that the referee cannot remove.

Ratio = referee / echo; aim <= 0.7. The two are measured in alternating short rounds
and the median round is reported, since a shared 2-core machine drifts during a run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid
from datetime import timedelta
from typing import TypeAlias

import grpc

from arena import wire, wire_bytes
from arena.games import get_game
from arena.limits import DEFAULT_MOVE_DEADLINE_S
from arena.processes import arena_command, services
from arena.v1 import bot_pb2, referee_pb2, referee_pb2_grpc

ECHO = [sys.executable, "-m", "bench.echo_bot"]
GAME = "bid-euchre"


def sample_request() -> bot_pb2.ActRequest:
    """A request from the middle of a real game: bidding over, cards on the table."""
    state = get_game(GAME).new_state(7)
    for _ in range(12):
        state.apply(state.legal_actions()[0])
    return wire.act_request(
        state, match_id="bench", decision_index=12, deadline_s=1.0, legal=state.legal_actions()
    )


def match_requests(seed: int) -> list[tuple[int, bytes]]:
    """The (seat, request) of every decision the referee makes in a match between echo
    bots with this seed, serialized as the referee serializes them."""
    state = get_game(GAME).new_state(seed)
    match_id = uuid.uuid4().hex  # as long as the referee's ids
    requests: list[tuple[int, bytes]] = []
    while not state.is_terminal():
        legal = state.legal_actions()
        request = wire_bytes.act_request(
            state,
            match_id=match_id,
            decision_index=len(requests),
            deadline_s=DEFAULT_MOVE_DEADLINE_S,
            legal=legal,
        )
        requests.append((state.current_seat(), request))
        state.apply(legal[0])  # what an echo bot answers
    return requests


# Bot.Act taking the serialized request (no serializer), as the referee sends it; a
# string, as grpc's classes are generic in grpc-stubs only.
ActCall: TypeAlias = "grpc.UnaryUnaryMultiCallable[bytes, bot_pb2.ActResponse]"


def echo_us(calls: list[ActCall], requests: list[tuple[int, bytes]]) -> float:
    """Per call: each request to the bot of its seat (bots alternate by team)."""
    started = time.perf_counter()
    for seat, request in requests:
        calls[seat % len(calls)](request)
    return (time.perf_counter() - started) / len(requests) * 1e6


def referee_us(stub: referee_pb2_grpc.RefereeStub, bots: list[str], seed: int) -> tuple[float, int]:
    result = stub.PlayMatch(referee_pb2.PlayMatchRequest(game=GAME, bots=bots, seed=seed))
    return result.duration.ToTimedelta() / timedelta(microseconds=1) / result.decisions, (
        result.decisions
    )


def act_call(channel: grpc.Channel) -> ActCall:
    """``Bot.Act`` taking serialized requests, as the referee sends them."""
    return channel.unary_unary(
        "/arena.v1.Bot/Act",
        request_serializer=None,
        response_deserializer=bot_pb2.ActResponse.FromString,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    # Short rounds, many of them: the machine's speed drifts within seconds, and a ratio
    # is only fair between measurements taken close together.
    parser.add_argument("--rounds", type=int, default=31)
    args = parser.parse_args()
    commands = [arena_command("referee", "serve", "--port", "0"), ECHO, ECHO]
    one_request = [(0, sample_request().SerializeToString())] * 300
    rows: list[tuple[float, float, float]] = []
    with (
        services(commands) as (referee, echo_a, echo_b),
        grpc.insecure_channel(echo_a.address) as channel_a,
        grpc.insecure_channel(echo_b.address) as channel_b,
        grpc.insecure_channel(referee.address) as referee_channel,
    ):
        both = [act_call(channel_a), act_call(channel_b)]
        stub = referee_pb2_grpc.RefereeStub(referee_channel)
        bots = [echo_a.address, echo_b.address]
        echo_us(both, match_requests(0))  # warm up every path
        echo_us(both[:1], one_request)
        referee_us(stub, bots, 0)
        decisions = 0
        for seed in range(1, args.rounds + 1):
            same = echo_us(both, match_requests(seed))
            one = echo_us(both[:1], one_request)
            measured, n = referee_us(stub, bots, seed)
            decisions += n
            rows.append((measured / same, measured / one, same))
            print(
                f"round {seed}: referee {measured:6.1f} us per decision; echo of the same "
                f"requests {same:6.1f} us, of one request to one bot {one:6.1f} us"
            )
    ratio, strict, same = (statistics.median(r[i] for r in rows) for i in range(3))
    print(f"{decisions} decisions; echo of the same requests, median {same:.1f} us a call")
    print(f"median ratio referee / echo, same requests to the same bots: {ratio:.2f} (aim <= 0.70)")
    print(f"median ratio referee / echo, one request to one bot:         {strict:.2f}")


if __name__ == "__main__":
    main()
