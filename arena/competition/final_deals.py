"""How many deals the final round robin plays: enough for adjacent ranks to be separated
at the rules' LOS, where the budget allows, from the open ladder's board (pure).

The model is the rating fit's own (``arena.ratings.elo``): each duplicate pair is won,
drawn or lost with BayesElo's probabilities at the two versions' Elo difference and the
board's draw margin. The ladder's ratings of the final versions are taken as their true
strengths, ordered best first, and each adjacent gap as the effect to detect.

1. **Information.** One duplicate pair at difference ``x`` carries Fisher information
   ``I(x) = sum over win, draw, loss of P'(x)^2 / P(x)`` on the difference. A round
   robin with one deal per pairing in one game gives the ratings the information matrix
   ``L = sum over pairings of I(r_i - r_j) (e_i - e_j)(e_i - e_j)^T`` (a weighted graph
   Laplacian: every pairing informs every gap, not only the adjacent one), so the
   difference ``a - b`` of the fitted ratings has variance ``v = u^T L^+ u`` with
   ``u = e_a - e_b``. ``deals`` deals per pairing in each of ``games`` games, and the
   final board's rating being the mean of the games' (``arena.ratings.overall``), divide
   it by ``deals * games``.
2. **Separation.** The final's LOS for the pair is ``Phi(d / sd)`` of its measured
   difference ``d ~ N(gap, sd^2)``: it reaches ``los`` with chance
   ``Phi(gap / sd - z_los)``. A pair *is separated* at ``deals`` when that chance is at
   least ``POWER``; it needs ``ceil((z_los + z_power)^2 v / (games gap^2))`` deals.
3. **Wide gaps.** Past ``peak_gap`` (about 430 Elo) a pair is almost always won, and
   a wider gap is no easier to show: gaps wider than it are taken as it. Versions that
   far apart sweep their pairs, and the fit's LOS of a clean sweep grows with its pairs
   alone (its ratings run off to the prior's bounds), so no pair needs fewer deals than
   a field of clean sweeps needs to show the target (``sweep_floor``: 17 deals for two
   versions in one game at 0.95, 8 for four). Only wide gaps meet that floor: a narrow
   one needs more than it anyway.
4. **The choice.** The most any adjacent pair needs, clamped to the budget (at most
   ``most``: the rules' ``final_deals``, within the tournament limit). Pairs needing
   more than the budget are reported as predicted ties. A final version without a
   rating on the ladder's board (or no board) leaves its gaps unknown: the budget.

Approximations, stated: each game is taken to have the overall board's gaps and draw
margin; the draw margin is taken as known (its estimate is uncorrelated with a
difference between equals); the fit's Gaussian approximation, rough for a few deals
(with 2, the predicted chance of 0.14 was 0.07-0.13 simulated); and the ladder's gaps
taken at face value. A provisional rating's gap runs ahead of the truth
(``arena.ratings.board.MIN_PAIRS``), but the ladder's noise mostly errs the other way:
its smallest adjacent gap, which sets the choice, is often smaller than the truth's, so
more deals are chosen. ``bench.final_deals`` measures the predictions against simulated
finals (``bench/README.md``).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from arena.ratings.board import Leaderboard, is_ranked
from arena.ratings.compare import los as compare_los
from arena.ratings.elo import K, fit_counts
from arena.tournament.spec import MAX_DEALS

POWER = 0.8
"""The chance, in the model, that the final's LOS of an adjacent pair reaches the target:
a choice aimed at the median (one half) would leave half the finals short of it."""
_NORMAL = NormalDist()


@dataclass(frozen=True)
class Gap:
    """Two final versions adjacent in the ladder's order, as the choice sees them."""

    above: str
    below: str
    elo: float
    """The ladder's Elo of ``above`` less that of ``below`` (0 or more)."""
    needs: int | None
    """Deals per pairing and game for it to be separated; None: no number will do (no
    gap, or more than ``MAX_DEALS``)."""
    chance: float
    """The model's chance that the final's LOS of ``above`` over ``below`` reaches the
    target at the deals chosen (step 2, the gap capped at ``peak_gap``)."""


