"""Workers pick the least loaded referee: ``choose`` by itself, then the counts in a real
Redis shared by concurrent claims, lapsing with the lease, and retries that avoid the
referee that failed."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
import redis

from arena.local_redis import LocalRedis
from arena.store import keys
from arena.store.referee_load import RefereeLoad, choose
from tests.support.database import next_database

A, B, C = "10.0.0.1:50051", "10.0.0.2:50051", "10.0.0.3:50051"
LEASE_S = 30.0


def test_choose_takes_the_fewest_matches_in_flight() -> None:
    assert choose({A: 3, B: 1, C: 2}) == B
    assert choose({A: 0, B: 5}, start=7) == A


def test_choose_breaks_ties_from_start_so_idle_referees_share() -> None:
    assert [choose({A: 0, B: 0, C: 0}, start=s) for s in range(4)] == [A, B, C, A]
    assert choose({A: 1, B: 0, C: 0}, start=0) == B


def test_choose_avoids_where_the_match_failed_while_another_exists() -> None:
    assert choose({A: 0, B: 9}, failed=[A]) == B
    assert choose({A: 0, B: 9, C: 4}, failed=[A]) == C
    # Failed everywhere: anything but the latest failure, by load.
    assert choose({A: 5, B: 0, C: 1}, failed=[A, C, B]) == C
    assert choose({A: 0}, failed=[A]) == A  # the only referee there is


def test_choose_needs_a_referee() -> None:
    with pytest.raises(ValueError, match="no referees"):
        choose({})


@pytest.fixture
def client(local_redis: LocalRedis) -> Iterator[redis.Redis]:
    connection = redis.Redis.from_url(local_redis.url(next_database()))
    connection.flushdb()
    yield connection
    connection.close()


def test_concurrent_claims_are_spread_evenly(client: redis.Redis) -> None:
    load = RefereeLoad(client)
    claims = 8
    together = threading.Barrier(claims)

    def claim(n: int) -> str:
        together.wait()
        return load.claim([A, B], "t1", f"m{n}", LEASE_S)

    with ThreadPoolExecutor(claims) as pool:
        chosen = Counter(pool.map(claim, range(claims)))
    assert chosen == {A: 4, B: 4}
    assert load.counts([A, B]) == {A: 4, B: 4}


def test_a_finished_match_stops_counting_and_the_next_goes_there(client: redis.Redis) -> None:
    load = RefereeLoad(client)
    first = load.claim([A, B], "t1", "m1", LEASE_S)
    second = load.claim([A, B], "t1", "m2", LEASE_S)
    assert {first, second} == {A, B}
    load.release(first, "t1", "m1")
    assert load.counts([A, B]) == {first: 0, second: 1}
    assert load.claim([A, B], "t1", "m3", LEASE_S) == first


def test_an_entry_whose_lease_lapsed_stops_counting(client: redis.Redis) -> None:
    """A worker killed mid-match renews nothing: its count lapses with the lease."""
    load = RefereeLoad(client)
    dead = load.claim([A, B], "t1", "m1", 0.3)
    live = load.claim([A, B], "t1", "m2", LEASE_S)
    assert load.counts([A, B]) == {dead: 1, live: 1}
    time.sleep(0.4)  # the lease's 0.3 s pass: the lapse is what is tested, not a wait
    assert load.counts([A, B]) == {dead: 0, live: 1}
    assert load.claim([A, B], "t1", "m3", LEASE_S) == dead
    assert client.zcard(keys.referee_playing(dead)) == 1  # the lapsed entry was pruned


def test_a_renewed_entry_keeps_counting(client: redis.Redis) -> None:
    load = RefereeLoad(client)
    referee = load.claim([A, B], "t1", "m1", 0.3)
    time.sleep(0.2)  # renewed within its 0.3 s lease,
    load.renew(referee, "t1", "m1", LEASE_S)
    time.sleep(0.2)  # and still counted past the lease it was claimed with
    assert load.counts([referee]) == {referee: 1}


def test_a_retry_avoids_the_referee_that_failed(client: redis.Redis) -> None:
    load = RefereeLoad(client)
    failing = load.claim([A, B], "t1", "m1", LEASE_S)
    other = B if failing == A else A
    for n in range(3):  # the other referee is busier, and still chosen
        assert load.claim([A, B], "t1", f"busy{n}", LEASE_S) in (A, B)
    load.release(failing, "t1", "m1")
    load.failed(failing, "t1", "m1")
    assert load.failed_on("t1", "m1") == [failing]
    busy = load.counts([A, B])
    assert busy[failing] < busy[other]
    assert load.claim([A, B], "t1", "m1", LEASE_S) == other
    # It fails there too: back to the first, never twice running to the same one.
    load.failed(other, "t1", "m1")
    assert load.failed_on("t1", "m1") == [failing, other]
    assert load.claim([A, B], "t1", "m1", LEASE_S) == failing


def test_a_failed_attempt_keeps_counting_until_its_lease_lapses(client: redis.Redis) -> None:
    """A referee that just failed must not look idle and draw every new match."""
    load = RefereeLoad(client)
    down = load.claim([A, B], "t1", "m1", 0.3)
    load.failed(down, "t1", "m1")
    up = load.claim([A, B], "t1", "m2", LEASE_S)
    assert up != down
    time.sleep(0.4)  # the lease's 0.3 s pass: the lapse is what is tested, not a wait
    assert load.claim([A, B], "t1", "m3", LEASE_S) == down
