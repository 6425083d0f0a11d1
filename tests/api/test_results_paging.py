"""ListResults a page at a time, from a real API over gRPC on its own Redis database:
pages join into the whole list in match id order (public ids while the tournament runs),
a boundary holds while results arrive, and a tournament stored before the order index
existed pages too once ``arena store migrate`` has indexed it."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import grpc
import pytest

from arena.api.paging import MAX_PAGE_SIZE
from arena.local_redis import LocalRedis
from arena.store import TournamentStore, keys
from arena.store.migrate import migrate
from arena.store.tournaments import FINISHED
from arena.v1 import arena_pb2
from tests.api.hosted import HostedApi, refusal, start_api
from tests.records import spec
from tests.support.stored_result import stored


@pytest.fixture(scope="module")
def api(local_redis: LocalRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostedApi]:
    started = start_api(local_redis, tmp_path_factory.mktemp("results-paging"))
    yield started
    started.stop()


def tournament_of(api: HostedApi, tid: str, count: int, *, ended: bool = True) -> list[str]:
    """A tournament with ``count`` results stored as a worker stores them (out of order),
    ended unless ``ended`` is false; its match ids in order."""
    store = TournamentStore(api.redis)
    store.create(tid, spec(), ["seep"])
    ids = [f"{tid}-{n:04}" for n in range(count)]
    for match_id in ids[1::2] + ids[0::2]:
        assert store.record_result(tid, stored(match_id, match_id), b"")
    if ended:
        store.finish(tid)
    return ids


def public_ids(api: HostedApi, tid: str, ids: list[str]) -> list[str]:
    record = TournamentStore(api.redis).get(tid)
    assert record is not None
    return [record.spec.seed.public_id(i) for i in ids]


def pages(
    api: HostedApi,
    *,
    tournament_id: str,
    page_size: int = 0,
    order_by: str = "",
    after_match_id: str = "",
) -> list[list[str]]:
    """Every page's match ids, following next_page_token to the end."""
    found: list[list[str]] = []
    token = ""
    while True:
        asked = arena_pb2.ListResultsRequest(
            tournament_id=tournament_id,
            page_size=page_size,
            page_token=token,
            order_by=order_by,
            after_match_id=after_match_id,
        )
        reply = api.stub.ListResults(asked)
        found.append([r.match_id for r in reply.results])
        token = reply.next_page_token
        if not token:
            return found


def test_pages_join_into_every_result_in_match_id_order_once(api: HostedApi) -> None:
    ids = tournament_of(api, "t-pages", 25)
    # The order index is written with each result, before anything reads it.
    assert api.redis.zrange(keys.order("t-pages"), 0, -1) == [i.encode() for i in ids]
    assert pages(api, tournament_id="t-pages") == [ids]  # page_size 0: all, as before
    by_ten = pages(api, tournament_id="t-pages", page_size=10)
    assert [len(p) for p in by_ten] == [10, 10, 5]
    assert [i for p in by_ten for i in p] == ids
    # A last page exactly full has no empty page after it.
    assert pages(api, tournament_id="t-pages", page_size=5)[-1] == ids[20:]
    assert pages(api, tournament_id="t-pages", page_size=MAX_PAGE_SIZE) == [ids]
    latest = pages(api, tournament_id="t-pages", page_size=10, order_by="match_id desc")
    assert [i for p in latest for i in p] == ids[::-1]
    after = pages(api, tournament_id="t-pages", page_size=7, after_match_id=ids[9])
    assert [i for p in after for i in p] == ids[10:]
    before = pages(
        api, tournament_id="t-pages", page_size=7, order_by="match_id desc", after_match_id=ids[9]
    )
    assert [i for p in before for i in p] == ids[8::-1]
    everything_before = pages(
        api, tournament_id="t-pages", order_by="match_id desc", after_match_id=ids[9]
    )
    assert everything_before == [ids[8::-1]]


def test_a_result_stored_between_pages_neither_repeats_nor_skips_one(api: HostedApi) -> None:
    ids = tournament_of(api, "t-arrive", 6)
    store = TournamentStore(api.redis)
    ask = arena_pb2.ListResultsRequest(tournament_id="t-arrive", page_size=3)
    first = api.stub.ListResults(ask)
    assert [r.match_id for r in first.results] == ids[:3]
    # One before the boundary (it would shift a position) and one after it arrive.
    store.record_result("t-arrive", stored("t-arrive-0000a", "t-arrive-0000a"), b"")
    store.record_result("t-arrive", stored("t-arrive-0004a", "t-arrive-0004a"), b"")
    ask.page_token = first.next_page_token
    rest = api.stub.ListResults(ask)
    assert [r.match_id for r in rest.results] == [ids[3], ids[4], "t-arrive-0004a"]
    ask.page_token = rest.next_page_token
    assert [r.match_id for r in api.stub.ListResults(ask).results] == [ids[5]]


