"""The SPRT's statistics: the exact LLR and the median-unbiased estimate against
fishtest's on fixed counts, the overshoot ladder, the bounds it takes, and its error
rates and the estimate's coverage by simulation.

The reference figures were computed with fishtest's own code (``LLR_logistic`` and
``SPRT_elo`` in ``server/fishtest/stats``, commit b8eecff2) and are copied here as
numbers; fishtest is not vendored (it has no licence file). ``bench.sprt_error_rates
--fishtest DIR`` runs its code side by side where a copy is at hand.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from arena.ratings import sprt
from arena.ratings.sprt_estimate import estimate, estimate_counts
from arena.ratings.sprt_llr import llr, llr_any, llr_arrays, llr_trinomial
from arena.ratings.sprt_overshoot import Ladder, corrections_along
from arena.ratings.sprt_simulation import (
    H0,
    H1,
    INCONCLUSIVE,
    simulate,
    simulate_outcomes,
    tilted,
)

# (losses, draws, wins), elo0, elo1, fishtest's LLR_logistic
TRINOMIAL: list[tuple[list[int], float, float, float]] = [
    ([15, 25, 60], 0, 5, 0.8508840927313228),
    ([1, 0, 0], 0, 5, -0.014494884709035021),
    ([0, 0, 2], 0, 5, 0.028574993724650277),
    ([0, 400, 0], 0, 5, -5.788931924894891),
    ([120, 40, 100], -20, 30, -4.0342659901727185),
    ([3, 1, 9], 0, 200, 1.5373831226549572),
    ([30, 20, 50], 100, 300, -22.579626153735653),
    ([5026, 15699, 5019], 0, 5, -7.088346352570307),
]
# pentanomial counts (pairs scoring 0, 1/2, 1, 3/2, 2), elo0, elo1, fishtest's LLR_logistic
PENTANOMIAL: list[tuple[list[int], float, float, float]] = [
    ([10789, 19328, 33806, 19402, 10543], -3, 1, 2.1310678117940807),
    ([0, 3, 10, 4, 1], 0, 25, 0.44043752724210256),
    ([2, 0, 5, 0, 0], 0, 10, -0.20427429364195904),
]
# (losses, draws, wins), elo0, elo1, fishtest's SPRT_elo: elo, [low, high] (alpha = beta = 0.05)
ESTIMATES: list[tuple[list[int], float, float, float, tuple[float, float]]] = [
    ([591, 2163, 716], 0, 6, 11.517131878059484, (2.588886711267586, 20.337326030110617)),
    ([30, 25, 70], 0, 25, 110.56289076141613, (49.89991492828882, 178.32952690856192)),
    ([300, 400, 210], 0, 10, -32.77490489496588, (-56.01472309564706, -9.730935342480603)),
    ([40, 30, 30], 0, 25, -34.86004564656258, (-93.502229460965, 21.850124583160124)),
]


@pytest.mark.parametrize(("counts", "elo0", "elo1", "expected"), TRINOMIAL)
def test_trinomial_llr_is_fishtests(
    counts: list[int], elo0: float, elo1: float, expected: float
) -> None:
    losses, draws, wins = counts
    assert sprt.llr(wins, draws, losses, elo0, elo1) == pytest.approx(expected, abs=1e-9)
    s0, s1 = sprt.expected_score(elo0), sprt.expected_score(elo1)
    assert llr(counts, s0, s1) == pytest.approx(expected, abs=1e-9)
    # The arrays' path (the simulations') gives the same.
    assert float(llr_trinomial(losses, draws, wins, s0, s1)) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(("counts", "elo0", "elo1", "expected"), PENTANOMIAL)
def test_pentanomial_llr_is_fishtests(
    counts: list[int], elo0: float, elo1: float, expected: float
) -> None:
    s0, s1 = sprt.expected_score(elo0), sprt.expected_score(elo1)
    assert llr(counts, s0, s1) == pytest.approx(expected, abs=1e-9)


def test_the_closed_form_matches_the_bisection() -> None:
    """The trinomial's quadratic, for whole arrays, against the bisection any number of
    outcomes takes."""
    rng = np.random.default_rng(5)
    counts = rng.integers(0, 30, (200, 3))
    counts[:20, 0] = 0  # tables with an outcome never seen
    counts[20:30] = [0, 7, 0]
    counts[30:35] = 0
    for elo0, elo1 in ((0, 5), (-350, -300), (100, 300), (-20, 80)):
        s0, s1 = sprt.expected_score(elo0), sprt.expected_score(elo1)
        closed = llr_trinomial(counts[:, 0], counts[:, 1], counts[:, 2], s0, s1)
        for row, value in zip(counts, closed, strict=True):
            assert float(value) == pytest.approx(llr_any(list(row), s0, s1), abs=1e-9)


def test_llr_edge_cases() -> None:
    assert sprt.llr(0, 0, 0, 0, 5) == 0.0
    # A streak's exact LLR is bounded: each win at most log(s1 / s0).
    bound = math.log(sprt.expected_score(5) / 0.5)
    assert 0 < sprt.llr(2, 0, 0, 0, 5) <= 2 * bound + 1e-9
    assert sprt.llr(0, 0, 2, 0, 5) < 0
    # Identical bots in duplicate pairs draw every unit: no better, so towards H0.
    assert sprt.llr(0, 400, 0, 0, 5) < sprt.bounds(0.05, 0.05)[0]
    # Swapping wins and losses about symmetric bounds flips the sign.
    assert sprt.llr(15, 25, 60, -5, 5) == pytest.approx(-sprt.llr(60, 25, 15, -5, 5))
    with pytest.raises(ValueError, match="2 or more counts"):
        llr([3], 0.5, 0.6)


def test_the_ladder_estimates_the_overshoot_from_the_path() -> None:
    path = [0.3, 0.1, 0.5, 0.4, -0.2, 0.9, -0.5]
    ladder = Ladder()
    for value in path:
        ladder = ladder.step(value)
    # Rises above the highest so far: 0.3, 0.2, 0.4; falls below the lowest: -0.2, -0.3.
    assert ladder.to_list() == pytest.approx([-0.5, -0.5, 0.13, 0.9, 0.9, 0.29])
    o0, o1 = ladder.corrections()
    assert (o0, o1) == pytest.approx((0.13 / 0.5 / 2, 0.29 / 0.9 / 2))
    assert Ladder().corrections() == (0.0, 0.0)
    # The same, many paths at once, in two pieces.
    paths = np.array([path, [-x for x in path]])
    first, _, middle = corrections_along(paths[:, :3], np.zeros((2, 6)))
    o0s, o1s, last = corrections_along(paths[:, 3:], middle)
    assert last[0] == pytest.approx(ladder.to_list())
    assert (o0s[0, -1], o1s[0, -1]) == pytest.approx((o0, o1))
    assert (o0s[1, -1], o1s[1, -1]) == pytest.approx((o1, o0))
    assert first.shape == (2, 3)


@pytest.mark.parametrize(
    ("elo0", "elo1", "allowed"),
    [
        (0, 5, True),
        (-400, -350, True),
        (350, 400, True),
        (0, sprt.WIDTH_LIMIT, True),
        (0, sprt.WIDTH_LIMIT + 1, False),
        (0, 200, False),
        (-401, -360, False),
        (360, 401, False),
        (5, 5, False),
    ],
)
def test_bounds_outside_the_tested_range_are_refused(
    elo0: float, elo1: float, allowed: bool
) -> None:
    refused = sprt.check_bounds(elo0, elo1)
    assert (refused is None) == allowed
    if refused and elo0 < elo1:
        assert f"from -{sprt.ELO_LIMIT:g} to {sprt.ELO_LIMIT:g} Elo" in refused
        assert f"at most {sprt.WIDTH_LIMIT:g} above elo0" in refused


@pytest.mark.parametrize(("counts", "elo0", "elo1", "elo", "interval"), ESTIMATES)
def test_estimate_is_fishtests(
    counts: list[int], elo0: float, elo1: float, elo: float, interval: tuple[float, float]
) -> None:
    losses, draws, wins = counts
    found = estimate(losses, draws, wins, elo0, elo1, 0.05, 0.05)
    assert found.elo == pytest.approx(elo, abs=0.01)
    assert (found.low, found.high) == pytest.approx(interval, abs=0.01)


def test_estimate_of_a_stopped_test_sits_on_its_bound() -> None:
    # 40 wins, 30 draws, 30 losses at 0/25 ran past neither bound's approximation; told
    # that it accepted H1 the estimate rises, told H0 it falls.
    going = estimate(30, 30, 40, 0, 25, 0.05, 0.05)
    passed = estimate(30, 30, 40, 0, 25, 0.05, 0.05, stopped=1)
    failed = estimate(30, 30, 40, 0, 25, 0.05, 0.05, stopped=-1)
    assert failed.elo < going.elo < passed.elo
    for e in (going, passed, failed):
        assert e.low < e.elo < e.high
    nothing = estimate(0, 0, 0, 0, 5, 0.05, 0.05)
    assert (nothing.elo, nothing.low, nothing.high) == (0.0, 0.0, 0.0)


# --- by simulation --------------------------------------------------------------------
#
# alpha = beta = 0.05, a draw rate of 0.3. A measured rate over n runs is within 3
# binomial standard errors, sqrt(p (1 - p) / n), of the nominal rate but for a 0.3%
# chance when the test keeps its promise; the seeds are fixed, so a pass stays a pass.

DRAW_RATE = 0.3


def check_error_rates(
    elo0: float, elo1: float, runs: int, seed: int, draw_rate: float = DRAW_RATE
) -> None:
    for elo, wrong, nominal in ((elo0, H1, 0.05), (elo1, H0, 0.05)):
        sim = simulate(elo, draw_rate, elo0, elo1, 0.05, 0.05, runs, 10**6, seed)
        assert sim.rate(INCONCLUSIVE) == 0
        tolerance = 3 * math.sqrt(nominal * (1 - nominal) / runs)
        assert abs(sim.rate(wrong) - nominal) <= tolerance, (elo0, elo1, elo, sim.rate(wrong))
        seed += 1


def check_coverage(elo0: float, elo1: float, truth: float, runs: int, seed: int) -> None:
    sim = simulate(truth, DRAW_RATE, elo0, elo1, 0.05, 0.05, runs, 10**6, seed)
    found = []
    for i in range(runs):
        losses, draws, wins = (int(c) for c in sim.counts[i])
        verdict = int(sim.verdicts[i])
        found.append(estimate(losses, draws, wins, elo0, elo1, 0.05, 0.05, verdict))
    covered = float(np.mean([f.low <= truth <= f.high for f in found]))
    median = float(np.median([f.elo for f in found]))
    assert 0.93 <= covered <= 0.97, (elo0, elo1, truth, covered)
    assert abs(median - truth) <= (elo1 - elo0) / 4, (elo0, elo1, truth, median)


def test_error_rates_are_alpha_and_beta_by_simulation() -> None:
    # 0/50 decides in about 180 units; 3000 runs each way: a standard error of 0.004.
    check_error_rates(0, 50, 3000, seed=11)


def test_the_estimate_covers_by_simulation() -> None:
    check_coverage(0, 50, 25, 400, seed=21)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("elo0", "elo1", "draw_rate", "runs"),
    [
        (0, 10, 0.3, 4000),
        (0, 25, 0.3, 10000),
        (0, 50, 0.3, 10000),
        (-25, 25, 0.3, 10000),
        (0, 50, 0.1, 10000),
        (350, 400, 0.1, 10000),
        (-400, -350, 0.1, 10000),
    ],
)
def test_error_rates_at_many_bounds_by_simulation(
    elo0: float, elo1: float, draw_rate: float, runs: int
) -> None:
    check_error_rates(elo0, elo1, runs, seed=31, draw_rate=draw_rate)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("elo0", "elo1", "truth"), [(0, 25, 0), (0, 25, 12.5), (0, 25, 25), (0, 50, 0)]
)
def test_the_estimate_covers_at_many_bounds_by_simulation(
    elo0: float, elo1: float, truth: float
) -> None:
    check_coverage(elo0, elo1, truth, 1500, seed=41)


# --- five outcomes of a pair ---------------------------------------------------------

FIVE_SHAPE = (0.05, 0.25, 0.15, 0.4, 0.15)
"""A pair's five levels between two versions of one bot (``bench.sprt_error_rates``)."""


