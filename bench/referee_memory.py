"""A referee's memory over a long run: flat once warm?

One referee process as shipped (no replay cache) plays ``--matches`` matches, every game
in turn, ``--parallel`` at a time, between two example bots (processes). Its resident
memory (``VmRSS``) is read every ``--every`` matches. Warm-up is what the referee keeps
by design: the public events of its last 512 finished matches (``arena.referee.feed``)
and the engines' bounded caches (Seep's floor analyses). Baseline in the same run: the
RSS once ``--warm`` matches are played. Prints the samples and the last against the
baseline; aim: at most 1.10x.
"""

from __future__ import annotations

import argparse
import contextlib
import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc

from arena import wire
from arena.games import game_names
from arena.processes import Service, arena_command, start_service
from arena.v1 import referee_pb2, referee_pb2_grpc

AIM = 1.10


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=3000, help="matches (default 3000)")
    parser.add_argument("--warm", type=int, default=1000, help="warm-up matches (default 1000)")
    parser.add_argument("--every", type=int, default=250, help="sample every (default 250)")
    parser.add_argument("--parallel", type=int, default=4, help="at once (default 4)")
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:

        def start(*command: str) -> Service:
            service = start_service(arena_command(*command))
            stack.callback(service.stop)
            return service

        referee = start("referee", "serve", "--port", "0")
        bots = [
            start("bot", "serve", "house", "--port", "0").address,
            start("bot", "serve", "random", "--seed", "1", "--port", "0").address,
        ]
        games = game_names()
        channel = stack.enter_context(grpc.insecure_channel(referee.address))
        stub = referee_pb2_grpc.RefereeStub(channel)

        def play(n: int) -> None:
            stub.PlayMatch(
                referee_pb2.PlayMatchRequest(
                    game=games[n % len(games)],
                    bots=bots,
                    seed=random.Random(n).getrandbits(48),
                    move_deadline=wire.duration(5.0),
                ),
                timeout=600,
            )

        pid = referee.process.pid
        print(f"{'matches':>8} {'RSS MiB':>8}")
        print(f"{0:>8} {rss_mib(pid):>8.1f}")
        warm = 0.0
        with ThreadPoolExecutor(args.parallel) as pool:
            for start_at in range(0, args.matches, args.every):
                list(pool.map(play, range(start_at, start_at + args.every)))
                played, now = start_at + args.every, rss_mib(pid)
                print(f"{played:>8} {now:>8.1f}", flush=True)
                if played <= args.warm:
                    warm = now
        ratio = now / warm
        verdict = "OK" if ratio <= AIM else "OVER"
        print(f"after warm-up ({args.warm} matches): {ratio:.2f}x (aim <= {AIM:.2f}) {verdict}")


if __name__ == "__main__":
    main()
