"""Per-decision cost of a match through the referee, against a bare gRPC echo.

Baseline: this process calls ``Bot.Act`` (unary) on an echo bot in another process,
with a real mid-game Bid Euchre request as payload. Measured: a referee process plays
matches between two echo bots (separate processes, streams when offered, as in
production); its cost per decision is match duration / decisions, which includes the
engine, building each request and the round trip. Ratio = referee / echo; aim <= 0.7.
The two are measured in alternating rounds and the median round is reported, since a
shared 2-core machine drifts during a run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import timedelta

import grpc

from arena import wire
from arena.games import get_game
from arena.processes import arena_command, services
from arena.v1 import bot_pb2_grpc, referee_pb2, referee_pb2_grpc

ECHO = [sys.executable, "-m", "bench.echo_bot"]


def sample_request() -> object:
    """A request from the middle of a real game: bidding over, cards on the table."""
    state = get_game("bid-euchre").new_state(7)
    for _ in range(12):
        state.apply(state.legal_actions()[0])
    return wire.act_request(
        state, match_id="bench", decision_index=12, deadline_s=1.0, legal=state.legal_actions()
    )


def echo_round_trip_us(stub: bot_pb2_grpc.BotStub, request: object, calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        stub.Act(request)
    return (time.perf_counter() - started) / calls * 1e6


def referee_decision_us(
    stub: referee_pb2_grpc.RefereeStub, bots: list[str], seeds: range
) -> tuple[float, int]:
    total_s, decisions = 0.0, 0
    for seed in seeds:
        result = stub.PlayMatch(
            referee_pb2.PlayMatchRequest(game="bid-euchre", bots=bots, seed=seed)
        )
        total_s += result.duration.ToTimedelta() / timedelta(seconds=1)
        decisions += result.decisions
    return total_s / decisions * 1e6, decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    # Short rounds, many of them: the machine's speed drifts within seconds, and a ratio
    # is only fair between measurements taken close together.
    parser.add_argument("--rounds", type=int, default=31)
    parser.add_argument("--calls", type=int, default=300, help="echo calls per round")
    parser.add_argument("--matches", type=int, default=1, help="referee matches per round")
    args = parser.parse_args()
    commands = [arena_command("referee", "serve", "--port", "0"), ECHO, ECHO]
    request = sample_request()
    rounds: list[tuple[float, float]] = []
    with (
        services(commands) as (referee, echo_a, echo_b),
        grpc.insecure_channel(echo_a.address) as echo_channel,
        grpc.insecure_channel(referee.address) as referee_channel,
    ):
        echo = bot_pb2_grpc.BotStub(echo_channel)
        referee_stub = referee_pb2_grpc.RefereeStub(referee_channel)
        bots = [echo_a.address, echo_b.address]
        echo_round_trip_us(echo, request, 200)  # warm up both paths
        referee_decision_us(referee_stub, bots, range(1))
        decisions = 0
        for r in range(args.rounds):
            echo_us = echo_round_trip_us(echo, request, args.calls)
            seeds = range(1 + r * args.matches, 1 + (r + 1) * args.matches)
            referee_us, n = referee_decision_us(referee_stub, bots, seeds)
            decisions += n
            rounds.append((referee_us / echo_us, echo_us))
            print(
                f"round {r + 1}: echo {echo_us:6.1f} us, referee {referee_us:6.1f} us per decision"
            )
    ratio, echo_us = statistics.median(rounds)
    print(f"bare gRPC echo (unary Act, {args.calls} calls a round): {echo_us:.1f} us per call")
    print(f"referee, per decision ({decisions} decisions): {ratio * echo_us:.1f} us")
    print(f"median ratio referee / echo: {ratio:.2f}  (aim <= 0.70)")


if __name__ == "__main__":
    main()