def test_a_tournament_stored_before_the_order_index_pages_once_migrated_and_keeps_its_index(
    api: HostedApi,
) -> None:
    ids = tournament_of(api, "t-old", 12)
    api.redis.delete(keys.order("t-old"))  # as a result stored by an older arena left it
    with pytest.raises(grpc.RpcError) as refused:
        pages(api, tournament_id="t-old", page_size=5)
    assert "tournament 't-old' was stored by an earlier build (its results have no order " in (
        str(refused.value.details())
    )
    assert api.redis.zcard(keys.order("t-old")) == 0  # the reader wrote nothing
    counts = {count.kind: count.upgraded for count in migrate(api.redis)}
    assert counts["tournaments' order index"] == 1
    assert [i for p in pages(api, tournament_id="t-old", page_size=5) for i in p] == ids
    assert api.redis.zcard(keys.order("t-old")) == 12
    TournamentStore(api.redis).record_result("t-old", stored("t-old-9999", "t-old-9999"), b"")
    assert pages(api, tournament_id="t-old", page_size=20) == [[*ids, "t-old-9999"]]


def test_a_running_tournaments_pages_withhold_a_duplicate_halfs_referee_id(
    api: HostedApi,
) -> None:
    store = TournamentStore(api.redis)
    store.create("t-secret", spec(), ["seep"])
    store.record_result("t-secret", stored("t-secret-0-a", "t-secret-0"), b"")
    store.record_result("t-secret", stored("t-secret-1", "t-secret-1"), b"")
    hidden = public_ids(api, "t-secret", ["t-secret-0-a"])[0]
    ask = arena_pb2.ListResultsRequest(tournament_id="t-secret")
    half = next(r for r in api.stub.ListResults(ask).results if r.match_id == hidden)
    assert (half.referee_match_id, half.HasField("seed")) == ("", False)
    store.finish("t-secret")
    assert store.state("t-secret") == FINISHED
    half = api.stub.ListResults(ask).results[0]
    assert (half.match_id, half.public_id) == ("t-secret-0-a", hidden)
    assert half.referee_match_id == "t-secret-0-a-0a1b2c3d" and half.seed == 77


def test_a_running_tournament_pages_in_the_order_of_its_public_ids(api: HostedApi) -> None:
    ids = tournament_of(api, "t-live", 12, ended=False)
    hidden = sorted(public_ids(api, "t-live", ids))
    assert hidden != public_ids(api, "t-live", ids)  # an order that is not the schedule's
    by_five = pages(api, tournament_id="t-live", page_size=5)
    assert [len(p) for p in by_five] == [5, 5, 2]
    assert [i for p in by_five for i in p] == hidden
    latest = pages(api, tournament_id="t-live", page_size=5, order_by="match_id desc")
    assert [i for p in latest for i in p] == hidden[::-1]
    after = pages(api, tournament_id="t-live", page_size=4, after_match_id=hidden[3])
    assert [i for p in after for i in p] == hidden[4:]
    # A token that counts in public ids is no position once the tournament has ended.
    ask = arena_pb2.ListResultsRequest(tournament_id="t-live", page_size=5)
    ask.page_token = api.stub.ListResults(ask).next_page_token
    token_text = base64.urlsafe_b64decode(ask.page_token + "==").decode()
    assert "t-live-" not in token_text  # nor does it name a schedule id
    TournamentStore(api.redis).finish("t-live")
    code, details = refusal(api.stub.ListResults, ask)
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "start again" in details
    assert [i for p in pages(api, tournament_id="t-live", page_size=5) for i in p] == ids


def test_bad_paging_is_invalid_argument_saying_what_is_allowed(api: HostedApi) -> None:
    tournament_of(api, "t-bad", 3)
    tournament_of(api, "t-other", 3)
    token = api.stub.ListResults(
        arena_pb2.ListResultsRequest(tournament_id="t-bad", page_size=1)
    ).next_page_token
    assert token
    for asked, message in (
        (
            {"page_size": MAX_PAGE_SIZE + 1},
            "page_size must be 0 (every result) or 1 to 1000, got 1001",
        ),
        ({"page_size": -1}, "page_size must be 0 (every result) or 1 to 1000, got -1"),
        ({"page_token": "nonsense!"}, "page_token 'nonsense!' is not a next_page_token of"),
        ({"page_token": "e30"}, "page_token 'e30' is not a next_page_token"),  # "{}"
        ({"page_token": token, "order_by": "match_id desc"}, "page_token was given for another"),
        ({"page_token": token, "after_match_id": "t-bad-0000"}, "page_token was given for"),
        ({"order_by": "deal"}, "order_by must be 'match_id' or 'match_id desc' (or empty), got"),
    ):
        code, details = refusal(
            api.stub.ListResults, arena_pb2.ListResultsRequest(tournament_id="t-bad", **asked)
        )
        assert (code, details[: len(message)]) == (grpc.StatusCode.INVALID_ARGUMENT, message)
    elsewhere = arena_pb2.ListResultsRequest(tournament_id="t-other", page_token=token)
    code, details = refusal(api.stub.ListResults, elsewhere)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "another listing" in details
    code, _ = refusal(api.stub.ListResults, arena_pb2.ListResultsRequest(tournament_id="t-none"))
    assert code == grpc.StatusCode.NOT_FOUND


def test_the_stores_page_reads_are_in_match_id_order(api: HostedApi) -> None:
    ids = tournament_of(api, "t-store", 9)
    store = TournamentStore(api.redis)
    assert [r.match_id for r in store.results_page("t-store", "", 4)] == ids[:4]
    assert [r.match_id for r in store.results_page("t-store", ids[3], 4)] == ids[4:8]
    assert [r.match_id for r in store.results_page("t-store", "", 3, True)] == ids[:5:-1]
    assert store.results_page("t-store", ids[0], 3, True) == []