@dataclass(frozen=True)
class DealsChoice:
    """The final's deals per pairing and game, and why: recorded with its versions."""

    deals: int
    reason: str
    """Why that many, in a sentence, for ``arena competition show``."""
    gaps: tuple[Gap, ...] = ()
    """Adjacent gaps best first; empty when some version has no ladder rating."""

    @property
    def predicted_ties(self) -> tuple[Gap, ...]:
        """The adjacent pairs the deals chosen are predicted not to separate."""
        return tuple(g for g in self.gaps if g.needs is None or g.needs > self.deals)


def unit_information(gap: float, draw_elo: float) -> float:
    """Fisher information on the Elo difference of one duplicate pair's outcome:
    ``P'^2 / P`` summed over win, draw and loss, with ``P'`` by the difference."""
    p_win = _f(gap - draw_elo)
    p_loss = _f(-gap - draw_elo)
    p_draw = 1.0 - p_win - p_loss
    slope_win = K * p_win * (1 - p_win)
    slope_loss = K * p_loss * (1 - p_loss)
    info = K * slope_win * (1 - p_win) + K * slope_loss * (1 - p_loss)  # slope^2 / p
    if p_draw > 1e-12:  # without draws (margin 0) the slopes are equal: no term
        info += (slope_loss - slope_win) ** 2 / p_draw
    return info


def difference_variances(elo: Sequence[float], draw_elo: float) -> list[float]:
    """Variance of each adjacent difference (``elo`` best first) from a round robin of
    one deal per pairing in one game."""
    n = len(elo)
    laplacian = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            w = unit_information(elo[i] - elo[j], draw_elo)
            laplacian[i, i] += w
            laplacian[j, j] += w
            laplacian[i, j] -= w
            laplacian[j, i] -= w
    covariance = np.linalg.pinv(laplacian)
    return [
        float(covariance[i, i] + covariance[i + 1, i + 1] - 2 * covariance[i, i + 1])
        for i in range(n - 1)
    ]


def chance(gap: float, variance: float, deals: int, games: int, los: float) -> float:
    """The chance that the final's LOS of a pair ``gap`` apart reaches ``los``."""
    sd = math.sqrt(variance / (deals * games))
    return _NORMAL.cdf(gap / sd - _NORMAL.inv_cdf(los))


def needs(gap: float, variance: float, games: int, los: float, power: float = POWER) -> int | None:
    """Deals per pairing and game for the pair to be separated; None for no gap."""
    if gap <= 0:
        return None
    z = _NORMAL.inv_cdf(los) + _NORMAL.inv_cdf(power)
    return max(math.ceil(z * z * variance / (games * gap * gap) - 1e-9), 1)


@functools.cache
def peak_gap(draw_elo: float) -> float:
    """The gap at which one pair tells the most about which side is stronger,
    ``argmax x^2 I(x)`` (about 430 Elo): past it, outcomes are so one-sided that the
    fit's difference grows less certain faster than it grows (the Hauck-Donner effect),
    and a wider gap is no harder to separate than this one."""
    return float(max(range(1, 2001), key=lambda x: x * x * unit_information(x, draw_elo)))


@functools.cache
def sweep_floor(versions: int, games: int, los: float) -> int | None:
    """The fewest deals at which a final where every version wins every pair against
    those below it shows LOS ``los`` between adjacent ranks (the fit's prior bounds a
    clean sweep's rating, so its LOS grows with the pairs alone: 0.92 for 8 pairs
    between two versions, 0.96 for 20); None past ``MAX_DEALS``. A final of versions
    far apart plays that: its pairs are sweeps. Cached: a sweep's fit is slow to
    converge (its ratings run off to the prior's bounds), tens of milliseconds."""
    names = [f"v{i:02}" for i in range(versions)]

    def shows(deals: int) -> bool:
        counts = {(a, b): (deals, 0, 0) for a, b in itertools.combinations(names, 2)}
        table = fit_counts(counts)
        elo, c = table.by_player(), table.covariance
        for a, b in itertools.pairwise(names):
            sd = math.sqrt(max(c[a, a] + c[b, b] - 2 * c[a, b], 0.0) / games)
            if compare_los(elo[a].elo - elo[b].elo, sd) < los:
                return False
        return True

    if not shows(MAX_DEALS):
        return None
    low, high = 1, MAX_DEALS  # the LOS of a sweep grows with its pairs
    while low < high:
        middle = (low + high) // 2
        low, high = (low, middle) if shows(middle) else (middle + 1, high)
    return low


