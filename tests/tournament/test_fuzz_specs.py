"""Hostile tournament specs and registry calls, against the real API and Redis: each is
refused with a clear status, and nothing already stored changes."""

from __future__ import annotations

from collections.abc import Callable

import grpc
import pytest
from google.protobuf import duration_pb2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.games import game_names
from arena.grpc_server import MAX_DETAILS_CHARS
from arena.store import keys as redis_keys
from arena.tournament.spec import InvalidSpec, TournamentPlan, plan
from arena.v1 import arena_pb2
from tests.support.arena import Arena
from tests.tournament.lineup import registry

SHARED = True  # one referee and API for the module (tests/tournament/conftest.py)

INT32 = st.integers(-(2**31), 2**31 - 1)
names = st.one_of(
    st.text(max_size=20),
    st.sampled_from(["a", "b", "ghost", "a\n", "x" * 500, "seep", "seep "]),
)
specs = st.builds(
    arena_pb2.TournamentSpec,
    entries=st.lists(names, max_size=6),
    games=st.lists(st.one_of(st.sampled_from(game_names()), names), max_size=6),
    deals=INT32,
    move_deadline=st.one_of(
        st.none(),
        st.builds(duration_pb2.Duration, seconds=st.integers(-(2**63), 2**63 - 1), nanos=INT32),
    ),
    max_faults=INT32,
    master_seed=st.one_of(st.none(), st.integers(0, 2**64 - 1)),
    fair_play=st.integers(0, 6),
    name=st.one_of(st.text(max_size=10), st.just("n" * 5000)),
    time_bank=st.one_of(
        st.none(),
        st.builds(duration_pb2.Duration, seconds=st.integers(-10, 10_000), nanos=INT32),
    ),
)
REFUSALS = {grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.RESOURCE_EXHAUSTED}


@settings(max_examples=2000, deadline=None)
@given(spec=specs)
def test_spec_validation_plans_or_says_what_is_wrong(spec: arena_pb2.TournamentSpec) -> None:
    try:
        planned = plan(spec, *registry("abc"))
    except InvalidSpec as error:
        assert str(error).strip()
        return
    assert isinstance(planned, TournamentPlan)
    assert set(planned.entries) <= {"a", "b", "c"} and len(planned.entries) >= 2
    assert 1 <= planned.deals <= 1000 and 0 < planned.move_deadline_ms <= 60_000
    assert 0 <= planned.time_bank_ms <= 3_600_000
    assert len(set(planned.games)) == len(planned.games)
    assert planned.fair_play in ("open", "trusted")  # sealed needs hosted entries
    assert planned.seed.operator == spec.HasField("master_seed")


def snapshot(arena: Arena) -> dict[bytes | str, object]:
    """Every arena key's contents (not its encoding, which Redis may change at will), but
    what the workers keep of themselves as they run: their liveness (``workers.capacity``)
    and the watchdog's lock, taken and let go every round (a key listed, then gone)."""
    r = arena.redis
    read: dict[bytes | str, Callable[[bytes | str], object]] = {
        b"hash": r.hgetall,
        b"string": r.get,
        b"set": r.smembers,
        b"zset": lambda key: r.zrange(key, 0, -1, withscores=True),
        b"list": lambda key: r.lrange(key, 0, -1),
    }
    theirs = {redis_keys.workers().encode(), redis_keys.watchdog().encode()}
    keys = [k for k in r.keys(redis_keys.pattern()) if k not in theirs]
    return {key: read[r.type(key)](key) for key in keys}


@pytest.fixture
def stocked(arena: Arena) -> Arena:
    """An arena with two bots and one finished tournament: something to corrupt."""
    arena.start_worker("w")
    arena.start_bot("a", "random", "--seed", "1")
    arena.start_bot("b", "random", "--seed", "2")
    arena.wait_until(arena.submit(["a", "b"], games=["bid-euchre"]).id)
    return arena


def test_hostile_calls_are_refused_and_change_nothing(stocked: Arena) -> None:
    before = snapshot(stocked)
    stub = stocked.stub
    refused = 0

    @settings(
        max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )
    @given(spec=specs)
    def submit(spec: arena_pb2.TournamentSpec) -> None:
        nonlocal refused
        try:
            plan(spec, *registry("ab"))
        except InvalidSpec:
            pass
        else:
            return  # a valid spec would rightly be stored
        with pytest.raises(grpc.RpcError) as caught:
            stub.SubmitTournament(arena_pb2.SubmitTournamentRequest(spec=spec), timeout=10)
        assert caught.value.code() in REFUSALS, caught.value
        assert 0 < len(caught.value.details() or "") <= MAX_DETAILS_CHARS
        refused += 1

    submit()
    assert refused > 50

    bad_calls: list[Callable[[], object]] = [
        lambda: stub.RegisterBot(arena_pb2.RegisterBotRequest(name="a\n", address="127.0.0.1:1")),
        lambda: stub.RegisterBot(arena_pb2.RegisterBotRequest(name="n" * 100_000, address="x")),
        lambda: stub.RegisterBot(arena_pb2.RegisterBotRequest(name="ok", address="no port")),
        lambda: stub.RemoveBot(arena_pb2.RemoveBotRequest(name="x" * 3_000_000)),
        lambda: stub.GetTournament(arena_pb2.GetTournamentRequest(id="../../etc/passwd")),
        lambda: stub.ResumeTournament(arena_pb2.ResumeTournamentRequest(id="\x00" * 10)),
        lambda: stub.CancelTournament(arena_pb2.CancelTournamentRequest(id="t" * 1_000_000)),
        lambda: stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="g" * 2_000_000)),
        lambda: stub.ListResults(arena_pb2.ListResultsRequest(tournament_id="*")),
    ]
    for call in bad_calls:
        with pytest.raises(grpc.RpcError) as caught:
            call()
        code = caught.value.code()
        assert code in {*REFUSALS, grpc.StatusCode.NOT_FOUND}, (code, caught.value.details())
        assert 0 < len(caught.value.details() or "") <= MAX_DETAILS_CHARS

    assert snapshot(stocked) == before
