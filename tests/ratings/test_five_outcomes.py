"""A duplicate pair's five outcomes: the reduction of its two matches, and the fit's
ratings and intervals from them (issue 39)."""

from __future__ import annotations

import json
import math
import re
import statistics

import numpy as np
import pytest

from arena.ratings import DuplicateResult, Outcome, fit, fit_counts, pair_outcomes
from arena.ratings import leaderboard as boards
from arena.ratings.bootstrap import resample_levels
from arena.ratings.duplicate import pair_level
from arena.ratings.elo import (
    Z95,
    Counts,
    Levels,
    add_levels,
    count_levels,
    count_outcomes,
)
from arena.ratings.leaderboard import duplicate_result
from arena.store.results import MatchResult
from tests.records import result


def unit(margins: tuple[int, int], forfeit_by: str | None = None) -> list[DuplicateResult]:
    """One deal played twice, ``margins`` being x's points less y's in each match; the
    second match is stored from y's side, as a swapped seating is."""
    first, second = margins
    return [
        DuplicateResult("deal", "x", "y", first),
        DuplicateResult("deal", "y", "x", -second, forfeit_by=forfeit_by),
    ]


@pytest.mark.parametrize(
    ("margins", "level", "score"),
    [
        ((30, 10), 4, 1.0),  # won both halves
        ((30, -10), 3, 1.0),  # won one by more than it lost the other
        ((5, 0), 3, 1.0),  # won one, the other level: not both
        ((-10, 30), 3, 1.0),  # the order of the halves does not matter
        ((10, -10), 2, 0.5),  # level on the total
        ((0, 0), 2, 0.5),  # both halves level
        ((10, -30), 1, 0.0),  # lost one by more than it won the other
        ((0, -1), 1, 0.0),
        ((-30, -10), 0, 0.0),  # lost both halves
    ],
)
def test_a_pair_has_five_outcomes_decided_by_the_total_then_the_halves(
    margins: tuple[int, int], level: int, score: float
) -> None:
    assert pair_level(margins) == level
    assert pair_outcomes(unit(margins), five=True) == [Outcome("x", "y", score, level)]
    # Read in three, the same pair is the win, draw or loss of its total margin.
    assert pair_outcomes(unit(margins)) == [Outcome("x", "y", score)]


def test_the_level_is_for_the_first_entry_by_name_whoever_is_stored_first() -> None:
    results = [DuplicateResult("d", "y", "x", 7), DuplicateResult("d", "x", "y", -2)]
    assert pair_outcomes(results, five=True) == [Outcome("x", "y", 0.0, 0)]


@pytest.mark.parametrize(
    ("forfeit_by", "level", "score"), [("x", 0, 0.0), ("y", 4, 1.0)], ids=["x", "y"]
)
def test_a_forfeit_loses_the_pair_outright_whatever_the_margins(
    forfeit_by: str, level: int, score: float
) -> None:
    margins = (80, 60) if forfeit_by == "x" else (-80, -60)
    found = pair_outcomes(unit(margins, forfeit_by), five=True)
    assert found == [Outcome("x", "y", score, level)]


def test_two_forfeits_are_level_and_a_lone_half_or_match_has_no_level() -> None:
    both = [
        DuplicateResult("d", "x", "y", 3, forfeit_by="x"),
        DuplicateResult("d", "y", "x", 0, forfeit_by="y"),
    ]
    assert pair_outcomes(both, five=True) == [Outcome("x", "y", 0.5, 2)]
    assert pair_outcomes([DuplicateResult("d", "x", "y", 3)], five=True) == []
    alone = DuplicateResult("m", "x", "y", 3, paired=False)
    assert pair_outcomes([alone], five=True) == [Outcome("x", "y", 1.0)]


def test_a_level_must_agree_with_the_score() -> None:
    with pytest.raises(ValueError, match=re.escape("level 3 is a score of 1.0")):
        Outcome("x", "y", 0.5, 3)


def test_levels_are_counted_for_the_first_name_and_add_up() -> None:
    outcomes = [Outcome("y", "x", 1.0, 4), Outcome("x", "y", 1.0, 3), Outcome("x", "y", 0.5)]
    levels = count_levels(outcomes)
    assert levels == {("x", "y"): (1, 0, 0, 1, 0)}
    assert count_outcomes(outcomes) == {("x", "y"): (1, 1, 1)}
    assert add_levels([levels, levels, {}]) == {("x", "y"): (2, 0, 0, 2, 0)}
    with pytest.raises(ValueError, match="more units than"):
        fit_counts({("x", "y"): (0, 1, 1)}, levels=levels)


