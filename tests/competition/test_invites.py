"""CreateInvites and JoinCompetition on a real API: codes kept as hashes, single-use or
counted, expiring; joins refused with the reason, rate limited, and the last use of a
code won by exactly one of the joins racing for it."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc
import pytest

from arena.access import bearer
from arena.competition.invites import code_hash
from arena.local_redis import LocalRedis
from arena.store import keys
from arena.store.authors import AuthorStore
from arena.v1 import arena_pb2
from tests.competition.helpers import Api, refused, spec, stamp, start_api
from tests.support.waiting import wait_until

PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION


def test_a_code_is_single_use_by_default_and_stored_only_as_its_hash(api: Api) -> None:
    api.create(spec("single"))
    [code] = api.invites("single")
    stored = api.redis.hgetall(keys.invite(code_hash(code)))
    assert stored[b"competition"] == b"single" and stored[b"left"] == b"1"
    assert not [k for k in api.redis.keys("arena:*") if code.encode() in k]
    joined = api.join(code, "ada")
    assert joined.competition == "single" and joined.author.name == "ada"
    # The token is an author's like any other: the same store, the same checks.
    token = joined.author.token
    assert AuthorStore(api.redis).who(token) == "ada"
    refused(
        lambda: api.stub.RemoveBot(
            arena_pb2.RemoveBotRequest(name="none"), metadata=(bearer(token),)
        ),
        grpc.StatusCode.NOT_FOUND,
    )
    refused(lambda: api.join(code, "bob"), PRECONDITION, "used up", "1 author")
    assert not AuthorStore(api.redis).exists("bob")
    got = api.stub.GetCompetition(arena_pb2.GetCompetitionRequest(name="single"))
    assert list(got.competitors) == ["ada"]


def test_a_counted_code_and_its_refusals(api: Api) -> None:
    api.create(spec("counted"))
    [code] = api.invites("counted", uses=2)
    api.join(code, "c1")
    refused(lambda: api.join(code, "c1"), grpc.StatusCode.ALREADY_EXISTS, "taken")
    refused(lambda: api.join(code, "not a name"), grpc.StatusCode.INVALID_ARGUMENT, "letters")
    api.join(code, "c2")
    refused(lambda: api.join(code, "c3"), PRECONDITION, "used up", "2 authors")
    refused(lambda: api.join("invite-nothing", "c4"), grpc.StatusCode.NOT_FOUND, "unknown invite")
    got = api.stub.GetCompetition(arena_pb2.GetCompetitionRequest(name="counted"))
    assert list(got.competitors) == ["c1", "c2"]


def test_an_expired_code_and_a_cancelled_competition(api: Api) -> None:
    api.create(spec("expiring"))
    expires = time.time() + 1
    [code] = api.invites("expiring", expires_at=stamp(expires))
    wait_until(lambda: time.time() > expires, 10, "the code to expire")
    refused(lambda: api.join(code, "late"), PRECONDITION, "expired")
    refused(
        lambda: api.invites("expiring", expires_at=stamp(time.time() - 5)),
        grpc.StatusCode.INVALID_ARGUMENT,
        "must be after now",
    )
    refused(
        lambda: api.invites("expiring", count=1001), grpc.StatusCode.INVALID_ARGUMENT, "1 to 1,000"
    )
    refused(
        lambda: api.invites("expiring", uses=-1), grpc.StatusCode.INVALID_ARGUMENT, "1 to 10,000"
    )
    api.create(spec("called-off"))
    [code] = api.invites("called-off")
    api.stub.CancelCompetition(
        arena_pb2.CancelCompetitionRequest(name="called-off"), metadata=api.operator()
    )
    refused(lambda: api.join(code, "too-late"), PRECONDITION, "is cancelled")
    assert not AuthorStore(api.redis).exists("too-late") and not AuthorStore(api.redis).exists(
        "late"
    )


@pytest.mark.parametrize("uses", [1, 3])
def test_joins_racing_for_the_last_uses_exactly_that_many_win(api: Api, uses: int) -> None:
    name = f"race-{uses}"
    api.create(spec(name))
    [code] = api.invites(name, uses=uses)
    authors = [f"{name}-{i}" for i in range(12)]

    def join(author: str) -> str:
        try:
            api.join(code, author)
        except grpc.RpcError as error:
            assert error.code() == PRECONDITION and "used up" in (error.details() or ""), error
            return "refused"
        return "joined"

    with ThreadPoolExecutor(len(authors)) as pool:
        outcomes = list(pool.map(join, authors))
    assert outcomes.count("joined") == uses
    winners = [a for a, o in zip(authors, outcomes, strict=True) if o == "joined"]
    got = api.stub.GetCompetition(arena_pb2.GetCompetitionRequest(name=name))
    assert sorted(got.competitors) == sorted(winners)
    assert [a for a in authors if AuthorStore(api.redis).exists(a)] == winners
    assert api.redis.hget(keys.invite(code_hash(code)), "left") == b"0"


def test_joins_are_rate_limited_per_address(
    local_redis: LocalRedis, tmp_path: Path, api: Api
) -> None:
    limited = start_api(
        local_redis, tmp_path, "--join-burst", "2", "--joins-per-minute", "1", url=api.redis_url
    )
    try:
        for _ in range(2):  # spent before the code is looked at, known or not
            refused(lambda: limited.join("invite-guess", "guesser"), grpc.StatusCode.NOT_FOUND)
        with pytest.raises(grpc.RpcError) as raised:
            limited.join("invite-guess", "guesser")
        error: grpc.Call = raised.value  # type: ignore[assignment]
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        details = error.details() or ""
        assert "1 a minute (in bursts of 2)" in details and "retry in" in details
        retry = dict(error.trailing_metadata() or ())["retry-after"]
        assert int(retry) >= 1
    finally:
        limited.stop()


def test_an_api_without_an_operator_token_lets_no_one_join(
    local_redis: LocalRedis, tmp_path: Path, api: Api
) -> None:
    from arena.processes import arena_command, start_service

    api.create(spec("open-api"))
    [code] = api.invites("open-api")
    service = start_service(arena_command("api", "serve", "--port", "0", "--redis", api.redis_url))
    try:
        with grpc.insecure_channel(service.address) as channel:
            from arena.v1 import arena_pb2_grpc

            stub = arena_pb2_grpc.ArenaStub(channel)
            request = arena_pb2.JoinCompetitionRequest(invite=code, author="x")
            refused(lambda: stub.JoinCompetition(request), PRECONDITION, "no operator token")
    finally:
        service.stop()
