"""What starting the ``arena`` command costs, against starting Python itself.

Timed side by side, in rotating order within each round: ``python -c pass``, ``python -c
'import grpc'``, ``arena --help``, and ``arena bot list`` against a real API process (over
a throwaway Redis, one bot registered), each a fresh process as a user starts it. The
aims: ``arena --help`` at most 2x ``python -c pass``; ``arena bot list`` at most 1.5x
``python -c 'import grpc'``, the least any command that speaks gRPC pays.

The children write and use bytecode caches as an installed arena does (this machine sets
PYTHONDONTWRITEBYTECODE, which would have every run compile the arena's sources).
Reported: each command's median wall time and CPU (user + system, from the children's
rusage), and the median round's ratio against its target.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence

from arena.cli.connect import arena_api
from arena.local_redis import start_redis
from arena.processes import arena_command, start_service
from arena.v1 import arena_pb2


def timed(command: Sequence[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``command``, which must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=21)
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    redis = start_redis()
    try:
        api = start_service(arena_command("api", "serve", "--port", "0", "--redis", redis.url()))
        bot = start_service(arena_command("bot", "serve", "random", "--port", "0"))
        try:
            with arena_api(api.address) as stub:
                stub.RegisterBot(arena_pb2.RegisterBotRequest(name="r", address=bot.address))
            commands = {
                "python -c pass": [sys.executable, "-c", "pass"],
                "python -c 'import grpc'": [sys.executable, "-c", "import grpc"],
                "arena --help": arena_command("--help"),
                "arena bot list": arena_command("bot", "list", "--api", api.address),
            }
            for command in commands.values():  # writes the bytecode caches
                timed(command, env)
            walls: dict[str, list[float]] = {name: [] for name in commands}
            cpus: dict[str, list[float]] = {name: [] for name in commands}
            names = list(commands)
            for r in range(args.rounds):
                for name in names[r % len(names) :] + names[: r % len(names)]:
                    wall, cpu = timed(commands[name], env)
                    walls[name].append(wall)
                    cpus[name].append(cpu)
        finally:
            bot.stop()
            api.stop()
    finally:
        redis.stop()
    print(f"{args.rounds} rounds, medians")
    for name in names:
        wall, cpu = statistics.median(walls[name]), statistics.median(cpus[name])
        print(f"  {name:<26} {1000 * wall:7.1f} ms wall, {1000 * cpu:7.1f} ms CPU")
    for name, base, aim in (
        ("arena --help", "python -c pass", 2.0),
        ("arena bot list", "python -c 'import grpc'", 1.5),
    ):
        ratio = statistics.median(a / b for a, b in zip(walls[name], walls[base], strict=True))
        verdict = "met" if ratio <= aim else "NOT met"
        print(f"{name} / {base}: {ratio:.2f} (aim <= {aim:g}: {verdict})")


if __name__ == "__main__":
    main()