def test_units_without_levels_fit_exactly_as_before() -> None:
    outcomes = [Outcome("x", "y", s) for s in (1.0, 1.0, 0.5, 0.0, 1.0)]
    table = fit(outcomes)
    assert table.both_elo is None
    assert table == fit_counts(count_outcomes(outcomes))


# --- the fit, simulated ------------------------------------------------------------------


def _f(x: float) -> float:
    return 1.0 / (1.0 + 10 ** (-x / 400))


def level_chances(delta: float, d: float, e: float) -> list[float]:
    """The fit's model: the chance of each level, 0 to 4, for a player ``delta`` Elo
    above its opponent (BayesElo's win, draw and loss, a win won in both halves with
    chance ``F(delta - d - e) / F(delta - d)``)."""
    win, loss = _f(delta - d), _f(-delta - d)
    both, lost_both = _f(delta - d - e), _f(-delta - d - e)
    return [lost_both, loss - lost_both, 1 - win - loss, win - both, both]


def play(
    truth: dict[str, float], pairs: int, rng: np.random.Generator, d: float = 60, e: float = 150
) -> tuple[Counts, Levels]:
    """Every pairing plays ``pairs`` pairs, drawn from the fit's own model."""
    names = sorted(truth)
    counts: Counts = {}
    levels: Levels = {}
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            n = rng.multinomial(pairs, level_chances(truth[a] - truth[b], d, e))
            l0, l1, l2, l3, l4 = (int(x) for x in n)
            counts[a, b] = (l3 + l4, l2, l0 + l1)
            levels[a, b] = (l0, l1, l2, l3, l4)
    return counts, levels


def test_a_large_table_gives_back_the_models_parameters() -> None:
    rng = np.random.default_rng(11)
    truth = {"a": 150.0, "b": 0.0, "c": -150.0}
    counts, levels = play(truth, 20000, rng)
    table = fit_counts(counts, levels=levels)
    elo = table.by_player()
    assert elo["a"].elo - elo["c"].elo == pytest.approx(300, abs=15)
    assert table.draw_elo == pytest.approx(60, abs=5)
    assert table.both_elo == pytest.approx(150, abs=10)


def test_five_outcome_intervals_cover_the_truth_95_percent_of_the_time() -> None:
    """Round robins under the model, fitted with their five outcomes: each difference's
    interval covers the true difference about 95% of the time (3 differences of 300
    round robins, correlated within one, so good to about +-2 points); read in three,
    the same units' intervals are wider."""
    rng = np.random.default_rng(2026)
    truth = {"a": 120.0, "b": 40.0, "c": 0.0, "d": -160.0}
    covered, checked, ratio = 0, 0, []
    for _ in range(300):
        counts, levels = play(truth, 16, rng)
        table = fit_counts(counts, levels=levels)
        three = fit_counts(counts)
        elo = table.by_player()
        for a, b in (("a", "b"), ("b", "c"), ("c", "d")):
            error = elo[a].elo - elo[b].elo - (truth[a] - truth[b])
            covered += abs(error) <= table.difference_ci95(a, b)
            checked += 1
            ratio.append(table.difference_ci95(a, b) / three.difference_ci95(a, b))
    assert 0.93 <= covered / checked <= 0.97, covered / checked
    assert statistics.median(ratio) < 0.95


def test_intervals_match_the_spread_of_estimates_from_a_game_with_luck() -> None:
    """Not the fit's model: each match's margin is the skill gap plus the deal's luck
    for the seat (cancelled by the swap) plus noise of its own. The truth on the fit's
    scale is unknown, but an honest interval is as wide as the estimates spread: the
    fit's mean half-width is within 12% of 1.96 sd of the estimate over 400 runs."""
    rng = np.random.default_rng(39)
    estimates, widths = [], []
    for _ in range(400):
        luck = rng.normal(0, 10, 120)
        halves = [0.6 + luck + rng.normal(0, 3, 120), 0.6 - luck + rng.normal(0, 3, 120)]
        outcomes = [
            Outcome("x", "y", 1.0 if v > 2 else 0.5 if v == 2 else 0.0, v)
            for v in (pair_level((round(m1), round(m2))) for m1, m2 in zip(*halves, strict=True))
        ]
        table = fit(outcomes)
        elo = table.by_player()
        estimates.append(elo["x"].elo - elo["y"].elo)
        widths.append(table.difference_ci95("x", "y"))
    spread = Z95 * statistics.stdev(estimates)
    assert statistics.fmean(widths) == pytest.approx(spread, rel=0.12)
    assert math.isfinite(spread) and spread > 0


