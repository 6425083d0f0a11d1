"""A board's scale: an anchor that pins one bot at a stated Elo, a configurable prior,
bootstrap intervals checked against the normal ones in simulation, and an overall row
that rests on a game's prior (a perfect record there) marked provisional."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from arena.ratings.board import PROVISIONAL, RATED, Row
from arena.ratings.bootstrap import resample
from arena.ratings.compare import compare
from arena.ratings.elo import PRIOR_SIGMA, Counts, fit_counts
from arena.ratings.leaderboard import scaled_counts
from arena.ratings.scale import DEFAULT, MAX_BOOTSTRAP, BadScale, Scale
from bench.rating_scale import coverage, play, specialist

FIELD = {"ace": 120.0, "bee": 40.0, "cat": -30.0, "dog": -130.0}


def game_counts(seed: int, per_pairing: int = 12, truth: dict[str, float] = FIELD) -> Counts:
    return play(truth, per_pairing, np.random.default_rng(seed))


def rows(counts: dict[str, Counts], game: str = "", scale: Scale = DEFAULT) -> dict[str, Row]:
    board, _ = scaled_counts(counts, game, scale)
    return {r.bot: r for r in board.rows}


def test_an_anchor_is_at_its_elo_and_every_difference_is_the_fits() -> None:
    counts = {"seep": game_counts(1)}
    centred, _ = scaled_counts(counts, "seep")
    pinned, _ = scaled_counts(counts, "seep", Scale(anchor="cat", anchor_elo=1500))
    by_bot = {r.bot: r for r in pinned.rows}
    assert by_bot["cat"].elo == 1500 and by_bot["cat"].elo_ci95 == 0
    before = {r.bot: r for r in centred.rows}
    for bot in FIELD:
        assert by_bot[bot].elo - 1500 == pytest.approx(before[bot].elo - before["cat"].elo)
        assert by_bot[bot].rank == before[bot].rank
        if bot != "cat":  # its interval is its difference's to the anchor
            found = compare(centred, bot, "cat")
            assert by_bot[bot].elo_ci95 == pytest.approx(found.ci95)
    for a in FIELD:  # every pairwise answer is the same on either scale
        for b in FIELD:
            if a != b:
                assert compare(pinned, a, b).difference == pytest.approx(
                    compare(centred, a, b).difference
                )
                assert compare(pinned, a, b).ci95 == pytest.approx(compare(centred, a, b).ci95)
                assert compare(pinned, a, b).los == pytest.approx(compare(centred, a, b).los)
    assert pinned.caveats[-1] == (
        "anchored: cat is fixed at +1500 Elo, and each rating and its 95% interval are of "
        "the bot's difference to cat"
    )
    assert not centred.caveats


def test_an_anchored_overall_board_pins_the_anchor_overall_and_in_every_game() -> None:
    counts = {g: game_counts(seed) for seed, g in enumerate(("seep", "baloot", "bridgette"))}
    centred, _ = scaled_counts(counts)
    pinned, _ = scaled_counts(counts, "", Scale(anchor="bee", anchor_elo=-200))
    by_bot, before = {r.bot: r for r in pinned.rows}, {r.bot: r for r in centred.rows}
    assert by_bot["bee"].elo == pytest.approx(-200) and by_bot["bee"].elo_ci95 == 0
    assert by_bot["bee"].game_elo == pytest.approx({g: -200.0 for g in counts})
    for bot in FIELD:
        assert by_bot[bot].elo + 200 == pytest.approx(before[bot].elo - before["bee"].elo)
        # The overall is the mean of its (anchored) game columns.
        assert by_bot[bot].elo == pytest.approx(sum(by_bot[bot].game_elo.values()) / 3)
        if bot != "bee":
            assert by_bot[bot].elo_ci95 == pytest.approx(compare(centred, bot, "bee").ci95)
    assert "anchored: bee is fixed at -200 Elo" in pinned.caveats[-1]


def test_an_anchor_not_ranked_on_the_board_is_refused_naming_those_that_are() -> None:
    counts = {"seep": game_counts(1), "baloot": game_counts(2, truth={"ace": 0.0, "eel": 10.0})}
    with pytest.raises(BadScale) as refused:
        scaled_counts(counts, "seep", Scale(anchor="eel"))
    assert str(refused.value) == (
        "anchor 'eel' has no rating on the seep board; the anchor must be a ranked bot "
        "there: ace, bee, cat, dog"
    )
    with pytest.raises(BadScale, match=r"overall board \(rated in every game\).*: ace$"):
        scaled_counts(counts, "", Scale(anchor="bee"))  # not in baloot: not ranked overall
    many = {"seep": game_counts(3, 1, {f"bot{i:02d}": 10.0 * i for i in range(30)})}
    with pytest.raises(BadScale, match=r"there: bot\d\d(, bot\d\d){11} and 18 more$"):
        scaled_counts(many, "seep", Scale(anchor="nobody"))


@pytest.mark.parametrize(
    ("scale", "refusal"),
    [
        ({"prior_sd": -1.0}, "prior_sd is the prior's standard deviation in Elo, above 0 and "
         "at most 100,000 (unset: 1000); got -1"),
        ({"prior_sd": 0.0}, "above 0"),
        ({"prior_sd": math.inf}, "above 0"),
        ({"bootstrap": MAX_BOOTSTRAP + 1}, "bootstrap is a number of resamples from 0 (none) "
         "to 1000; got 1001"),
        ({"bootstrap": -1}, "from 0 (none) to 1000"),
        ({"anchor_elo": 1500.0}, "anchor_elo needs an anchor"),
    ],
)  # fmt: skip
def test_a_scale_out_of_range_is_refused_saying_what_is_allowed(
    scale: dict[str, Any], refusal: str
) -> None:
    with pytest.raises(BadScale) as refused:
        Scale(**scale)
    assert refusal in str(refused.value)


def test_the_prior_is_where_a_perfect_record_stops_and_barely_moves_the_others() -> None:
    counts = game_counts(4)
    counts["ace", "zed"] = (0, 0, 10)  # zed beat ace ten times: a perfect record
    wide = fit_counts(counts).by_player()
    narrow = fit_counts(counts, prior_sigma=300).by_player()
    assert wide["zed"].elo > narrow["zed"].elo + 200  # the prior stops the estimate
    for bot in FIELD:  # the others, fitted from their games, move by a few Elo
        assert abs((wide[bot].elo - wide["dog"].elo) - (narrow[bot].elo - narrow["dog"].elo)) < 15
    board = rows({"seep": counts}, "seep", Scale(prior_sd=300))
    assert "comes from the prior (sd 300 Elo)" in board["zed"].note
    assert PRIOR_SIGMA == 1000
    with pytest.raises(ValueError, match="positive"):
        fit_counts(counts, prior_sigma=-5)


def test_a_resample_redraws_each_pairing_from_its_own_units() -> None:
    counts = {("a", "b"): (3, 1, 2), ("a", "c"): (5, 0, 0), ("b", "c"): (0, 0, 0)}
    rng = np.random.default_rng(0)
    for _ in range(50):
        drawn = resample(counts, rng)
        assert {p: sum(v) for p, v in drawn.items()} == {p: sum(v) for p, v in counts.items()}
        assert drawn["a", "c"] == (5, 0, 0)  # a pairing that went one way always does


def test_bootstrap_intervals_are_reproducible_and_only_when_asked() -> None:
    counts = {"seep": game_counts(5), "baloot": game_counts(6)}
    assert scaled_counts(counts)[1] == {}
    first = scaled_counts(counts, "", Scale(bootstrap=20, seed=7))[1]
    assert first == scaled_counts(counts, "", Scale(bootstrap=20, seed=7))[1]
    assert first != scaled_counts(counts, "", Scale(bootstrap=20, seed=8))[1]
    board = rows(counts)
    for bot, (low, high) in first.items():
        assert low < board[bot].elo < high
    pinned = scaled_counts(counts, "seep", Scale(anchor="ace", anchor_elo=50, bootstrap=20))[1]
    assert pinned["ace"] == (50.0, 50.0)


def test_bootstrap_intervals_cover_the_truth_as_often_as_the_normal_ones() -> None:
    """bench.rating_scale on a small budget (docs/ratings.md has the full run)."""
    found = coverage(4, 12, trials=30, resamples=60)
    assert found.intervals >= 100
    assert 0.88 <= found.normal <= 1 and 0.88 <= found.bootstrap <= 1
    assert abs(found.bootstrap - found.normal) <= 0.06
    assert 0.8 <= found.width <= 1.25
    assert abs(found.anchored_bootstrap - found.anchored_normal) <= 0.08


@pytest.mark.slow
def test_bootstrap_coverage_over_a_larger_run() -> None:
    """The board's basic intervals cover as the normal ones do; the plain percentiles,
    which double the fit's stretch, fall short (docs/ratings.md)."""
    for bots, per_pairing in ((4, 12), (8, 8)):
        found = coverage(bots, per_pairing, trials=200, resamples=200)
        assert 0.93 <= found.normal <= 0.98
        assert abs(found.bootstrap - found.normal) <= 0.04
        assert found.percentile <= found.bootstrap


