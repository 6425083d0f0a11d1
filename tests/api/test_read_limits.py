"""The API's costly reads have a budget per anonymous address (``arena.api.reads``): a
greedy address gets its burst, then RESOURCE_EXHAUSTED naming the limit with a
``retry-after`` trailer, while another address is still served; callers with the read
token, the operator's or an author's are not counted, and the read token opens nothing
else; cheap reads are never counted; the rate and burst are flags, and the web site sends
the read token on every call. A real API over gRPC on a dual-stack loopback port: the
greedy client comes from 127.0.0.1, the other from ::1. The budget's clock stands still
(no read is refilled during a test), so nothing here depends on how fast it runs."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

import grpc
import pytest
import redis
from starlette.testclient import TestClient

from arena.access import bearer
from arena.api.service import start_server
from arena.local_redis import LocalRedis
from arena.processes import Service, arena_command, start_service
from arena.store import BotRegistry, RegisteredBot, TournamentStore
from arena.store.authors import AuthorStore
from arena.throttle import Throttle
from arena.v1 import arena_pb2, arena_pb2_grpc
from arena.web.app import create_app
from tests.records import spec
from tests.support.database import next_database
from tests.support.grpc_metadata import trailers
from tests.support.stored_result import stored

if TYPE_CHECKING:
    from arena.v1.arena_pb2_grpc import ArenaAsyncStub

RATE = 0.25
"""Reads a second: after the burst, the next is due in 4 s (``retry-after: 4``)."""
BURST = 3
OPERATOR = "operator-token-for-read-limits"
READER = "read-token-for-the-site"
DONE, LIVE = "t-reads-done", "t-reads-live"
EXHAUSTED = grpc.StatusCode.RESOURCE_EXHAUSTED
OK = grpc.StatusCode.OK
Metadata = tuple[tuple[str, str], ...]
Call: TypeAlias = "Callable[[ArenaAsyncStub, Metadata], Awaitable[object]]"

COSTLY: dict[str, tuple[Call, grpc.StatusCode]] = {
    # Each call's name as its refusal gives it, the call, and its answer within budget.
    "GetLeaderboard with openskill": (
        lambda api, m: api.GetLeaderboard(
            arena_pb2.GetLeaderboardRequest(tournament_id=DONE, openskill=True), metadata=m
        ),
        OK,
    ),
    "CompareBots": (
        lambda api, m: api.CompareBots(
            arena_pb2.CompareBotsRequest(tournament_id=DONE, a="a", b="nobody"), metadata=m
        ),
        grpc.StatusCode.INVALID_ARGUMENT,  # no rating for nobody: after the budget's check
    ),
    "ListResults without a page_size (every result)": (
        lambda api, m: api.ListResults(
            arena_pb2.ListResultsRequest(tournament_id=DONE), metadata=m
        ),
        OK,
    ),
    "ListResults of a running tournament (each page reads every result)": (
        lambda api, m: api.ListResults(
            arena_pb2.ListResultsRequest(tournament_id=LIVE, page_size=1), metadata=m
        ),
        OK,
    ),
    "GetMatchReplay": (
        lambda api, m: api.GetMatchReplay(
            arena_pb2.GetMatchReplayRequest(tournament_id=DONE, match_id=f"{DONE}-0"),
            metadata=m,
        ),
        grpc.StatusCode.NOT_FOUND,  # stored without its record: after the budget's check
    ),
}
CHEAP: dict[str, Call] = {
    "ListBots": lambda api, m: api.ListBots(arena_pb2.ListBotsRequest(), metadata=m),
    "GetTournament": lambda api, m: api.GetTournament(
        arena_pb2.GetTournamentRequest(id=DONE), metadata=m
    ),
    "ListTournaments": lambda api, m: api.ListTournaments(
        arena_pb2.ListTournamentsRequest(), metadata=m
    ),
    "GetLeaderboard": lambda api, m: api.GetLeaderboard(
        arena_pb2.GetLeaderboardRequest(tournament_id=DONE, los=True), metadata=m
    ),
    "ListResults, a page of an ended tournament": lambda api, m: api.ListResults(
        arena_pb2.ListResultsRequest(tournament_id=DONE, page_size=1), metadata=m
    ),
    "ListLiveMatches": lambda api, m: api.ListLiveMatches(
        arena_pb2.ListLiveMatchesRequest(), metadata=m
    ),
}


def store(local_redis: LocalRedis) -> str:
    """A Redis database of its own with an ended and a running tournament, two results
    each (stored without their records), and a remote bot; its URL."""
    url = local_redis.url(next_database())
    tournaments = TournamentStore(redis.Redis.from_url(url))
    for tid in (DONE, LIVE):
        tournaments.create(tid, spec(), ["seep"])
        for n in range(2):
            assert tournaments.record_result(tid, stored(f"{tid}-{n}", f"{tid}-{n}"), b"")
    tournaments.finish(DONE)
    BotRegistry(redis.Redis.from_url(url)).put_remote(
        RegisteredBot("far", "10.0.0.9:50061", ("seep",), "far", "1", 0.0)
    )
    return url


@contextlib.asynccontextmanager
async def arena_api(url: str, token: str | None = OPERATOR) -> AsyncIterator[int]:
    """The API on [::] with a budget of ``BURST`` costly reads per address, never
    refilled; its port."""
    server, port = await start_server(
        redis_url=url,
        host="[::]",
        port=0,
        token=token,
        read_token=READER,
        reads=Throttle(rate_per_s=RATE, burst=BURST, clock=lambda: 0.0),
    )
    try:
        yield port
    finally:
        await server.stop(grace=None)


@contextlib.asynccontextmanager
async def client(address: str) -> AsyncIterator[ArenaAsyncStub]:
    async with grpc.aio.insecure_channel(address) as channel:
        yield arena_pb2_grpc.ArenaStub(channel)


async def code(answer: Awaitable[object]) -> grpc.StatusCode:
    try:
        await answer
    except grpc.aio.AioRpcError as error:
        return error.code()
    return OK


def as_(token: str) -> Metadata:
    return (bearer(token),) if token else ()


async def spend_all(api: ArenaAsyncStub, metadata: Metadata = ()) -> None:
    """Spend an address's whole budget, and see it refused past it."""
    call, served = COSTLY["ListResults without a page_size (every result)"]
    assert [await code(call(api, metadata)) for _ in range(BURST)] == [served] * BURST
    assert await code(call(api, metadata)) == EXHAUSTED


