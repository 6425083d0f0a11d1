"""The final's pure rules, without processes: which version each author plays, the round
robin it becomes, the frozen board (ties by LOS), its JSON, and a refit that differs."""

from __future__ import annotations

import time
from dataclasses import replace

from arena.competition.final import (
    BEST_RATED,
    MARKED,
    NEWEST,
    FinalVersion,
    choose,
    final_id,
    final_plan,
    versions_from_json,
    versions_json,
)
from arena.competition.final_board import TIE_LOS, FinalBoard, differences, final_rows
from arena.competition.spec import check
from arena.ratings.board import PROVISIONAL, RATED, Leaderboard, Row
from arena.store.results import MatchResult
from arena.tournament import formats
from arena.tournament.fair_play import SEALED
from arena.tournament.spec import MAX_MATCHES, Entry, HostedPackage
from arena.v1 import arena_pb2
from tests.competition.helpers import spec

GAME = "bid-euchre"


def _row(bot: str, elo: float, status: str = RATED) -> Row:
    return Row(0, bot, elo, 50.0, 30, 15, 0, 15, 60, status=status)


def _board(*rows: Row) -> Leaderboard:
    from arena.ratings.board import ranked

    return Leaderboard("", ranked(rows), 0.0, 100)


def test_a_mark_wins_while_its_version_is_active_else_the_best_rated_else_the_newest() -> None:
    active = {
        "ada": ["ada-bot@v3", "ada-bot@v2", "ada-bot@v1"],  # newest first
        "bob": ["bob-bot@v2", "bob-bot@v1"],
        "cy": ["cy-bot@v2", "cy-bot@v1"],
        "dee": ["dee-bot@v1"],
    }
    marks = {"ada": "ada-bot@v1", "bob": "bob-bot@v0"}  # bob's mark was retired since
    board = _board(
        _row("bob-bot@v2", 100),
        _row("bob-bot@v1", 300, PROVISIONAL),  # higher Elo, but provisional: after
        _row("cy-bot@v1", 50),
        _row("ada-bot@v3", 500),
    )
    assert choose(active, marks, board) == [
        FinalVersion("ada", "ada-bot@v1", MARKED),
        FinalVersion("bob", "bob-bot@v2", BEST_RATED),
        FinalVersion("cy", "cy-bot@v1", BEST_RATED),
        FinalVersion("dee", "dee-bot@v1", NEWEST),
    ]
    assert choose(active, {}, None)[0] == FinalVersion("ada", "ada-bot@v3", NEWEST)
    assert choose({"eve": []}, {}, board) == []


def test_with_leagues_the_version_in_the_highest_league_is_the_best_rated() -> None:
    active = {"bob": ["bob-bot@v2", "bob-bot@v1"], "cy": ["cy-bot@v1"], "dee": ["dee-bot@v1"]}
    board = _board(_row("bob-bot@v2", 300), _row("dee-bot@v1", 200), _row("bob-bot@v1", 100))
    reached = {"bob-bot@v1": 1, "cy-bot@v1": 2}  # cy is unrated: the newest, as without
    assert choose(active, {}, board, leagues=reached) == [
        FinalVersion("bob", "bob-bot@v1", BEST_RATED),  # a league up, though 200 Elo down
        FinalVersion("cy", "cy-bot@v1", NEWEST),
        FinalVersion("dee", "dee-bot@v1", BEST_RATED),
    ]
    # Over the limit, the highest league plays first, then the board's order.
    assert [v.author for v in choose(active, {}, board, limit=1, leagues=reached)] == ["bob"]
    assert [v.author for v in choose(active, {}, board, limit=1)] == ["bob"]
    assert [v.author for v in choose(active, {}, board, limit=1, leagues={"dee-bot@v1": 1})] == [
        "dee"
    ]


def test_over_the_entry_limit_the_best_placed_play() -> None:
    active = {a: [f"{a}-bot@v1"] for a in ("ada", "bob", "cy", "dee")}
    board = _board(_row("dee-bot@v1", 300), _row("bob-bot@v1", 200))
    kept = choose(active, {}, board, limit=3)
    assert [v.author for v in kept] == ["ada", "bob", "dee"]  # then by name: ada over cy


def test_final_versions_round_trip_as_json() -> None:
    versions = [FinalVersion("ada", "ada-bot@v1", MARKED), FinalVersion("b", "b@2", NEWEST)]
    assert versions_from_json(versions_json(versions)) == tuple(versions)


def _entry(label: str, author: str, games: tuple[str, ...] = (GAME,)) -> Entry:
    return Entry(label, games, hosted=HostedPackage("a" * 64, "python3.11", "x"), author=author)