def test_the_arrays_llr_is_the_bisections_for_any_number_of_outcomes() -> None:
    rng = np.random.default_rng(3)
    for k in (2, 3, 5):
        tables = rng.integers(0, 40, (300, k))
        tables[::7, 0] = 0
        tables[::11] = 0
        for s0, s1 in ((0.5, 0.507), (0.2, 0.25), (0.9, 0.93)):
            one_by_one = [llr_any([int(c) for c in t], s0, s1) for t in tables]
            assert llr_arrays(tables, s0, s1) == pytest.approx(one_by_one, abs=1e-9)
    assert sprt.llr_levels([0, 3, 10, 4, 1], 0, 25) == pytest.approx(0.44043752724210256)


def test_a_tilted_shape_has_the_score_asked_for() -> None:
    for elo in (-200.0, 0.0, 5.0, 50.0):
        chances = tilted(FIVE_SHAPE, elo)
        assert sum(chances) == pytest.approx(1.0)
        assert float(np.dot(chances, [0, 0.25, 0.5, 0.75, 1])) == pytest.approx(
            sprt.expected_score(elo), abs=1e-9
        )


def test_five_outcome_error_rates_and_coverage_by_simulation() -> None:
    """The format's pair path (pentanomial LLR, the same overshoot correction): alpha
    and beta within 3 standard errors at 0/50 (1000 runs each way), and the estimate
    from the five counts covering the truth halfway between."""
    runs = 1000
    for elo, wrong, seed in ((0.0, H1, 51), (50.0, H0, 52)):
        sim = simulate_outcomes(tilted(FIVE_SHAPE, elo), 0, 50, 0.05, 0.05, runs, 10**6, seed)
        assert sim.rate(INCONCLUSIVE) == 0
        assert abs(sim.rate(wrong) - 0.05) <= 3 * math.sqrt(0.05 * 0.95 / runs), sim.rate(wrong)
    sim = simulate_outcomes(tilted(FIVE_SHAPE, 25.0), 0, 50, 0.05, 0.05, 300, 10**6, 53)
    found = [
        estimate_counts([int(c) for c in sim.counts[i]], 0, 50, 0.05, 0.05, int(sim.verdicts[i]))
        for i in range(300)
    ]
    covered = float(np.mean([f.low <= 25.0 <= f.high for f in found]))
    assert 0.93 <= covered <= 0.97, covered
    assert abs(float(np.median([f.elo for f in found])) - 25.0) <= 12.5
