"""The sequential probability ratio test on unit outcomes, as fishtest runs it.

Each rated unit (a duplicate pair, or a match in open play) ends in a win, a draw or a
loss for the first entry, scored 1, 1/2, 0. The test asks whether the first entry's
expected score ``s`` is that of ``elo1`` (H1) or of ``elo0`` (H0), with logistic Elo:
``s = 1 / (1 + 10**(-elo / 400))``. The trinomial's draw rate is a nuisance parameter,
so this is the generalised SPRT (fishtest's ``LLR_logistic``): the likelihood of each
hypothesis is taken at the outcome distribution closest to the observed one whose mean
is ``s0`` (or ``s1``). For ``s1 - s0`` small, as Elo bounds always make it, that
log-likelihood ratio is, to second order (fishtest's ``LLR_alt2``, and
http://hardy.uhasselt.be/Fishtest/GSPRT_approximation.pdf)::

    LLR = N * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)

with ``mean`` and ``var`` the observed score mean and variance over ``N`` units. The
test stops at ``LLR >= log((1 - beta) / alpha)`` (H1) or ``LLR <= log(beta / (1 - alpha))``
(H0): Wald's bounds, which keep the two error rates at most about ``alpha`` and ``beta``.

Regularisation: an outcome never seen yet is counted as ``EMPTY`` (half a unit), as
fishtest counts it 1e-3. Fishtest only looks at the LLR after batches of hundreds of
games; here it is looked at after every unit, and with 1e-3 two straight wins would make
``var`` about 6e-4 and the LLR about 11, accepting H1 at once: ``simulate`` then has 18%
of tests between equal entries accept H1 at 0/5 bounds (a draw rate of 0.3), where it
should be 5%. Half a unit keeps a short streak's LLR near 0, and a table in which all
three outcomes were seen is taken exactly as the formula says.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Z95 = 1.959963984540054
EMPTY = 0.5
"""What an outcome not seen yet counts as, in units (see the module's docstring)."""
ELO_CLAMP = 1e-3
"""A mean score is kept within [ELO_CLAMP, 1 - ELO_CLAMP] before it becomes Elo (1200)."""

Counts = npt.NDArray[np.float64]
H0, H1, INCONCLUSIVE = -1, 1, 0
"""Verdicts in ``Simulation.verdicts``."""


def expected_score(elo: float) -> float:
    """The logistic model's expected score at an Elo difference of ``elo``."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def elo_of(score: float) -> float:
    """The inverse of ``expected_score``, clamped (a perfect score has no finite Elo)."""
    score = min(max(score, ELO_CLAMP), 1.0 - ELO_CLAMP)
    return -400.0 * math.log10(1.0 / score - 1.0)


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (lower, upper) LLR bounds: accept H0 at or below lower, H1 at or above upper."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _stats(wins: Counts, draws: Counts, losses: Counts) -> tuple[Counts, Counts, Counts]:
    """Units, score mean and score variance, the empty outcomes regularised."""
    w, d, l_ = (np.where(c == 0, EMPTY, c) for c in (wins, draws, losses))
    n = w + d + l_
    mean = (w + 0.5 * d) / n
    var = (w * (1.0 - mean) ** 2 + d * (0.5 - mean) ** 2 + l_ * mean**2) / n
    return n, mean, var


def llr_many(wins: Counts, draws: Counts, losses: Counts, elo0: float, elo1: float) -> Counts:
    """``llr`` for arrays of counts (any shape), element by element."""
    wins, draws, losses = (np.asarray(c, dtype=np.float64) for c in (wins, draws, losses))
    s0, s1 = expected_score(elo0), expected_score(elo1)
    n, mean, var = _stats(wins, draws, losses)
    result: Counts = n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
    return np.where(wins + draws + losses == 0, 0.0, result)


def llr(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """The log-likelihood ratio of H1 (Elo ``elo1``) against H0 (``elo0``); 0 with no unit."""
    one = np.array([wins, draws, losses], dtype=np.float64)
    return float(llr_many(one[0:1], one[1:2], one[2:3], elo0, elo1)[0])


def elo_estimate(wins: int, draws: int, losses: int) -> tuple[float, float]:
    """The first entry's Elo over the second and the half-width of its 95% interval.

    As fishtest's ``get_elo``: the interval of the mean score (normal, ``var / N``) mapped
    through ``elo_of``, half its span. (0, 0) with no unit: nothing is known yet.
    """
    if wins + draws + losses == 0:
        return 0.0, 0.0
    one = np.array([wins, draws, losses], dtype=np.float64)
    n, mean, var = (float(x[0]) for x in _stats(one[0:1], one[1:2], one[2:3]))
    half = Z95 * math.sqrt(var / n)
    return elo_of(mean), (elo_of(mean + half) - elo_of(mean - half)) / 2.0


def overshoot(elo0: float, elo1: float, draw_rate: float) -> float:
    """The LLR's expected overshoot of a bound, for entries between ``elo0`` and ``elo1``:
    Siegmund's 0.583 times the per-unit LLR step's spread, ``(s1 - s0) / sd``, as
    fishtest estimates it. ``draw_rate`` sets the score's spread ``sd``."""
    s0, s1 = expected_score(elo0), expected_score(elo1)
    s = (s0 + s1) / 2
    sd = math.sqrt(s - draw_rate / 2 + draw_rate / 4 - s * s)
    return 0.583 * (s1 - s0) / sd


def wald_error_rates(alpha: float, beta: float, overshoot: float = 0.0) -> tuple[float, float]:
    """The error rates Wald's approximation predicts when the LLR stops ``overshoot``
    past either bound: a little below ``alpha`` and ``beta``, since the test stops only
    once the evidence went further than the bound."""
    lower, upper = bounds(alpha, beta)
    b, a = math.exp(lower - overshoot), math.exp(upper + overshoot)
    return (1 - b) / (a - b), b * (a - 1) / (a - b)


@dataclass(frozen=True)
class Simulation:
    verdicts: npt.NDArray[np.int8]
    """Per run: H1, H0, or INCONCLUSIVE (``max_units`` reached)."""
    units: npt.NDArray[np.int64]
    """Per run: units scored when it stopped."""

    def rate(self, verdict: int) -> float:
        return float(np.mean(self.verdicts == verdict))


def simulate(
    elo: float,
    draw_rate: float,
    elo0: float,
    elo1: float,
    alpha: float,
    beta: float,
    runs: int,
    max_units: int,
    seed: int = 0,
    chunk: int = 2**19,
) -> Simulation:
    """``runs`` independent tests between entries ``elo`` apart, the LLR checked after
    every unit, as the SPRT format checks it. The runs still going draw their next units
    together, about ``chunk`` outcomes a step (arrays that stay in cache: 3-5x faster
    than steps of 512 units for 8000 runs), so a run costs numpy work, not Python loops."""
    s = expected_score(elo)
    p_win, p_loss = s - draw_rate / 2, 1 - s - draw_rate / 2
    if min(p_win, p_loss) < 0:
        raise ValueError("the draw rate leaves no room for that expected score")
    lower, upper = bounds(alpha, beta)
    rng = np.random.default_rng(seed)
    verdicts = np.zeros(runs, dtype=np.int8)
    units = np.full(runs, max_units, dtype=np.int64)
    counts = np.zeros((runs, 3), dtype=np.float64)  # wins, draws, losses so far
    active = np.arange(runs)
    done = 0
    while active.size and done < max_units:
        size = min(max(chunk // active.size, 16), max_units - done)
        u = rng.random((active.size, size))
        wins = counts[active, 0:1] + np.cumsum(u < p_win, axis=1)
        losses = counts[active, 2:3] + np.cumsum(u >= 1 - p_loss, axis=1)
        draws = done + np.arange(1, size + 1) - wins - losses
        ratio = llr_many(wins, draws, losses, elo0, elo1)
        crossed = (ratio >= upper) | (ratio <= lower)
        stopped = crossed.any(axis=1)
        at = np.argmax(crossed, axis=1)[stopped]
        runs_stopped = active[stopped]
        verdicts[runs_stopped] = np.where(ratio[stopped, at] >= upper, H1, H0)
        units[runs_stopped] = done + at + 1
        counts[active, 0], counts[active, 1], counts[active, 2] = (
            wins[:, -1],
            draws[:, -1],
            losses[:, -1],
        )
        active = active[~stopped]
        done += size
    return Simulation(verdicts, units)
