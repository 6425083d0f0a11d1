"""What a board says when the table is awkward: a bot entered in one game, a table in
two unconnected parts, a clean sweep of wins or of losses, a bot that forfeits
everything, too few pairs, an overall board that ranks nobody."""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

import pytest

from arena.ratings import Outcome, fit
from arena.ratings.board import (
    EXCLUDED,
    INCOMPLETE,
    MIN_PAIRS,
    PROVISIONAL,
    RANK_RULE,
    RATED,
    Leaderboard,
)
from arena.ratings.bound import ONE_SIDED, _log_sweep, lower_bound
from arena.ratings.compare import CannotCompare, compare, los_matrix
from arena.ratings.leaderboard import leaderboard, ratings_by_game
from arena.records import StaleRecord
from arena.store.migrate import upgrade_board
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
    with pytest.raises(
        CannotCompare,
        match="bid-euchre-basic has no rating to compare on this board: played bid-euchre only",
    ):
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


def test_two_bots_one_sweeping_the_other_are_bounded_by_their_difference() -> None:
    """Both ratings are the prior's; only the difference is measured: sweeping 6 pairs
    was a 5% chance at a difference of L, and the centring gives each side half of it
    (bounds against the other's prior estimate said the winner was "at least -313")."""
    board = leaderboard([unit(i, "seep", "house", "rand", 1) for i in range(6)], "seep")
    house, rand = board.rows
    difference = lower_bound([(0.0, 6)], board.draw_elo)
    assert math.exp(_log_sweep(difference, [(0.0, 6)], board.draw_elo)) == pytest.approx(ONE_SIDED)
    assert house.bound == "at least" and house.elo_bound == pytest.approx(difference / 2)
    assert rand.bound == "at most" and rand.elo_bound == pytest.approx(-difference / 2)
    assert 30 < house.elo_bound < house.elo  # a real bound, well below the prior's +389


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


def test_below_min_pairs_a_rating_is_shown_provisional_and_ranked_after_established_ones() -> None:
    rng = random.Random(11)
    results = round_robin("seep", {"a": 100.0, "b": 0.0, "c": -100.0}, 10, rng)  # 20 each
    results += round_robin("baloot", {"a": 100.0, "b": 0.0, "c": -100.0}, 9, rng)  # 18 each
    boards = ratings_by_game(results)
    assert all(r.status == RATED and r.rank > 0 for r in boards["seep"].rows)
    baloot = boards["baloot"].rows
    assert [(r.status, r.rank) for r in baloot] == [
        (PROVISIONAL, 1),
        (PROVISIONAL, 2),
        (PROVISIONAL, 3),
    ]
    assert [r.elo for r in baloot] == sorted((r.elo for r in baloot), reverse=True)
    assert all(r.elo_ci95 > 0 for r in baloot)  # shown with its interval from the start
    assert baloot[0].note == f"provisional: 18 of the {MIN_PAIRS} pairs that establish a rating"
    overall = boards[""].rows
    assert [(r.status, r.rank) for r in overall] == [
        (PROVISIONAL, 1),
        (PROVISIONAL, 2),
        (PROVISIONAL, 3),
    ]
    assert overall[0].note == f"provisional in baloot (18 of {MIN_PAIRS} pairs)"
    # Every one of them ranked in every game: no unranked row to point to.
    assert boards[""].caveats == (
        "overall is the mean of a bot's ratings in the 2 games, each game weighing the same, "
        "and ranks only the bots rated in all 2",
    )
    assert compare(boards[""], "a", "c").los > 0.5  # --compare answers for the ranked rows
    assert [bot for bot, _ in los_matrix(boards["baloot"])] == [r.bot for r in baloot]


def test_provisional_rows_rank_after_established_ones_whatever_their_estimate() -> None:
    """The rule: established first, then provisional, each by Elo. A newcomer that won
    its few pairs has the highest estimate, and ranks after the established bots."""
    rng = random.Random(21)
    results = round_robin("seep", {"a": 100.0, "b": 0.0, "c": -100.0}, 12, rng)  # 24 each
    results += [unit(10**8 + i, "seep", "new", "abc"[i % 3], 1 if i % 3 else -1) for i in range(6)]
    board = leaderboard(results, "seep")
    rows = {r.bot: r for r in board.rows}
    assert rows["new"].status == PROVISIONAL and rows["new"].elo > rows["a"].elo
    assert [(r.bot, r.rank, r.status) for r in board.rows] == [
        ("a", 1, RATED),
        ("b", 2, RATED),
        ("c", 3, RATED),
        ("new", 4, PROVISIONAL),
    ]
    stored = board.to_json()
    assert stored["rule"] == RANK_RULE
    # A board stored under the old rule (provisional rows unranked) ranks as a fresh one.
    old = {
        **stored,
        "rows": [
            {**row, "rank": 0 if row["status"] == PROVISIONAL else row["rank"]}
            for row in stored["rows"]
        ],
    }
    del old["rule"]
    with pytest.raises(
        StaleRecord, match=r"leaderboard was stored by an earlier build \(no 'rule'\)"
    ):
        Leaderboard.from_json(old)
    assert upgrade_board(old) and not upgrade_board(old)  # as `arena store migrate` does
    read = Leaderboard.from_json(old)
    assert [(r.bot, r.rank) for r in read.rows] == [(r.bot, r.rank) for r in board.rows]
    assert read.rule == 1  # so a reader can tell its notes were written under that rule