def test_the_final_is_a_sealed_round_robin_of_the_rules_deals_within_the_limits() -> None:
    competition = check(
        spec(
            "finals",
            games=[arena_pb2.CompetitionGame(game=GAME)],
            rules=arena_pb2.CompetitionRules(final_deals=7, max_faults=2),
        ),
        time.time(),
    )
    lineup = [_entry(f"{a}-bot@v1", a) for a in ("ada", "bob", "cy")]
    plan = final_plan(competition, lineup)
    assert plan.format == formats.ROUND_ROBIN and plan.fair_play == SEALED
    assert plan.deals == 7 and plan.max_faults == 2 and plan.games == (GAME,)
    assert plan.total == 3 * 7 * 2  # pairings x deals x halves
    assert plan.entries == tuple(e.label for e in lineup)
    assert plan.seed.salt and plan.commitment("t1") != final_plan(competition, lineup).commitment(
        "t1"
    )  # a fresh seed each time
    assert final_id(competition, 1.0) == final_id(competition, 1.0) != final_id(competition, 2.0)

    big = replace(competition, rules=replace(competition.rules, final_deals=1000))
    many = [_entry(f"a{i}@v1", f"a{i}") for i in range(30)]
    capped = final_plan(big, many)
    assert capped.total is not None and 0 < capped.total <= MAX_MATCHES
    assert capped.deals == MAX_MATCHES // (435 * 2)

    apart = final_plan(competition, [_entry("x@1", "x", ("seep",)), _entry("y@1", "y")])
    assert apart.total == 0  # no game both play: no final


def _pair(key: str, a: str, b: str, a_wins: bool) -> list[MatchResult]:
    """A duplicate pair, deal played with ``a`` as team 0 then as team 1."""
    points = 10 if a_wins else -10
    return [_half(f"{key}-0", key, (a, b), points), _half(f"{key}-1", key, (b, a), -points)]


def _half(match_id: str, key: str, entries: tuple[str, str], margin: int) -> MatchResult:
    scores = (max(margin, 0), max(-margin, 0))
    return MatchResult(
        match_id=match_id, tournament_id="t", game=GAME, pair_key=key, deal=0, seed=1,
        entries=entries, scores=scores, winner_team=0 if margin > 0 else 1, end="completed",
        forfeit_team=None, team_faults=(0, 0), team_fault_kinds=None, decisions=10,
        duration_ms=1.0, replay_id="", referee="", finished_at=None, deal_key=key,
        paired=True, deal_commitment="", deal_salt="", referee_match_id="",
        fair_play=SEALED, operator_seed=False,
    )  # fmt: skip


def _results() -> list[MatchResult]:
    """A beats B and C 24 pairs of 30; B and C split 15-15."""
    found: list[MatchResult] = []
    for i in range(30):
        found += _pair(f"ab{i:02}", "A", "B", i < 24)
        found += _pair(f"ac{i:02}", "A", "C", i < 24)
        found += _pair(f"bc{i:02}", "B", "C", i < 15)
    return found


VERSIONS = [FinalVersion("ann", "A", MARKED), FinalVersion("ben", "B", NEWEST),
            FinalVersion("cat", "C", BEST_RATED), FinalVersion("dan", "D", NEWEST)]  # fmt: skip


def test_the_board_ranks_by_the_fit_and_ties_adjacent_ranks_under_the_los_threshold() -> None:
    rows = final_rows(_results(), VERSIONS)
    assert [(r.rank, r.version, r.author, r.chosen) for r in rows[:1]] == [(1, "A", "ann", MARKED)]
    first, second, third, unplayed = rows
    assert first.los_next >= TIE_LOS and not first.tied_with_next
    assert first.wins == 48 and first.losses == 12 and first.pairs == 60
    assert first.matches == 120 and first.matches_won == 96
    assert {second.version, third.version} == {"B", "C"} and second.rank == 2
    assert 0.5 <= second.los_next < TIE_LOS and second.tied_with_next  # 15-15: not separated
    assert third.los_next == 0.0 and not third.tied_with_next  # the last ranked
    assert (unplayed.rank, unplayed.version, unplayed.status) == (0, "D", "unplayed")
    assert first.elo > second.elo and first.elo_ci95 > 0


def test_the_frozen_board_round_trips_and_a_refit_shows_a_change() -> None:
    rows = final_rows(_results(), VERSIONS)
    board = FinalBoard("t", 1.0, 180, 0, "d" * 64, rows)
    assert FinalBoard.from_json(board.to_json()) == board
    assert differences(rows, final_rows(list(reversed(_results())), VERSIONS)) is None
    moved = (replace(rows[0], elo=rows[0].elo + 3), *rows[1:])
    assert differences(moved, rows) == (
        f"rank 1 (A): elo is {rows[0].elo + 3:.6g} frozen, {rows[0].elo:.6g} refitted"
    )
    flipped = final_rows([r for r in _results() if not r.match_id.startswith("ab0")], VERSIONS)
    assert differences(rows, flipped) is not None
