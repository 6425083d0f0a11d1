"""Leagues without processes: the promotion rule on hand-computed records, the ladder's
pairings kept within a league (bosses joining its lineup, placement league by league,
versions moving up and never down as a seeded field plays), and the board by league."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace

import pytest

from arena.competition.board import AuthorRow, by_author, in_leagues, with_league
from arena.competition.ladder import ladder_plan
from arena.ratings.board import PROVISIONAL, RATED, Leaderboard, Row
from arena.ratings.duplicate import DuplicateResult
from arena.store.bots import RegisteredBot
from arena.tournament import formats
from arena.tournament.formats.base import Field, Played, State
from arena.tournament.formats.ladder import Ladder
from arena.tournament.formats.ladder_leagues import LEAGUES
from arena.tournament.leagues import League, Leagues, climb, promoted, record_against
from arena.tournament.schedule import ScheduledMatch
from tests.competition.fakes import GAMES, Roster, competition, version

THREE = Leagues(
    (League("wood", "wood-boss@v1"), League("bronze", "bronze-boss@v1"), League("gold", "")),
    0.95,
    6,
)


@pytest.mark.parametrize(
    ("record", "moves"),
    [
        ((6, 0, 0), True),  # Phi(6 / sqrt 6) = 0.993
        ((5, 0, 1), False),  # Phi(4 / sqrt 6) = 0.949: just short
        ((5, 1, 0), True),  # Phi(5 / sqrt 5) = 0.987: a draw tells nothing either way
        ((3, 3, 0), True),  # Phi(3 / sqrt 3) = 0.958
        ((5, 0, 0), False),  # 0.988, but five pairs are fewer than six
        ((0, 6, 0), False),  # all draws: 0.5
        ((20, 0, 10), True),  # Phi(10 / sqrt 30) = 0.966
        ((19, 0, 11), False),  # Phi(8 / sqrt 30) = 0.928
    ],
)
def test_a_version_moves_up_when_its_pairs_against_the_boss_reach_the_los(
    record: tuple[int, int, int], moves: bool
) -> None:
    assert promoted(record, 0.95, 6) is moves


def test_the_record_against_a_boss_sums_the_games_from_the_versions_side() -> None:
    counts = {
        "seep": {"a@v1": {"wood-boss@v1": [4, 1, 1]}},
        "bid-euchre": {"a@v1": {"wood-boss@v1": [1, 0, 0]}, "b@v1": {"a@v1": [9, 9, 9]}},
        "baloot": {"wood-boss@v1": {"z@v1": [0, 2, 3]}},  # z sorts after the boss
    }
    assert record_against(counts, "a@v1", "wood-boss@v1") == (5, 1, 1)
    assert record_against(counts, "z@v1", "wood-boss@v1") == (3, 2, 0)
    assert record_against(counts, "b@v1", "wood-boss@v1") == (0, 0, 0)


def test_a_version_climbs_league_by_league_from_where_it_is() -> None:
    beats_both = {
        "g": {"a@v1": {"bronze-boss@v1": [6, 0, 0], "wood-boss@v1": [6, 0, 0]}},
    }
    assert climb(THREE, beats_both, "a@v1") == 2  # past both bosses: the top
    only_bronze = {"g": {"a@v1": {"bronze-boss@v1": [6, 0, 0]}}}
    assert climb(THREE, only_bronze, "a@v1") == 0  # wood's boss comes first
    assert climb(THREE, only_bronze, "a@v1", reached=1) == 2
    lost_later = {"g": {"a@v1": {"wood-boss@v1": [6, 0, 30]}}}
    assert climb(THREE, lost_later, "a@v1", reached=1) == 1  # never down


# The ladder, in process.

BOSSES = ("wood-boss@v1", "bronze-boss@v1")


def _ladder(entries: list[str], leagues: Leagues = THREE, placement: int = 0) -> Ladder:
    field = Field("t1", tuple(entries), GAMES, dict.fromkeys(entries, GAMES), 1, 11, True)
    return Ladder(field, {"placement": placement, LEAGUES: leagues.to_json()})


def _pairs(matches: list[ScheduledMatch]) -> set[frozenset[str]]:
    return {frozenset(m.entries) for m in matches}


def test_units_are_drawn_within_a_league_and_a_boss_plays_only_its_own() -> None:
    versions = [f"v{i}@v1" for i in range(6)]
    ladder = _ladder([*versions, *BOSSES])
    state = ladder.start() | {"league": {"v0@v1": 1, "v1@v1": 1, "v2@v1": 2, "v3@v1": 2}}
    league = {"v4@v1": 0, "v5@v1": 0, "wood-boss@v1": 0, "bronze-boss@v1": 1} | state["league"]
    drawn: Counter[frozenset[str]] = Counter()
    for n in range(0, 400, 20):  # many states, each a fresh draw of every pairing
        _, matches = ladder.next(state | {"units": n}, 2 * 10)
        drawn.update(_pairs(matches))
    assert all(len({league[e] for e in pair}) == 1 for pair in drawn), drawn
    assert set(drawn) == {
        frozenset(p)
        for p in (
            ("v4@v1", "v5@v1"), ("v4@v1", "wood-boss@v1"), ("v5@v1", "wood-boss@v1"),
            ("v0@v1", "v1@v1"), ("v0@v1", "bronze-boss@v1"), ("v1@v1", "bronze-boss@v1"),
            ("v2@v1", "v3@v1"),
        )
    }  # fmt: skip


def test_placement_is_each_leagues_own() -> None:
    """A new version places against its league; the other leagues play on meanwhile."""
    settled = ["a@v1", "b@v1", "c@v1", "d@v1"]
    ladder = _ladder([*settled, "new@v1", *BOSSES], placement=10)
    everyone = [*settled, *BOSSES]
    rows: dict[str, dict[str, list[int]]] = {}
    for i, a in enumerate(sorted(everyone)):
        for b in sorted(everyone)[i + 1 :]:
            rows.setdefault(a, {})[b] = [5, 0, 5]
    state = {"units": 0, "counts": {GAMES[0]: rows}, "out": {}, "league": {"c@v1": 1, "d@v1": 1}}
    bronze_meanwhile = False
    for n in range(0, 40, 10):  # four draws of a window of 8 units
        _, matches = ladder.next(state | {"units": n}, 2 * 8)
        units = [frozenset(m.entries) for m in matches[::2]]
        wood = [i for i, u in enumerate(units) if u & {"a@v1", "b@v1", "new@v1", "wood-boss@v1"}]
        # Wood's first units are the newcomer's three pairings (each drawn once a call)...
        assert all("new@v1" in units[i] for i in wood[:3]), units
        # ... while bronze, with nobody placing, is drawn as ever, even before them.
        bronze_meanwhile |= any(i not in wood for i in range(wood[2]))
    assert bronze_meanwhile


def _play(ladder: Ladder, strength: Mapping[str, float], units: int, seed: int = 3) -> State:
    """``units`` units, each absorbed as it is handed out: the stronger entry (by
    ``strength``) wins the pair, equal ones draw."""
    rng = random.Random(seed)
    state = ladder.start()
    for _ in range(units):
        state, matches = ladder.next(state, 2)
        played = []
        for m in matches:
            a, b = m.entries
            edge = strength[a] - strength[b] + rng.choice((-0.1, 0.1))
            margin = 10 if edge > 0 else -10
            played.append(Played(m.match_id, DuplicateResult(m.pair_key, a, b, margin)))
        state = ladder.absorb(state, played)
    return state


def test_a_version_that_beats_the_bosses_moves_up_and_one_that_cannot_stays() -> None:
    """Wood's boss loses every pair, bronze's wins every one: the strong versions reach
    bronze and stay there, the weak one stays in wood; each version's pairs against a boss
    stop once it has moved past it."""
    strength = {"wood-boss@v1": 0, "bronze-boss@v1": 100, "a@v1": 50, "b@v1": 60, "c@v1": -50}
    ladder = _ladder(list(strength))
    state = _play(ladder, strength, 200)
    assert state["league"] == {"a@v1": 1, "b@v1": 1}
    for strong in ("a@v1", "b@v1"):
        # Judged after every pair: moved up at the sixth straight win, and wood's boss
        # never met again.
        assert record_against(state["counts"], strong, "wood-boss@v1") == (6, 0, 0)
        assert sum(record_against(state["counts"], strong, "bronze-boss@v1")) > 6
    assert sum(record_against(state["counts"], "c@v1", "bronze-boss@v1")) == 0


def test_the_ladders_record_of_leagues_never_goes_down() -> None:
    """Units in flight as a version moved up arrive later: lost, they do not move it back."""
    ladder = _ladder(["a@v1", *BOSSES])
    won = {"units": 9, "counts": {"seep": {"a@v1": {"wood-boss@v1": [6, 0, 0]}}}, "out": {}}
    state = ladder.absorb(won, [])
    assert state["league"] == {"a@v1": 1}
    state["counts"]["seep"]["a@v1"]["wood-boss@v1"] = [6, 0, 9]
    assert ladder.absorb(state, [])["league"] == {"a@v1": 1}


def test_without_leagues_the_ladder_keeps_no_league() -> None:
    field = Field("t1", ("a", "b"), GAMES, dict.fromkeys("ab", GAMES), 1, 11, True)
    ladder = Ladder(field, {})
    state = ladder.absorb(ladder.next(ladder.start(), 2)[0], [])
    assert "league" not in state and ladder.leagues is None


def test_the_ladder_plan_carries_the_leagues_and_its_lineup_adds_the_bosses() -> None:
    spec = competition(active_versions=1)
    spec = replace(spec, rules=replace(spec.rules, fair_play="sealed", leagues=THREE))
    plan = ladder_plan(spec)
    assert Leagues.from_json(plan.format_params[LEAGUES]) == THREE
    assert LEAGUES not in ladder_plan(competition()).format_params
    bots = [
        RegisteredBot("a", "", GAMES, "a", "1", 1, hosted=True, author="ada"),
        RegisteredBot("wood-boss", "", GAMES, "w", "1", 1, hosted=True),
        RegisteredBot("bronze-boss", "", GAMES, "b", "1", 1, hosted=True),
    ]
    boss = {n: version(n, "v1", 1, "") for n in ("wood-boss", "bronze-boss")}
    roster = Roster({"a": [version("a", "v1", 1, "ada")]}, ["ada", "bob"])

    def version_of(name: str, label: str | None) -> object:
        return boss.get(name) if label == "v1" else None

    lineup = formats.get(plan.format).lineup(plan, bots, version_of, roster)  # type: ignore[arg-type]
    assert [(e.label, e.author) for e in lineup] == [
        ("a@v1", "ada"),
        ("bronze-boss@v1", ""),
        ("wood-boss@v1", ""),
    ]
    gone = formats.get(plan.format).lineup(plan, bots[:2], version_of, roster)  # type: ignore[arg-type]
    assert [e.label for e in gone] == ["a@v1", "wood-boss@v1"]  # bronze's boss left


def test_the_board_groups_authors_by_league_top_first_with_the_bosses_marked() -> None:
    def row(bot: str, elo: float, rank: int, status: str = RATED) -> Row:
        return Row(rank, bot, elo, 50, 30, 10, 0, 20, 60, status=status)

    board = Leaderboard(
        "",
        (
            row("bronze-boss@v1", 400, 1),
            row("a@v1", 300, 2),
            row("b@v1", 200, 3),
            row("wood-boss@v1", 100, 4),
            row("c@v1", 50, 5),
            row("a@v2", 40, 6),
            row("d@v1", 0, 7, PROVISIONAL),
        ),
        0.0,
        120,
    )
    authors = {"a@v1": "ada", "b@v1": "bob", "c@v1": "cy", "d@v1": "dee", "wood-boss@v1": ""}
    authors |= {"a@v2": "ada"}
    active = set(authors) | {"bronze-boss@v1"}
    reached = {"c@v1": 1, "d@v1": 2, "a@v2": 1}
    rows = in_leagues(board, authors, active, THREE, reached)
    assert [(r.league, r.rank, r.author, r.row.bot, r.boss) for r in rows] == [
        ("gold", 1, "dee", "d@v1", False),
        ("bronze", 0, "", "bronze-boss@v1", True),
        ("bronze", 2, "cy", "c@v1", False),
        ("bronze", 3, "ada", "a@v2", False),  # her best: in bronze, though a@v1 has more Elo
        ("wood", 4, "bob", "b@v1", False),
        ("wood", 0, "", "wood-boss@v1", True),
    ]
    assert [r.author for r in by_author(board, authors, active)][:1] == ["ada"]  # by Elo
    mine = with_league([AuthorRow(3, "cy", True, board.rows[4])], THREE, reached)
    assert mine[0].league == "bronze"