@pytest.mark.parametrize("what", list(COSTLY))
def test_a_greedy_address_runs_out_of_costly_reads_and_another_is_still_served(
    local_redis: LocalRedis, what: str
) -> None:
    call, served = COSTLY[what]

    async def scenario() -> None:
        async with (
            arena_api(store(local_redis)) as port,
            client(f"127.0.0.1:{port}") as greedy,
            client(f"[::1]:{port}") as other,
        ):
            assert [await code(call(greedy, ())) for _ in range(BURST)] == [served] * BURST
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await call(greedy, ())
            error = refused.value
            assert error.code() == EXHAUSTED
            assert (
                f"{what} is a costly read, limited to 0.25 a second (in bursts of 3) for "
                "each address calling without a token; retry in 4 s"
            ) in (error.details() or "")
            assert trailers(error)["retry-after"] == "4"
            assert await code(call(other, ())) == served

    asyncio.run(scenario())


def test_the_read_token_the_operators_and_an_authors_are_not_counted(
    local_redis: LocalRedis,
) -> None:
    url = store(local_redis)
    author = AuthorStore(redis.Redis.from_url(url)).add("ada")

    async def scenario() -> None:
        async with arena_api(url) as port, client(f"127.0.0.1:{port}") as api:
            for token in (READER, OPERATOR, author):
                for call, served in COSTLY.values():
                    answers = [await code(call(api, as_(token))) for _ in range(2 * BURST)]
                    assert answers == [served] * (2 * BURST), token
            # None of that was spent from the address's own budget; a token the API does
            # not know is no token.
            await spend_all(api, as_("no-such-token"))
            assert await code(COSTLY["GetMatchReplay"][0](api, as_(READER))) != EXHAUSTED

    asyncio.run(scenario())


def test_the_read_token_opens_nothing_else(local_redis: LocalRedis) -> None:
    async def scenario() -> None:
        async with arena_api(store(local_redis)) as port, client(f"127.0.0.1:{port}") as api:
            reader = as_(READER)
            refusals: list[Awaitable[object]] = [
                api.RegisterBot(
                    arena_pb2.RegisterBotRequest(name="x", address="127.0.0.1:1"),
                    metadata=reader,
                ),
                api.AddAuthor(arena_pb2.AddAuthorRequest(name="eve"), metadata=reader),
                api.CancelTournament(arena_pb2.CancelTournamentRequest(id=LIVE), metadata=reader),
                api.GetCollusionReport(
                    arena_pb2.GetCollusionReportRequest(tournament_id=DONE), metadata=reader
                ),
                api.RemoveBot(arena_pb2.RemoveBotRequest(name="far"), metadata=reader),
            ]
            assert [await code(r) for r in refusals] == [grpc.StatusCode.PERMISSION_DENIED] * 5
            listed = await api.ListBots(arena_pb2.ListBotsRequest(), metadata=reader)
            assert [(b.name, b.address) for b in listed.bots] == [("far", "")]

    asyncio.run(scenario())


