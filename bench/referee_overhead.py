"""Per-decision cost of a match through the referee, against a bare gRPC echo.

Baseline: this process calls ``Bot.Act`` (unary) on an echo bot in another process,
with a real mid-game Bid Euchre request as payload. Measured: a referee process plays
matches between two echo bots (separate processes, streams when offered, as in
production); its cost per decision is match duration / decisions, which includes the
engine, building each request and the round trip. Ratio = referee / echo; aim <= 0.7.
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


def echo_round_trip_us(address: str, calls: int) -> float:
    request = sample_request()
    with grpc.insecure_channel(address) as channel:
        stub = bot_pb2_grpc.BotStub(channel)
        for _ in range(200):  # warm up
            stub.Act(request)
        timings = []
        for _ in range(calls):
            started = time.perf_counter()
            stub.Act(request)
            timings.append(time.perf_counter() - started)
    return statistics.mean(timings) * 1e6


def referee_decision_us(referee: str, bots: list[str], matches: int) -> tuple[float, int]:
    total_s, decisions = 0.0, 0
    with grpc.insecure_channel(referee) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)
        for seed in range(matches + 1):
            result = stub.PlayMatch(
                referee_pb2.PlayMatchRequest(game="bid-euchre", bots=bots, seed=seed)
            )
            if seed == 0:
                continue  # warm-up match
            total_s += result.duration.ToTimedelta() / timedelta(seconds=1)
            decisions += result.decisions
    return total_s / decisions * 1e6, decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--matches", type=int, default=20)
    args = parser.parse_args()
    commands = [arena_command("referee", "serve", "--port", "0"), ECHO, ECHO]
    with services(commands) as (referee, echo_a, echo_b):
        echo_us = echo_round_trip_us(echo_a.address, args.calls)
        referee_us, decisions = referee_decision_us(
            referee.address, [echo_a.address, echo_b.address], args.matches
        )
    print(f"bare gRPC echo (unary Act, {args.calls} calls): {echo_us:8.1f} us per call")
    print(f"referee, per decision ({decisions} decisions): {referee_us:8.1f} us")
    print(f"ratio referee / echo: {referee_us / echo_us:.2f}  (aim <= 0.70)")


if __name__ == "__main__":
    main()
