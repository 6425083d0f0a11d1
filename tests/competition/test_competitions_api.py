"""CreateCompetition, GetCompetition, ListCompetitions, CancelCompetition on a real API:
every bad input refused with what is allowed, and nothing stored."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from google.protobuf import duration_pb2

from arena.store import keys
from arena.v1 import arena_pb2
from tests.competition.helpers import Api, refused, spec, stamp

INVALID = grpc.StatusCode.INVALID_ARGUMENT


def _timeline(opens: float, closes: float, ends: float) -> arena_pb2.CompetitionTimeline:
    now = time.time()
    return arena_pb2.CompetitionTimeline(
        opens_at=stamp(now + opens),
        submissions_close_at=stamp(now + closes),
        final_ends_at=stamp(now + ends),
    )


def _with(**fields: Any) -> Callable[[str], arena_pb2.CompetitionSpec]:
    def build(name: str) -> arena_pb2.CompetitionSpec:
        made = spec(name)
        for key, value in fields.items():
            if key == "timeline":
                made.timeline.CopyFrom(value)
            elif key == "rules":
                made.rules.CopyFrom(value)
            elif key == "games":
                del made.games[:]
                made.games.extend(value)
            else:
                setattr(made, key, value)
        return made

    return build


BAD: dict[str, tuple[Callable[[str], arena_pb2.CompetitionSpec], str]] = {
    "bad-name": (lambda name: spec("no spaces allowed"), "use 1 to 40 letters"),
    "long-description": (_with(description="x" * 20_001), "at most 20,000"),
    "unknown-game": (_with(games=[arena_pb2.CompetitionGame(game="euchre")]), "available games"),
    "unknown-option": (
        _with(games=[arena_pb2.CompetitionGame(game="seep", options={"nope": "1"})]),
        "allowed options",
    ),
    "twice": (
        _with(
            games=[arena_pb2.CompetitionGame(game="seep"), arena_pb2.CompetitionGame(game="Seep")]
        ),
        "listed once",
    ),
    "no-timeline": (lambda name: arena_pb2.CompetitionSpec(name=name), "missing: opens_at"),
    "backwards": (_with(timeline=_timeline(100, 50, 200)), "strictly increasing"),
    "equal": (_with(timeline=_timeline(100, 200, 200)), "final_ends_at"),
    "past": (_with(timeline=_timeline(-3600, 100, 200)), "in the past"),
    "fair-play": (_with(rules=arena_pb2.CompetitionRules(fair_play=9)), "FAIR_PLAY_SEALED"),  # type: ignore[arg-type]
    "partners": (_with(rules=arena_pb2.CompetitionRules(partners=7)), "PARTNERS_ISOLATED"),  # type: ignore[arg-type]
    "daily": (
        _with(rules=arena_pb2.CompetitionRules(daily_submissions=-1)),
        "daily_submissions must be 1 to 1,000",
    ),
    "active": (
        _with(rules=arena_pb2.CompetitionRules(active_versions=21)),
        "active_versions must be 1 to 20",
    ),
    "final-deals": (
        _with(rules=arena_pb2.CompetitionRules(final_deals=1001)),
        "final_deals must be 1 to 1,000",
    ),
    "final-los": (
        _with(rules=arena_pb2.CompetitionRules(final_los=1.0)),
        "final_los must be above 0.5 and below 1",
    ),
    "deadline": (
        _with(rules=arena_pb2.CompetitionRules(move_deadline=duration_pb2.Duration(seconds=61))),
        "move_deadline must be",
    ),
    "faults": (_with(rules=arena_pb2.CompetitionRules(max_faults=1001)), "max_faults must be"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_spec_is_refused_saying_what_is_allowed_and_nothing_is_stored(
    api: Api, case: str
) -> None:
    build, words = BAD[case]
    name = f"bad-{case}"
    request = build(name)
    refused(lambda: api.create(request), INVALID, words)
    assert not api.redis.exists(keys.competition(request.name))
    assert request.name.encode() not in api.redis.zrange(keys.competitions(), 0, -1)


def test_create_read_and_list(api: Api) -> None:
    request = spec(
        "spring",
        description="# Spring\n\nPlay *well*.",
        games=[arena_pb2.CompetitionGame(game="Bid Euchre", options={})],
        rules=arena_pb2.CompetitionRules(fair_play=arena_pb2.FAIR_PLAY_SEALED, final_deals=20),
    )
    made = api.create(request)
    assert made.phase == arena_pb2.COMPETITION_PHASE_SCHEDULED
    assert made.spec.description == "# Spring\n\nPlay *well*."
    assert [g.game for g in made.spec.games] == ["bid-euchre"]
    rules = made.spec.rules
    assert rules.partners == arena_pb2.PARTNERS_ISOLATED  # sealed's default, as tournaments
    assert (rules.daily_submissions, rules.active_versions, rules.final_deals) == (5, 1, 20)
    assert rules.final_los == 0.95
    assert made.spec.timeline == request.timeline
    got = api.stub.GetCompetition(arena_pb2.GetCompetitionRequest(name="spring"))
    assert got == made  # a read needs no token
    names = [
        c.spec.name
        for c in api.stub.ListCompetitions(arena_pb2.ListCompetitionsRequest()).competitions
    ]
    assert "spring" in names
    every_game = api.create(spec("every-game"))
    assert len(every_game.spec.games) == 5
    newest = api.stub.ListCompetitions(arena_pb2.ListCompetitionsRequest()).competitions[0]
    assert newest.spec.name == "every-game"


def test_a_name_is_unique(api: Api) -> None:
    api.create(spec("unique", description="first"))
    refused(
        lambda: api.create(spec("unique", description="second")),
        grpc.StatusCode.ALREADY_EXISTS,
        "choose another",
    )
    got = api.stub.GetCompetition(arena_pb2.GetCompetitionRequest(name="unique"))
    assert got.spec.description == "first"


def test_writes_are_the_operators(api: Api) -> None:
    create = arena_pb2.CreateCompetitionRequest(spec=spec("anyone"))
    refused(
        lambda: api.stub.CreateCompetition(create),
        grpc.StatusCode.UNAUTHENTICATED,
        "operator's token",
    )
    refused(
        lambda: api.stub.CreateCompetition(create, metadata=(("authorization", "Bearer wrong"),)),
        grpc.StatusCode.PERMISSION_DENIED,
    )
    assert not api.redis.exists(keys.competition("anyone"))
    api.create(spec("guarded"))
    for call in (
        lambda: api.stub.CancelCompetition(arena_pb2.CancelCompetitionRequest(name="guarded")),
        lambda: api.stub.CreateInvites(arena_pb2.CreateInvitesRequest(competition="guarded")),
    ):
        refused(call, grpc.StatusCode.UNAUTHENTICATED)
    refused(
        lambda: api.stub.GetCompetition(arena_pb2.GetCompetitionRequest(name="nope")),
        grpc.StatusCode.NOT_FOUND,
    )


def test_cancel_once_and_never_after(api: Api) -> None:
    api.create(spec("to-cancel"))
    cancel = arena_pb2.CancelCompetitionRequest(name="to-cancel")
    done = api.stub.CancelCompetition(cancel, metadata=api.operator())
    assert done.phase == arena_pb2.COMPETITION_PHASE_CANCELLED
    assert [t.phase for t in done.transitions] == [arena_pb2.COMPETITION_PHASE_CANCELLED]
    refused(
        lambda: api.stub.CancelCompetition(cancel, metadata=api.operator()),
        grpc.StatusCode.FAILED_PRECONDITION,
        "is cancelled",
    )
    again = api.stub.GetCompetition(arena_pb2.GetCompetitionRequest(name="to-cancel"))
    assert len(again.transitions) == 1
    refused(
        lambda: api.invites("to-cancel"),
        grpc.StatusCode.FAILED_PRECONDITION,
        "is cancelled",
        "scheduled or open",
    )
