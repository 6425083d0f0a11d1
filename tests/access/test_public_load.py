"""A bounded load test of the public surfaces, with the limits the arena ships: a greedy
client takes all it may of the site, the API and a referee at once (live-match viewers,
replay reads, costly API reads, WatchMatch streams, oversized and anonymous package
messages), and an honest client from another address is still served, every request
answered, while the greedy one holds its whole share.

Real processes on a dual-stack loopback (a referee, the API, a Celery worker, paced bots
and the web site, with the tokens compose gives them): the greedy client comes from
127.0.0.1, the honest one from ::1. The site itself reaches the API and the referee from
127.0.0.1 too, the greedy client's address: its read token keeps it out of that
address's shares. Timings are printed, not asserted; ``bench/public_load.py`` measures
them against an idle arena."""

from __future__ import annotations

import time
from pathlib import Path

from arena.local_redis import LocalRedis
from arena.v1 import arena_pb2
from tests.access.public_scene import (
    GREEDY,
    release,
    serve_honestly,
    set_up,
    stack,
    take_everything,
)


def test_a_greedy_client_cannot_keep_an_honest_one_out(
    local_redis: LocalRedis, tmp_path: Path
) -> None:
    with stack(local_redis, tmp_path) as made:
        scene = set_up(made)
        held: list[object] = []
        try:
            greedy = take_everything(scene, held)
            started = time.monotonic()
            honest = serve_honestly(scene)
            took = time.monotonic() - started
        finally:
            release(held)
        print(f"\ngreedy refusals: {greedy}; honest answers: {honest} in {took:.2f} s")
        made.api(GREEDY).CancelTournament(
            arena_pb2.CancelTournamentRequest(id=scene.live_id), metadata=made.operator()
        )