def test_cheap_reads_are_never_counted(local_redis: LocalRedis) -> None:
    async def scenario() -> None:
        async with arena_api(store(local_redis)) as port, client(f"127.0.0.1:{port}") as api:
            await spend_all(api)
            for name, call in CHEAP.items():
                answers = [await code(call(api, ())) for _ in range(2 * BURST)]
                assert answers == [OK] * (2 * BURST), name

    asyncio.run(scenario())


def test_without_an_operator_token_anonymous_costly_reads_are_still_counted(
    local_redis: LocalRedis,
) -> None:
    """Everyone may write to an API without an operator token, but a token nobody was
    given is held by nobody: the budget still holds, and the read token still lifts it."""

    async def scenario() -> None:
        async with (
            arena_api(store(local_redis), token=None) as port,
            client(f"127.0.0.1:{port}") as api,
        ):
            await spend_all(api)
            call, served = COSTLY["GetMatchReplay"]
            assert await code(call(api, as_(READER))) == served
            # The collusion report, the operator's with a token set, is anyone's here.
            report = arena_pb2.GetCollusionReportRequest(tournament_id=DONE)
            assert await code(api.GetCollusionReport(report, metadata=as_(READER))) == OK
            assert await code(api.GetCollusionReport(report)) == EXHAUSTED

    asyncio.run(scenario())


@pytest.fixture
def throttled_api(local_redis: LocalRedis, tmp_path: Path) -> Iterator[Service]:
    """``arena api serve`` with a budget of 2 costly reads, refilled one per 1000 s, and
    the read token from ``$ARENA_READ_TOKEN``."""
    (tmp_path / "token").write_text(OPERATOR + "\n")
    service = start_service(
        arena_command(
            "api", "serve", "--port", "0", "--redis", store(local_redis),
            "--token-file", str(tmp_path / "token"),
            "--reads-per-s", "0.001", "--read-burst", "2",
        ),
        env={"ARENA_API_TOKEN": "", "ARENA_READ_TOKEN": READER, "ARENA_REFEREES": ""},
    )  # fmt: skip
    yield service
    service.stop()


def test_the_rate_and_burst_are_flags_and_the_site_sends_its_read_token(
    throttled_api: Service, tmp_path: Path
) -> None:
    every = arena_pb2.ListResultsRequest(tournament_id=DONE)
    with grpc.insecure_channel(throttled_api.address) as channel:
        api = arena_pb2_grpc.ArenaStub(channel)
        assert len(api.ListResults(every).results) == 2
        assert len(api.ListResults(every).results) == 2
        with pytest.raises(grpc.RpcError) as refused:
            api.ListResults(every)
    assert refused.value.code() == EXHAUSTED
    assert "limited to 0.001 a second (in bursts of 2)" in (refused.value.details() or "")
    assert int(trailers(refused.value)["retry-after"]) >= 1
    # This address's budget is spent. A replay page reads every result of its tournament
    # (here, to find no such match: a 404) through a site with the read token...
    (tmp_path / "read-token").write_text(READER + "\n")
    site = start_service(
        arena_command(
            "leaderboard", "serve", "--port", "0", "--api", throttled_api.address,
            "--read-token-file", str(tmp_path / "read-token"),
        ),
        env={"ARENA_READ_TOKEN": ""},
    )  # fmt: skip
    try:
        assert [status(f"{site.address}/replays/{DONE}/nope") for _ in range(5)] == [404] * 5
    finally:
        site.stop()
    # ...while a site without it shares the address's budget, and says when to come back.
    with TestClient(create_app(throttled_api.address)) as web:
        answer = web.get(f"/replays/{DONE}/nope")
    assert answer.status_code == 503 and int(answer.headers["retry-after"]) >= 1
    assert "costly read" in answer.text


def test_the_read_token_may_not_be_the_operators(tmp_path: Path) -> None:
    (tmp_path / "token").write_text(OPERATOR)
    done = subprocess.run(
        arena_command(
            "api", "serve", "--port", "0", "--redis", "redis://127.0.0.1:1/0",
            "--token-file", str(tmp_path / "token"), "--read-token-file", str(tmp_path / "token"),
        ),
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert "the read token is the operator's" in done.stderr


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return error.code
