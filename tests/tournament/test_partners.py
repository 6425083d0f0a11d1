"""The partners setting: isolated seats only hosted entries in partnership games and is
the default for sealed play; shared says, on every read, which entries' partners share a
process. Bad values are refused saying what is allowed."""

from __future__ import annotations

import pytest
from google.protobuf import duration_pb2

from arena.store.bots import RegisteredBot
from arena.tournament.fair_play import PARTNERS_CAVEAT, partnership_games
from arena.tournament.spec import InvalidSpec, TournamentPlan, ladder_lineup, plan
from arena.v1 import arena_pb2
from tests.tournament.lineup import registry

BOTS = registry(["remote", "other", "hosted", "boxed"], hosted={"hosted", "boxed"})
SHARED, ISOLATED = arena_pb2.PARTNERS_SHARED, arena_pb2.PARTNERS_ISOLATED


def planned(*entries: str, **fields: object) -> TournamentPlan:
    spec = arena_pb2.TournamentSpec(entries=list(entries), deals=1, **fields)  # type: ignore[arg-type]
    return plan(spec, *BOTS)


def test_partnership_games_are_the_ones_where_a_team_holds_two_seats() -> None:
    assert partnership_games(["seep", "bridgette", "bid-euchre", "baloot", "persian-rummy"]) == [
        "seep", "bid-euchre", "baloot", "persian-rummy",
    ]  # fmt: skip


def test_by_default_partners_are_shared_and_the_remote_entries_are_named() -> None:
    tournament = planned("remote", "other", "hosted")
    assert tournament.partners == "shared"
    assert tournament.shared_partners() == ["remote", "other"]
    assert tournament.caveats() == [f"{PARTNERS_CAVEAT} (remote, other)"]


def test_no_caveat_where_no_remote_entry_plays_a_partnership_game() -> None:
    assert planned("hosted", "boxed").caveats() == []
    two_seats = planned("remote", "other", games=["bridgette"])
    assert two_seats.shared_partners() == [] and two_seats.caveats() == []


def test_sealed_play_isolates_partners_by_default() -> None:
    sealed = planned("hosted", "boxed", fair_play=arena_pb2.FAIR_PLAY_SEALED)
    assert sealed.partners == "isolated"
    assert planned("hosted", "boxed", partners=ISOLATED).partners == "isolated"


def test_isolated_partners_refuse_a_remote_entry_in_a_partnership_game_naming_it() -> None:
    with pytest.raises(InvalidSpec) as refused:
        planned("remote", "hosted", partners=ISOLATED)
    message = str(refused.value)
    assert "PARTNERS_ISOLATED" in message and "remote: remote." in message
    assert "Use PARTNERS_SHARED" in message
    # A remote entry may play a game without partners.
    assert planned("remote", "hosted", partners=ISOLATED, games=["bridgette"]).caveats() == []


def test_an_unknown_partners_value_is_refused_saying_what_is_allowed() -> None:
    with pytest.raises(InvalidSpec, match="unknown partners 7; allowed: PARTNERS_SHARED"):
        planned("hosted", "boxed", partners=7)


def test_an_isolated_ladder_leaves_out_remote_bots_that_would_play_with_partners() -> None:
    spec = arena_pb2.TournamentSpec(
        format=arena_pb2.FORMAT_LADDER, games=["bid-euchre", "bridgette"], partners=ISOLATED
    )
    ladder = plan(spec, *BOTS)
    duel = RegisteredBot("duel", "127.0.0.1:6000", ("bridgette",), "duel", "1", 0.0)
    registered = [*BOTS[0].values(), duel]
    joined = [e.label for e in ladder_lineup(ladder, registered, BOTS[1])]
    assert joined == ["boxed@v1", "duel", "hosted@v1"]


def test_the_broadcast_delay_is_kept_and_bounded() -> None:
    delay = duration_pb2.Duration(seconds=90)
    tournament = planned("hosted", "boxed", broadcast_delay=delay)
    assert tournament.broadcast_delay_ms == 90_000
    assert TournamentPlan.from_json(tournament.to_json("t0")).broadcast_delay_ms == 90_000
    with pytest.raises(InvalidSpec, match=r"broadcast_delay must be 0 to 3600 s \(an hour\)"):
        planned("hosted", "boxed", broadcast_delay=duration_pb2.Duration(seconds=3601))
