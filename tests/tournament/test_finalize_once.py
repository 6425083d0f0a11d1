"""Finalising happens once: the tournament's lock is renewed for as long as the work
takes, and a second finalisation (its holder stopped past the lock's life) adds no
rating-history point twice (``test_rating_history.py`` tests the history's gate)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
import redis

from arena.local_redis import LocalRedis
from tests.conftest import next_database

HOLD = """
import time
from workers.stores import exclusive
with exclusive("arena:t:t1:scheduling", 0.6) as held:
    print("held" if held else "not held", flush=True)
    time.sleep(2.5)  # four lives of the lock
print("released", flush=True)
"""


@pytest.fixture
def url(local_redis: LocalRedis) -> Iterator[str]:
    yield local_redis.url(next_database())


def test_a_lock_held_past_its_life_is_renewed_and_no_one_else_takes_it(url: str) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD],
        env={**os.environ, "ARENA_REDIS_URL": url},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        client = redis.Redis.from_url(url)
        time.sleep(1.5)  # past the lock's 0.6 s: only renewal keeps it
        assert not client.lock("arena:t:t1:scheduling", blocking=False).acquire()
        assert holder.stdout.readline().strip() == "released"
        assert client.lock("arena:t:t1:scheduling", blocking=False).acquire()
    finally:
        holder.kill()
        holder.wait()