def specialist_counts() -> dict[str, Counts]:
    """``spec`` wins every one of its 24 seep pairs, and is average in the two other
    games; the field is the same in all three."""
    out = {}
    for seed, game in enumerate(("seep", "baloot", "bridgette")):
        counts = game_counts(10 + seed, 6, {**FIELD, "spec": 0.0})
        if game == "seep":  # "spec" sorts last: in (x, "spec"), x lost every pair
            counts = {p: ((0, 0, sum(v)) if p[1] == "spec" else v) for p, v in counts.items()}
        out[game] = counts
    return out


def test_an_overall_row_resting_on_a_games_prior_is_provisional_naming_the_game() -> None:
    counts = specialist_counts()
    games = {g: rows(counts, g) for g in counts}
    seep = games["seep"]["spec"]
    assert seep.bound == "at least" and seep.status == RATED
    overall, _ = scaled_counts(counts)
    spec = next(r for r in overall.rows if r.bot == "spec")
    assert spec.status == PROVISIONAL and spec.bound == ""  # its estimate, so provisional
    assert spec.note == (
        f"provisional: won every pair in seep (at least {seep.elo_bound:+.0f}) at 95%: its "
        "estimate there is the prior's"
    )
    assert spec.rank == len(FIELD) + 1  # after the established rows, though its Elo is top
    assert spec.elo == max(r.elo for r in overall.rows)
    assert all(r.status == RATED for r in overall.rows if r.bot != "spec")
    # Without the sweep (one seep pair lost), it is established again.
    counts["seep"]["ace", "spec"] = (1, 0, 5)
    again = next(r for r in scaled_counts(counts)[0].rows if r.bot == "spec")
    assert again.status == RATED and again.note == ""


def test_the_simulated_specialist_is_marked_whenever_its_sweep_leaks_into_its_overall() -> None:
    """bench.rating_scale's specialist on a small budget: its overall runs well ahead of
    the truth when it swept, and the board says provisional exactly then."""
    found = specialist(60, seed=3)
    assert 10 <= found.swept <= 55
    assert found.provisional_swept == 1 and found.provisional_not_swept == 0
    assert found.error_swept > found.error_not_swept + 30
