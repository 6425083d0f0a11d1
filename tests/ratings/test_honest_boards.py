"""What a board says when the table is awkward: a bot entered in one game, a table in
two unconnected parts, a perfect record, a bot that forfeits everything, too few pairs."""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

import pytest

from arena.ratings import Outcome, fit
from arena.ratings.board import EXCLUDED, INCOMPLETE, MIN_PAIRS, PROVISIONAL, RATED
from arena.ratings.bound import ONE_SIDED, _log_sweep, lower_bound
from arena.ratings.compare import CannotCompare, compare, los_matrix
from arena.ratings.leaderboard import leaderboard, ratings_by_game
from arena.store.results import MatchResult
from bench.rating_bias import simulate
from tests.records import result

FIVE = ["baloot", "bid-euchre", "bridgette", "persian-rummy", "seep"]


def expected(x: float) -> float:
    return 1 / (1 + 10 ** (-x / 400))


def unit(n: int, game: str, a: str, b: str, margin: int, **extra: Any) -> MatchResult:
    """A stored match rated alone (an open tournament's): one outcome."""
    return result(
        **{
            "match_id": f"{game}-{n}",
            "pair_key": f"{game}-{n}",
            "game": game,
            "entries": [a, b],
            "scores": [max(margin, 0), max(-margin, 0)],
            "end": "completed",
            "forfeit_team": None,
            "paired": False,
            **extra,
        }
    )


def round_robin(
    game: str, strengths: dict[str, float], per_pairing: int, rng: random.Random
) -> list[MatchResult]:
    out = []
    for a, b in itertools.combinations(sorted(strengths), 2):
        p = expected(strengths[a] - strengths[b])
        for _ in range(per_pairing):
            out.append(unit(rng.randrange(10**9), game, a, b, 1 if rng.random() < p else -1))
    return out


def test_a_bot_entered_in_one_game_no_longer_tops_the_overall_board() -> None:
    """The five-game run of the issue: bid-euchre-basic (all its pairs in Bid Euchre)
    ranked first overall above house, which plays and beats the field in all five."""
    rng = random.Random(7)
    field = {"house": 200.0, "mid": 0.0, "low": -60.0, "random": -250.0}
    results = []
    for game in FIVE:
        strengths = {**field, "bid-euchre-basic": 330.0} if game == "bid-euchre" else field
        results += round_robin(game, strengths, 12, rng)
    pooled = fit(
        Outcome(r.entries[0], r.entries[1], float(r.scores[0] > r.scores[1])) for r in results
    )
    assert pooled.ratings[0].player == "bid-euchre-basic"  # the old board's mistake
    boards = ratings_by_game(results)
    top, *_ = boards[""].rows
    assert (top.bot, top.rank, top.status) == ("house", 1, RATED)
    assert top.game_elo.keys() == set(FIVE)
    (basic,) = [row for row in boards[""].rows if row.bot == "bid-euchre-basic"]
    assert (basic.status, basic.rank, basic.elo) == (INCOMPLETE, 0, 0.0)
    assert basic.note == "played bid-euchre only (1 of 5 games): not ranked overall"
    assert basic.game_elo == {"bid-euchre": boards["bid-euchre"].rows[0].elo}
    assert boards["bid-euchre"].rows[0].bot == "bid-euchre-basic"  # where it is measured
    assert boards[""].rows[-1] == basic
    with pytest.raises(CannotCompare, match="bid-euchre-basic is not rated on this board"):
        compare(boards[""], "house", "bid-euchre-basic")
    assert compare(boards["bid-euchre"], "bid-euchre-basic", "house").los > 0.5


def test_unconnected_groups_are_ranked_apart() -> None:
    rng = random.Random(3)
    results = round_robin("seep", {"a": 100.0, "b": 0.0, "c": -100.0}, 20, rng)
    results += round_robin("seep", {"x": 80.0, "y": -80.0}, 25, rng)
    board = leaderboard(results, "seep")
    assert [(r.bot, r.group, r.rank) for r in board.rows if r.status == RATED] == [
        ("a", 1, 1),
        ("b", 1, 2),
        ("c", 1, 3),
        ("x", 2, 1),
        ("y", 2, 2),
    ]
    assert "no games connect it to group 1" in board.rows[3].note
    assert any("2 groups are ranked apart" in c for c in board.caveats)
    assert sum(r.elo for r in board.rows[:3]) == pytest.approx(0, abs=1e-6)  # centred apart
    assert sum(r.elo for r in board.rows[3:]) == pytest.approx(0, abs=1e-6)
    with pytest.raises(CannotCompare, match=r"a \(group 1\) and x \(group 2\) are in different"):
        compare(board, "a", "x")
    assert compare(board, "x", "y").difference == board.rows[3].elo - board.rows[4].elo
    assert [bot for bot, _ in los_matrix(board)] == ["a", "b", "c"]
    overall = {row.bot: row for row in ratings_by_game(results)[""].rows}
    assert overall["x"].note == "not connected to the main group in seep: not ranked overall"
    assert overall["a"].status == RATED


