"""Finalising happens once and costs what the arena's pairings do: the tournament's
lock is renewed for as long as the work takes, a second finalisation (its holder
stopped past the lock's life) adds no rating-history point twice
(``test_rating_history.py`` tests the history's gate), and the arena's refit reads
kept tallies instead of every result (``bench.rating_refit`` measures it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
import redis

from arena.local_redis import LocalRedis
from arena.ratings.leaderboard import ratings_by_game
from arena.store import TournamentStore, keys
from arena.store.tournaments import CANCELLED
from tests.records import spec
from tests.support.arena import Arena
from tests.support.database import next_database

HOLD = """
import time
from arena.store import keys
from workers.stores import exclusive

SHARED = True  # one referee and API for the module (tests/tournament/conftest.py)
with exclusive(keys.scheduling("t1"), 3.0) as held:
    print("held" if held else "not held", flush=True)
    time.sleep(6.5)  # two lives of the lock and more
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
        # Past the lock's 3 s: only renewal keeps it. (A life of 0.6 s, renewed every
        # 0.2 s, lapsed once on a loaded host; the workers' lock lives 30 s.)
        time.sleep(4.0)
        assert not client.lock(keys.scheduling("t1"), blocking=False).acquire()
        assert holder.stdout.readline().strip() == "released"
        assert client.lock(keys.scheduling("t1"), blocking=False).acquire()
    finally:
        holder.kill()
        holder.wait()


def test_the_arenas_ratings_from_kept_tallies_are_those_of_every_result(arena: Arena) -> None:
    """Refits read finished tournaments' tallies, summed once, not their results: the
    boards are those of every result, and a tournament finished before tallies were
    kept is tallied at the next refit."""
    arena.start_worker("w", concurrency=2)
    arena.start_bot("a", "random", "--seed", "1")
    arena.start_bot("b", "house")
    arena.start_bot("c", "random", "--seed", "2")
    first = arena.submit(["a", "b", "c"], games=["seep"])
    arena.wait_until(first.id)
    r = arena.redis
    r.hdel(keys.tallies(), first.id)  # as if it had finished before tallies were kept
    r.delete(keys.tally_sum())
    second = arena.submit(["a", "b"], deals=2, games=["bid-euchre", "seep"])
    arena.wait_until(second.id)
    store = TournamentStore(r)
    everything = [*store.results(first.id), *store.results(second.id)]
    boards = ratings_by_game(everything)
    expected = json.loads(json.dumps({game: board.to_json() for game, board in boards.items()}))
    assert json.loads(r.get(keys.ratings()) or "{}") == expected
    assert store.tallied() == {first.id, second.id}
    assert store.tally_sum()[0] == {first.id, second.id}


def test_finishing_drops_the_per_match_bookkeeping_and_keeps_its_totals(url: str) -> None:
    client = redis.Redis.from_url(url)
    store = TournamentStore(client)
    store.create("t1", spec(("a", "b"), ("seep",), deals=1), ["seep"], total=2)
    client.hset(keys.tries("t1"), mapping={"t1-m1": 1, "t1-m2": 3})
    client.hset(keys.holders("t1"), "t1-m2", "token")
    client.zadd(keys.playing("t1"), {"t1-m2": 1.0})
    client.hset(keys.failed_on("t1"), "t1-m2", '["r1"]')
    client.hset(keys.failures("t1"), "t1-m2", "{}")
    assert store.finish("t1")
    record = store.get("t1")
    assert record is not None and (record.attempts, record.retried) == (4, 1)
    assert not any(client.exists(key) for key in keys.per_match("t1"))
    assert not store.finish("t1")  # once


def test_a_cancelled_tournament_drops_its_bookkeeping_once_nothing_plays(url: str) -> None:
    client = redis.Redis.from_url(url)
    store = TournamentStore(client)
    store.create("t1", spec(("a", "b"), ("seep",), deals=1), ["seep"], total=2)
    assert store.running_count() == 1 and client.sismember(keys.running(), "t1")
    client.hset(keys.tries("t1"), mapping={"t1-m1": 2, "t1-m2": 1})
    client.hset(keys.holders("t1"), "t1-m2", "token")
    client.zadd(keys.playing("t1"), {"t1-m2": time.time() + 60})  # a live lease
    client.hset(keys.failures("t1"), "t1-m1", "{}")
    store.set_state("t1", CANCELLED)
    assert not client.sismember(keys.running(), "t1")
    assert store.trim_cancelled() == 0  # still being played: its seeds stay secret too
    assert client.exists(keys.playing("t1")) and client.exists(keys.tries("t1"))
    client.zadd(keys.playing("t1"), {"t1-m2": time.time() - 1})  # the lease ran out
    assert store.trim_cancelled() == 1
    record = store.get("t1")
    assert record is not None and (record.attempts, record.retried) == (3, 1)
    assert not any(client.exists(key) for key in keys.per_match("t1"))
    assert not client.exists(keys.to_trim()) and store.trim_cancelled() == 0