def choose_deals(
    board: Leaderboard | None,
    versions: Sequence[str],
    games: int,
    most: int,
    los: float,
    power: float = POWER,
) -> DealsChoice:
    """The final's deals per pairing and game for ``versions`` (``name@version``) in
    ``games`` games, from the open ladder's ``board``: at most ``most``; ``ValueError``
    for a ``most`` or ``games`` under 1, or ``los`` or ``power`` not strictly between
    0.5 and 1."""
    if most < 1 or games < 1:
        raise ValueError(f"the budget and the games must be at least 1, got {most} and {games}")
    for name, value in (("los", los), ("power", power)):
        if not 0.5 < value < 1:
            raise ValueError(f"{name} must be above 0.5 and below 1, got {value}")
    budget = f"the budget, {_deals(most)}"
    if len(versions) < 2:
        return DealsChoice(most, f"{budget}: fewer than two final versions")
    rows = {r.bot: r for r in board.rows if is_ranked(r)} if board is not None else {}
    unrated = sorted(v for v in versions if v not in rows or rows[v].group != 1)
    if unrated:
        names = _listed(unrated)
        return DealsChoice(
            most, f"{budget}: {names} {_has(unrated)} no rating on the open ladder's board"
        )
    assert board is not None
    order = sorted(versions, key=lambda v: (-rows[v].elo, v))
    measured = [rows[v].elo - rows[w].elo for v, w in itertools.pairwise(order)]
    peak = peak_gap(board.draw_elo)
    effective = [min(gap, peak) for gap in measured]
    elo = [0.0, *(-x for x in itertools.accumulate(effective))]  # the field, gaps capped
    variances = difference_variances(elo, board.draw_elo)
    floor = sweep_floor(len(order), games, los) if max(measured) > 0 else None
    wanted = []
    for gap, variance in zip(effective, variances, strict=True):
        need = needs(gap, variance, games, los, power)
        wanted.append(None if need is None or floor is None else max(need, floor))
    deals = int(min(max((w if w is not None else math.inf) for w in wanted), most))
    gaps = tuple(
        Gap(
            order[i],
            order[i + 1],
            measured[i],
            wanted[i],
            chance(effective[i], variances[i], deals, games, los),
        )
        for i in range(len(order) - 1)
    )
    choice = DealsChoice(deals, "", gaps)
    return DealsChoice(deals, _reason(choice, most, los, power), gaps)


def _reason(choice: DealsChoice, most: int, los: float, power: float) -> str:
    target = f"LOS {los:g} in {power:.0%} of finals"
    short = choice.predicted_ties
    if not short:
        hardest = max(choice.gaps, key=lambda g: (g.needs or 0, -g.elo))
        return (
            f"{_deals(choice.deals)}: what {_gap(hardest, True)} needs for {target} "
            f"(the budget: {_deals(most)})"
        )
    listed = ", ".join(
        _gap(g, i == 0, f"needs {g.needs:,}" if g.needs else _never(g)) for i, g in enumerate(short)
    )
    return f"the budget, {_deals(most)}: predicted short of {target}: {listed}"


def _gap(gap: Gap, first: bool, then: str = "") -> str:
    where = " on the open ladder" if first else ""
    return f"{gap.above} over {gap.below} ({gap.elo:+.0f} Elo{where}" + (
        f", {then})" if then else ")"
    )


def _never(gap: Gap) -> str:
    return "no gap" if gap.elo <= 0 else f"needs more than {MAX_DEALS:,}"


def _deals(n: int) -> str:
    return f"{n:,} deal{'' if n == 1 else 's'}"


def _listed(names: Sequence[str]) -> str:
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def _has(names: Sequence[str]) -> str:
    return "has" if len(names) == 1 else "have"


def _f(x: float) -> float:
    """The model's expected score at ``x`` Elo, as the fit computes it (no overflow)."""
    return 0.5 * (1.0 + math.tanh(0.5 * K * x))
