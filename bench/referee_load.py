"""How many matches one referee holds at once when bots think: the load of issue #7.

Bots answer after ``--delay-ms`` (50) under a ``--deadline-ms`` (100) deadline; each
round plays N Persian Rummy matches at once through one referee process. Baseline: the
longest match's decisions x the think time, the wall time the round would take if the
referee cost nothing. Printed: wall / baseline, decisions per second, timeouts, and
forfeits; the highest N with no forfeit is the referee's capacity on this machine.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import grpc

from arena import wire
from arena.processes import arena_command, services
from arena.v1 import referee_pb2, referee_pb2_grpc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--levels", default="16,32,64,128,192,256")
    parser.add_argument("--delay-ms", type=int, default=50)
    parser.add_argument("--deadline-ms", type=int, default=100)
    args = parser.parse_args()
    paced = ["bot", "serve", "paced", "--port", "0", "--delay-ms", str(args.delay_ms)]
    with (
        tempfile.TemporaryDirectory() as replays,
        services(
            [
                arena_command("referee", "serve", "--port", "0", "--replay-dir", replays),
                arena_command(*paced, "--seed", "1"),
                arena_command(*paced, "--seed", "2"),
            ]
        ) as (referee, a, b),
        grpc.insecure_channel(referee.address) as channel,
    ):
        stub = referee_pb2_grpc.RefereeStub(channel)

        def play(seed: int) -> referee_pb2.MatchResult:
            result: referee_pb2.MatchResult = stub.PlayMatch(
                referee_pb2.PlayMatchRequest(
                    game="persian-rummy",
                    bots=[a.address, b.address],
                    seed=seed,
                    move_deadline=wire.duration(args.deadline_ms / 1000),
                ),
                timeout=3600,
            )
            return result

        capacity = 0
        print(" matches  wall/ideal  decisions/s  timeouts  forfeits")
        for level in (int(n) for n in args.levels.split(",")):
            started = time.monotonic()
            with ThreadPoolExecutor(level) as pool:
                results = list(pool.map(play, range(level * 1000, level * 1001)))
            wall = time.monotonic() - started
            ideal = max(r.decisions for r in results) * args.delay_ms / 1000
            decisions = sum(r.decisions for r in results)
            timeouts = sum(
                1 for r in results for f in r.faults if f.kind == referee_pb2.FAULT_KIND_TIMEOUT
            )
            forfeits = sum(1 for r in results if r.end == referee_pb2.MATCH_END_FORFEIT)
            if not forfeits:
                capacity = level
            print(
                f"{level:8d}  {wall / ideal:10.2f}  {decisions / wall:11.0f}  {timeouts:8d}  "
                f"{forfeits:8d}"
            )
        print(f"highest concurrency without a forfeit: {capacity}")


if __name__ == "__main__":
    main()
