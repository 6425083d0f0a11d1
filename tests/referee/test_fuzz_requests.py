"""Hostile PlayMatch requests: wrong types of values, huge and negative numbers, unknown
names, oversized strings and lists. Every one is refused with a clear status, and the
referee goes on serving."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf import duration_pb2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.games import game_names
from arena.grpc_server import MAX_DETAILS_CHARS
from arena.referee.match import MatchSpec
from arena.referee.requests import InvalidRequest, match_spec
from arena.v1 import referee_pb2, referee_pb2_grpc

INT32 = st.integers(-(2**31), 2**31 - 1)
INT64 = st.integers(-(2**63), 2**63 - 1)
texts = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["", "-", "x" * 300, "bid-euchre\n", "127.0.0.1:50051\n", "[::1]:0"]),
)
addresses = st.one_of(
    texts,
    st.builds(
        lambda host, port: f"{host}:{port}",
        st.sampled_from(["127.0.0.1", "localhost", "[::1]", "bad host", "[zz]", "a" * 300]),
        st.one_of(st.integers(-5, 70_000), st.sampled_from(["", "x", "\uff11\uff12", "+80"])),
    ),
)
durations = st.builds(duration_pb2.Duration, seconds=INT64, nanos=INT32)
requests = st.builds(
    referee_pb2.PlayMatchRequest,
    game=st.one_of(st.sampled_from(game_names()), texts),
    bots=st.lists(addresses, max_size=7),
    seed=st.integers(0, 2**64 - 1),
    options=st.dictionaries(texts, texts, max_size=3),
    move_deadline=st.one_of(st.none(), durations),
    fault_policy=st.builds(referee_pb2.FaultPolicy, max_faults=INT32),
    match_id=texts,
)


@settings(max_examples=2000, deadline=None)
@given(request=requests)
def test_validation_accepts_a_playable_match_or_says_what_is_wrong(
    request: referee_pb2.PlayMatchRequest,
) -> None:
    try:
        spec = match_spec(request)
    except InvalidRequest as error:
        assert str(error).strip()
        return
    assert isinstance(spec, MatchSpec)
    assert len(spec.seat_bots) == spec.game.info.num_seats
    assert 0 < spec.move_deadline_s <= 60
    assert 1 <= spec.policy.max_faults <= 1000
    assert spec.match_id.isascii() and "\n" not in spec.match_id


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(request=requests)
def test_the_referee_refuses_bad_requests_with_invalid_argument(
    referee_stub: referee_pb2_grpc.RefereeStub, request: referee_pb2.PlayMatchRequest
) -> None:
    try:
        match_spec(request)
    except InvalidRequest as error:
        expected = str(error)
    else:
        return  # playable: other tests play matches
    with pytest.raises(grpc.RpcError) as caught:
        referee_stub.PlayMatch(request, timeout=10)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    details = caught.value.details() or ""
    assert 0 < len(details) <= MAX_DETAILS_CHARS
    assert details == expected or details.endswith("[truncated]")


@pytest.mark.parametrize(
    ("request_", "code"),
    [
        (referee_pb2.PlayMatchRequest(game="g" * 900_000), grpc.StatusCode.INVALID_ARGUMENT),
        (
            referee_pb2.PlayMatchRequest(game="seep", bots=["127.0.0.1:1"] * 60_000),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
        (referee_pb2.PlayMatchRequest(game="x" * 5_000_000), grpc.StatusCode.RESOURCE_EXHAUSTED),
    ],
    ids=["900 kB game name", "60,000 bots", "5 MB request over the 1 MiB limit"],
)
def test_oversized_requests_are_refused_and_the_referee_keeps_serving(
    referee_stub: referee_pb2_grpc.RefereeStub,
    request_: referee_pb2.PlayMatchRequest,
    code: grpc.StatusCode,
) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        referee_stub.PlayMatch(request_, timeout=30)
    assert caught.value.code() == code
    assert len(caught.value.details() or "") <= MAX_DETAILS_CHARS
    games = referee_stub.ListGames(referee_pb2.ListGamesRequest(), timeout=10)
    assert sorted(g.name for g in games.games) == sorted(game_names())
