"""``arena.store.live``: the attempts a worker notes while a referee plays them, on a real
Redis. Only the attempt that wrote an entry removes it: a retry of the same match on
another referee has replaced it by then, and must stay watchable."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from arena.local_redis import LocalRedis
from arena.store.live import LiveAttempt, LiveMatches
from tests.support.database import next_database


@pytest.fixture
def live(local_redis: LocalRedis) -> Iterator[LiveMatches]:
    client = redis.Redis.from_url(local_redis.url(next_database()))
    yield LiveMatches(client)
    client.close()


def attempt(match_id: str, watch_id: str, started_at: float, referee: str = "r1:1") -> LiveAttempt:
    return LiveAttempt(
        match_id=match_id,
        game="seep",
        entries=("a", "b"),
        referee=referee,
        watch_id=watch_id,
        started_at=started_at,
        paired=match_id.endswith("b"),
    )


def test_attempts_round_trip_oldest_first_per_tournament(live: LiveMatches) -> None:
    later, earlier = attempt("m2b", "w2", 20.5), attempt("m1a", "w1", 10.25)
    live.start("t1", later)
    live.start("t1", earlier)
    live.start("t2", attempt("m9", "w9", 5.0))
    assert live.attempts("t1") == [earlier, later]  # every field, tuple entries included
    assert [a.match_id for a in live.attempts("t2")] == ["m9"]
    assert live.attempts("t3") == []


def test_an_ended_attempt_is_forgotten(live: LiveMatches) -> None:
    live.start("t1", attempt("m1", "w1", 1.0))
    live.start("t1", attempt("m2", "w2", 2.0))
    live.end("t1", "m1", "w1")
    assert [a.match_id for a in live.attempts("t1")] == ["m2"]
    live.end("t1", "m1", "w1")  # twice, or after a restart: nothing to remove, no error
    assert [a.match_id for a in live.attempts("t1")] == ["m2"]


def test_a_stale_attempt_does_not_remove_its_retry(live: LiveMatches) -> None:
    """A worker whose attempt was taken over ends late: the retry stays listed."""
    live.start("t1", attempt("m1", "w-old", 1.0, referee="r1:1"))
    retry = attempt("m1", "w-new", 9.0, referee="r2:2")
    live.start("t1", retry)
    live.end("t1", "m1", "w-old")
    assert live.attempts("t1") == [retry]
    live.end("t1", "m1", "w-new")
    assert live.attempts("t1") == []