# --- the board ---------------------------------------------------------------------------


def paired_results(rng: np.random.Generator) -> list[MatchResult]:
    """Three bots, 12 deals a pairing, each played twice with the seats swapped; the
    margins spread so that pairs are won both ways, on the total only, and level."""
    strength = {"ace": 3, "bee": 0, "cat": -2}
    out: list[MatchResult] = []
    for a, b in (("ace", "bee"), ("ace", "cat"), ("bee", "cat")):
        for deal in range(12):
            luck = int(rng.integers(-6, 7))
            key = f"{a}-{b}-{deal}"
            for half, (first, second) in enumerate(((a, b), (b, a))):
                sign = 1 if first == a else -1
                margin = strength[a] - strength[b] + int(rng.integers(-4, 5))
                mine = sign * margin + luck  # the deal's luck is the seat's: team 0's here
                out.append(
                    result(
                        match_id=f"{key}-{half}",
                        pair_key=key,
                        game="seep",
                        entries=[first, second],
                        scores=[max(mine, 0), max(-mine, 0)],
                    )
                )
    return out


def test_a_board_rates_its_pairs_in_five_outcomes_and_its_tally_keeps_them() -> None:
    results = paired_results(np.random.default_rng(5))
    halves = [h for r in results if (h := duplicate_result(r)) is not None]
    five = pair_outcomes(halves, five=True)
    assert {o.level for o in five} >= {1, 3, 4}  # the case is not a trivial one
    table = fit(five, ["ace", "bee", "cat"])
    board = boards.leaderboard(results, "seep")
    rows = {row.bot: row for row in board.rows}
    for r in table.ratings:
        assert (rows[r.player].elo, rows[r.player].elo_ci95) == (r.elo, r.ci95)
    three = fit(pair_outcomes(halves), ["ace", "bee", "cat"]).by_player()
    assert any(three[r.player].elo != r.elo for r in table.ratings)
    # A finished tournament's tally keeps the levels: the board from it is the same.
    stored = json.loads(json.dumps(boards.tallies(results)))
    assert stored["seep"]["levels"] == [
        [a, b, *row] for (a, b), row in sorted(count_levels(five).items())
    ]
    again = boards.ratings_by_game([], stored=[stored])["seep"]
    assert [(r.bot, r.elo, r.elo_ci95) for r in again.rows] == [
        (r.bot, r.elo, r.elo_ci95) for r in board.rows
    ]


def test_a_resample_redraws_each_pair_with_its_level() -> None:
    counts: Counts = {("a", "b"): (9, 3, 4), ("a", "c"): (5, 0, 5)}
    levels: Levels = {("a", "b"): (1, 2, 1, 3, 2)}  # 8 of a-b's 16 units are pairs
    rng = np.random.default_rng(1)
    for _ in range(50):
        drawn, drawn_levels = resample_levels(counts, levels, rng)
        assert {p: sum(v) for p, v in drawn.items()} == {("a", "b"): 16, ("a", "c"): 10}
        assert set(drawn_levels) == {("a", "b")}
        l0, l1, l2, l3, l4 = drawn_levels["a", "b"]
        w, d, lo = drawn["a", "b"]
        assert l3 + l4 <= w and l2 <= d and l0 + l1 <= lo
    a, b = resample_levels(counts, levels, np.random.default_rng(9))
    assert (a, b) == resample_levels(counts, levels, np.random.default_rng(9))


@pytest.mark.parametrize(
    "levels",
    [(0, 0, 3, 0, 0), (2, 0, 3, 0, 4), (0, 2, 3, 5, 0)],
    ids=["level only", "both halves only", "total only"],
)
def test_tables_that_pin_no_outer_margin_still_converge(
    levels: tuple[int, int, int, int, int],
) -> None:
    """Level pairs alone say nothing of e (it is left out), and pairs all won (or all
    split) put it on a clamp: either way the fit converges as a table in three does."""
    l0, l1, l2, l3, l4 = levels
    counts: Counts = {("x", "y"): (l3 + l4 + 2, l2 + 1, l0 + l1 + 2), ("y", "z"): (4, 1, 3)}
    table = fit_counts(counts, levels={("x", "y"): levels})
    three = fit_counts(counts)
    assert table.iterations <= three.iterations + 6
    assert all(math.isfinite(r.ci95) and r.ci95 > 0 for r in table.ratings)
    assert (table.both_elo is None) == (levels == (0, 0, 3, 0, 0))
    if levels == (0, 0, 3, 0, 0):
        assert table == three
