"""A competition's game options are played, without processes: its open ladder's plan and
its final's carry them, every match of that game has them and no other game's match
does, and ``arena competition verify`` refuses a final that plays other options."""

from __future__ import annotations

import time

import pytest

from arena.cli.competition_verify import FinalMismatch, verify_final
from arena.competition.final import final_plan
from arena.competition.ladder import ladder_plan
from arena.competition.spec import CompetitionSpec, check
from arena.tournament import formats
from arena.tournament.schedule import ScheduledMatch
from arena.tournament.spec import Entry, HostedPackage, TournamentPlan
from arena.tournament.verify import TournamentMismatch
from arena.v1 import arena_pb2
from tests.competition.helpers import spec
from tests.tournament.formats.drive import drive, random_results

SEEP = {"bazzis": "2"}
GAMES = ("seep", "bridgette")


def _competition() -> CompetitionSpec:
    return check(
        spec(
            "options",
            games=[
                arena_pb2.CompetitionGame(game="Seep", options=SEEP),
                arena_pb2.CompetitionGame(game="bridgette"),
            ],
        ),
        time.time(),
    )


def _entry(label: str) -> Entry:
    author = label.partition("@")[0]
    return Entry(label, GAMES, hosted=HostedPackage("a" * 64, "python3.11", "x"), author=author)


def _check(matches: list[ScheduledMatch]) -> None:
    assert {m.game for m in matches} == set(GAMES)
    for match in matches:
        assert match.options == (SEEP if match.game == "seep" else {}), match


def test_the_ladder_and_the_final_play_the_competitions_game_options() -> None:
    competition = _competition()
    assert competition.game_options() == {"seep": SEEP}
    lineup = [_entry(f"{a}@v1") for a in ("ada", "bob", "cy")]

    ladder = ladder_plan(competition)
    assert ladder.games == GAMES and ladder.game_options == {"seep": SEEP}
    stored = TournamentPlan.from_json(ladder.to_json("t1"))  # as the workers store it
    assert stored.game_options == {"seep": SEEP}
    fmt = formats.build("t1", stored, {e.label: GAMES for e in lineup})
    _check(fmt.next(fmt.start(), 40)[1])

    final = final_plan(competition, lineup, deals=2)
    assert final.games == GAMES and final.game_options == {"seep": SEEP}
    _check(drive(formats.build("t1", final), random_results(3)).matches)

    plain = check(spec("plain", games=[arena_pb2.CompetitionGame(game="seep")]), time.time())
    assert ladder_plan(plain).game_options == {} == final_plan(plain, lineup).game_options


def test_competition_verify_refuses_a_final_that_plays_other_options() -> None:
    competition = arena_pb2.Competition(
        spec=arena_pb2.CompetitionSpec(
            name="options", games=[arena_pb2.CompetitionGame(game="seep", options=SEEP)]
        ),
        final_tournament_id="t1",
        final_board=arena_pb2.FinalBoard(tournament_id="t1"),
    )
    defaults = arena_pb2.Tournament(id="t1")
    with pytest.raises(FinalMismatch) as refused:
        verify_final(competition, defaults, [])
    assert str(refused.value) == (
        "the final plays game options none (every game at its defaults), but the "
        "competition's are seep: bazzis=2"
    )
    other = arena_pb2.Tournament(id="t1")
    other.spec.game_options["seep"].options["bazzis"] = "3"
    with pytest.raises(FinalMismatch, match="plays game options seep: bazzis=3, but the"):
        verify_final(competition, other, [])
    # The competition's own options pass this check, on to the final's (unrevealed) seed.
    same = arena_pb2.Tournament(id="t1")
    same.spec.game_options["seep"].options.update(SEEP)
    with pytest.raises(TournamentMismatch, match="has not ended"):
        verify_final(competition, same, [])
