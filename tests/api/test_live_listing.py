"""ListLiveMatches through a real API on its own Redis database: a running match is
listed by its public id, and with a broadcast delay only once it is that old, counted
as withheld until then."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pytest

from arena.local_redis import LocalRedis
from arena.store import TournamentStore
from arena.store.leases import MatchLeases
from arena.store.live import LiveAttempt, LiveMatches
from arena.tournament.fair_play import PUBLIC_ID
from arena.v1 import arena_pb2
from tests.api.hosted import HostedApi, start_api
from tests.records import spec


@pytest.fixture(scope="module")
def api(local_redis: LocalRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostedApi]:
    started = start_api(local_redis, tmp_path_factory.mktemp("live-listing"))
    yield started
    started.stop()


def playing(api: HostedApi, tournament_id: str, match_id: str, started_at: float) -> None:
    """A match a worker plays now, as it notes it."""
    assert MatchLeases(api.redis).claim(tournament_id, match_id, "worker-1", 600)
    LiveMatches(api.redis).start(
        tournament_id,
        LiveAttempt(
            match_id, "seep", ("a", "b"), "127.0.0.1:9", uuid.uuid4().hex, started_at, False
        ),
    )


def listed(api: HostedApi, tournament_id: str) -> arena_pb2.ListLiveMatchesResponse:
    reply: arena_pb2.ListLiveMatchesResponse = api.stub.ListLiveMatches(
        arena_pb2.ListLiveMatchesRequest(tournament_id=tournament_id)
    )
    return reply


def test_a_live_match_is_listed_by_its_public_id(api: HostedApi) -> None:
    store = TournamentStore(api.redis)
    store.create("t-live-now", spec(), ["seep"])
    playing(api, "t-live-now", "t-live-now-seep-0-1-a", time.time())
    reply = listed(api, "t-live-now")
    [match] = reply.matches
    record = store.get("t-live-now")
    assert record is not None
    assert match.match_id == record.spec.seed.public_id("t-live-now-seep-0-1-a")
    assert PUBLIC_ID.fullmatch(match.match_id) and "seep-0-1" not in str(match)


def test_with_a_broadcast_delay_a_match_is_listed_only_once_it_is_that_old(
    api: HostedApi,
) -> None:
    store = TournamentStore(api.redis)
    store.create("t-delayed", spec(broadcast_delay_ms=60_000.0), ["seep"])
    now = time.time()
    playing(api, "t-delayed", "t-delayed-seep-0-0-a", now - 90)  # older than the delay
    playing(api, "t-delayed", "t-delayed-seep-0-1-a", now)  # just begun
    reply = listed(api, "t-delayed")
    record = store.get("t-delayed")
    assert record is not None
    assert [m.match_id for m in reply.matches] == [
        record.spec.seed.public_id("t-delayed-seep-0-0-a")
    ]
    assert reply.withheld == 1
    tournament = api.stub.GetTournament(arena_pb2.GetTournamentRequest(id="t-delayed"))
    assert tournament.spec.broadcast_delay.seconds == 60
