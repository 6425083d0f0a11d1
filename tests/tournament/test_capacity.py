"""The workers' announced capacity: what the scheduler reads is the sum of the live
announcements, and one past its time is gone from Redis."""

from __future__ import annotations

import json
import time

import redis

from arena.local_redis import LocalRedis
from arena.store import keys
from tests.support.database import next_database
from workers import capacity


def test_live_workers_are_counted_and_lapsed_ones_forgotten(local_redis: LocalRedis) -> None:
    r = redis.Redis.from_url(local_redis.url(next_database()))
    assert capacity.live_processes(r) == 0
    capacity.announce(r, "a@host", 4, interval_s=10)
    capacity.announce(r, "b@host", 2, interval_s=10)
    capacity.announce(r, "a@host", 3, interval_s=10)  # a worker's latest word counts
    lapsed = {"processes": 8, "until": time.time() - 1}
    r.hset(keys.workers(), "c@host", json.dumps(lapsed))
    r.hset(keys.workers(), "d@host", "not json")
    assert capacity.live_processes(r) == 5
    assert set(r.hkeys(keys.workers())) == {b"a@host", b"b@host"}
