"""What a greedy client costs an honest one, on the public surfaces.

The scene of ``tests/access/test_public_load.py`` (the arena with the limits and tokens
it ships, real processes on a dual-stack loopback): an honest client at ::1 makes its
round of requests (a live match's events through the site, a replay page, frames and a
sent request, the front page, an OpenSkill board and a replay from the API, a live
match's events from the referee) with nobody else about, then while a greedy client at
127.0.0.1 holds its whole share of everything (site viewers, referee streams) and keeps
asking for more (replay reads, costly API reads) from several threads as fast as it is
answered. Rounds alternate between the two; the medians of an honest round and their
ratios are printed (rounds with no greedy client at all come first, as the baseline),
and how many of the greedy requests were served and refused.

    PYTHONPATH=. python bench/public_load.py [--rounds 15] [--threads 4]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from pathlib import Path

import grpc

from arena.local_redis import start_redis
from arena.v1 import arena_pb2
from tests.access.public_scene import (
    GREEDY,
    Scene,
    release,
    serve_honestly,
    set_up,
    stack,
    take_everything,
)


def hammer(scene: Scene, stop: threading.Event, counts: dict[str, int]) -> None:
    """Costly reads as fast as they are answered, refused or not."""
    api = scene.made.api(GREEDY)
    ask = arena_pb2.GetLeaderboardRequest(openskill=True)
    while not stop.is_set():
        status = scene.made.get(GREEDY, scene.replay)[0]
        counts["site refused" if status == 429 else "site served"] += 1
        try:
            api.GetLeaderboard(ask)
            counts["API served"] += 1
        except grpc.RpcError:
            counts["API refused"] += 1


def timed(scene: Scene) -> float:
    started = time.perf_counter()
    serve_honestly(scene)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--threads", type=int, default=4)
    args = parser.parse_args()
    server = start_redis()
    try:
        with stack(server, Path(tempfile.mkdtemp(prefix="public-load-"))) as made:
            scene = set_up(made)
            timed(scene)  # warm up: connections, the site's caches
            alone = [timed(scene) for _ in range(args.rounds)]
            idle: list[float] = []
            loaded: list[float] = []
            counts = dict.fromkeys(("site served", "site refused", "API served", "API refused"), 0)
            held: list[object] = []
            try:
                take_everything(scene, held)
                for _ in range(args.rounds):
                    idle.append(timed(scene))
                    stop = threading.Event()
                    threads = [
                        threading.Thread(target=hammer, args=(scene, stop, counts))
                        for _ in range(args.threads)
                    ]
                    for thread in threads:
                        thread.start()
                    time.sleep(0.2)  # the greedy threads are at it
                    loaded.append(timed(scene))
                    stop.set()
                    for thread in threads:
                        thread.join()
            finally:
                release(held)
    finally:
        server.stop()
    first, quiet, busy = (statistics.median(t) for t in (alone, idle, loaded))
    print(f"honest round (9 requests over site, API and referee), median of {args.rounds}:")
    print(f"  no greedy client: {first * 1000:.1f} ms")
    print(f"  greedy holding its shares: {quiet * 1000:.1f} ms")
    print(f"  greedy also hammering ({args.threads} threads): {busy * 1000:.1f} ms")
    print(f"  ratio hammering / holding: {busy / quiet:.2f}; hammering / none: {busy / first:.2f}")
    print("greedy requests while hammering: " + ", ".join(f"{k} {v}" for k, v in counts.items()))


if __name__ == "__main__":
    main()