def test_a_bot_with_no_rated_pair_is_listed_unfitted() -> None:
    results = round_robin("seep", {"a": 100.0, "b": -100.0}, 20, random.Random(4))
    results.append(unit(1, "seep", "ghost", "a", 0, end="no_contest"))
    board = ratings_by_game(results)
    ghost = board["seep"].rows[-1]
    assert (ghost.bot, ghost.status, ghost.group, ghost.matches) == ("ghost", PROVISIONAL, 0, 1)
    assert ghost.note == "no rated pair yet"
    assert board[""].rows[-1].note == "no rated pair in seep: not ranked overall"


def test_a_perfect_record_is_shown_as_a_95_percent_bound() -> None:
    rng = random.Random(5)
    results = round_robin("seep", {"a": 0.0, "b": 50.0, "c": -50.0}, 12, rng)
    results += [unit(10**9 + i, "seep", "ace", "abc"[i % 3], 1) for i in range(24)]
    results += [unit(2 * 10**9 + i, "seep", "dud", "abc"[i % 3], -1) for i in range(24)]
    board = leaderboard(results, "seep")
    rows = {row.bot: row for row in board.rows}
    ace, dud = rows["ace"], rows["dud"]
    assert (ace.wins, ace.losses, ace.bound) == (24, 0, "at least")
    assert ace.elo_bound < ace.elo  # the estimate is the prior's; the bound is the data's
    assert f"at least {ace.elo_bound:+.0f} at 95%" in ace.note and "prior (sd 1000" in ace.note
    opponents = [(rows[o].elo, 8) for o in "abc"]
    assert math.exp(_log_sweep(ace.elo_bound, opponents, board.draw_elo)) == pytest.approx(
        ONE_SIDED
    )
    assert lower_bound(opponents, board.draw_elo) == pytest.approx(ace.elo_bound)
    assert (dud.wins, dud.bound) == (0, "at most") and dud.elo_bound > dud.elo
    assert rows["a"].bound == "" and rows["a"].elo_bound == 0.0


def test_a_bot_that_forfeits_everything_is_left_out_of_the_fit() -> None:
    rng = random.Random(9)
    fair = round_robin("seep", {"house": 150.0, "b": 0.0, "c": -150.0}, 15, rng)
    forfeits = [
        unit(5 * 10**9 + i, "seep", "crash", ["house", "b", "c"][i % 3], -1, forfeit_team=0)
        for i in range(30)
    ]
    alone, with_crash = leaderboard(fair, "seep"), leaderboard(fair + forfeits, "seep")
    kept = {r.bot: (r.elo, r.elo_ci95) for r in alone.rows}
    assert {r.bot: (r.elo, r.elo_ci95) for r in with_crash.rows if r.bot != "crash"} == kept
    crash = with_crash.rows[-1]
    assert (crash.bot, crash.status, crash.rank, crash.group) == ("crash", EXCLUDED, 0, 0)
    assert crash.note == "forfeited all 30 matches: left out of the fit"
    overall = ratings_by_game(fair + forfeits)[""]
    assert overall.rows[-1].status == EXCLUDED
    assert overall.rows[-1].note == "forfeited every match it played"


def test_a_rating_needs_min_pairs_and_the_overall_says_which_game_is_short() -> None:
    rng = random.Random(11)
    results = round_robin("seep", {"a": 100.0, "b": 0.0, "c": -100.0}, 10, rng)  # 20 each
    results += round_robin("baloot", {"a": 100.0, "b": 0.0, "c": -100.0}, 9, rng)  # 18 each
    boards = ratings_by_game(results)
    assert all(r.status == RATED and r.rank > 0 for r in boards["seep"].rows)
    assert all(r.status == PROVISIONAL and r.rank == 0 for r in boards["baloot"].rows)
    assert boards["baloot"].rows[0].note == f"18 of the {MIN_PAIRS} pairs a rating needs"
    assert {r.status for r in boards[""].rows} == {PROVISIONAL}
    assert boards[""].rows[0].note == "provisional in baloot (18 pairs)"


def test_min_pairs_is_where_the_simulated_stretch_falls_under_ten_percent() -> None:
    """bench.rating_bias on a small budget: well below MIN_PAIRS the fit stretches
    ratings by a fifth or more; from MIN_PAIRS on, by under a tenth."""
    few = simulate(4, 2, 200.0, 150)  # 6 pairs a bot
    enough = simulate(8, 3, 200.0, 150)  # 21 pairs a bot
    assert few.pairs_per_bot < MIN_PAIRS <= enough.pairs_per_bot
    assert few.stretch_median > 0.2
    assert 0 < enough.stretch_median < 0.1
    assert 0.93 <= enough.coverage <= 0.97