def test_a_bot_that_lost_every_pair_is_bounded_above_and_never_said_perfect() -> None:
    rng = random.Random(5)
    results = []
    for game in ("seep", "baloot"):
        results += round_robin(game, {"a": 0.0, "b": 50.0, "c": -50.0}, 10, rng)
        results += [unit(10**9 + i, game, "dud", "abc"[i % 3], -1) for i in range(9)]
    results += [unit(2 * 10**9 + i, "seep", "ace", "abc"[i % 3], 1) for i in range(9)]
    results += [unit(3 * 10**9 + i, "baloot", "ace", "abc"[i % 3], i % 3 - 1) for i in range(9)]
    boards = ratings_by_game(results)
    games = {g: {r.bot: r for r in boards[g].rows} for g in ("seep", "baloot")}
    overall = {r.bot: r for r in boards[""].rows}
    dud = overall["dud"]
    assert (dud.bound, dud.rank) == ("at most", 5)  # provisional, and last
    for game in ("baloot", "seep"):
        row = games[game]["dud"]
        assert row.bound == "at most" and row.note.startswith("provisional: 9 of the 20 pairs")
        assert f"lost all 9 pairs: at most {row.elo_bound:+.0f} at 95%" in row.note
        assert f"{game} (at most {row.elo_bound:+.0f})" in dud.note
    # Lost everywhere: overall too it is an upper bound, the mean of the games' bounds
    # measured from the same reference as its rating.
    offsets = {g: sum(games[g][b].elo for b in ("a", "ace", "b", "c", "dud")) / 5 for g in games}
    assert dud.elo_bound == pytest.approx(
        sum(games[g]["dud"].elo_bound - offsets[g] for g in games) / 2
    )
    ace = overall["ace"]
    assert dud.note == (
        "provisional in baloot, seep (9 of 20 pairs each); lost every pair in "
        f"baloot (at most {games['baloot']['dud'].elo_bound:+.0f}), "
        f"seep (at most {games['seep']['dud'].elo_bound:+.0f}) at 95%: its estimate in each "
        "is the prior's"
    )
    assert ace.bound == "" and "won every pair in seep (at least " in ace.note  # not in baloot
    assert ace.note.endswith("at 95%: its estimate there is the prior's")
    assert all("perfect" not in r.note for b in boards.values() for r in b.rows)


def test_an_overall_board_that_ranks_nobody_says_why_in_a_line() -> None:
    rng = random.Random(8)
    results = round_robin("seep", {"a": 50.0, "b": -50.0}, 6, rng)
    results += round_robin("baloot", {"x": 50.0, "y": -50.0}, 6, rng)
    boards = ratings_by_game(results)
    assert not any(r.rank for r in boards[""].rows)
    assert {r.note for r in boards[""].rows} == {
        "played seep only (1 of 2 games): not ranked overall",
        "played baloot only (1 of 2 games): not ranked overall",
    }
    assert (
        boards[""]
        .caveats[-1]
        .endswith(
            "no bot is rated in all 2 yet, so none is ranked here; each game's board ranks its own"
        )
    )
    assert all(r.rank for g in ("seep", "baloot") for r in boards[g].rows)
    results += round_robin("baloot", {"a": 50.0, "b": -50.0, "x": 0.0}, 6, rng)
    partly = ratings_by_game(results)[""]
    assert {r.bot for r in partly.rows if r.rank} == {"a", "b"}  # the two in both games
    assert partly.caveats[-1].endswith(
        "; 2 bots are not, and are listed after the ranked ones, unranked"
    )


def test_min_pairs_is_where_the_simulated_stretch_falls_under_ten_percent() -> None:
    """bench.rating_bias on a small budget: well below MIN_PAIRS the fit stretches
    ratings by a fifth or more; from MIN_PAIRS on, by under a tenth."""
    few = simulate(4, 2, 200.0, 150)  # 6 pairs a bot
    enough = simulate(8, 3, 200.0, 150)  # 21 pairs a bot
    assert few.pairs_per_bot < MIN_PAIRS <= enough.pairs_per_bot
    assert few.stretch_median > 0.2
    assert 0 < enough.stretch_median < 0.1
    assert 0.93 <= enough.coverage <= 0.97
