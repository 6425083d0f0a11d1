"""The sequential probability ratio test on unit outcomes, as fishtest runs it.

Each rated unit (a duplicate pair, scored by the sign of its total margin, or a match in
open play) ends in a win, a draw or a loss for the first entry, scored 1, 1/2, 0; a
duplicate pair read in five outcomes (``arena.ratings.duplicate``: won both halves, won
on the total only, level, and the mirror) is scored 1, 3/4, 1/2, 1/4, 0, and its LLR is
the pentanomial one (``llr_levels``). The
test asks whether the first entry's expected score ``s`` is that of ``elo1`` (H1) or of
``elo0`` (H0), with logistic Elo: ``s = 1 / (1 + 10**(-elo / 400))``. The draw rate is
a nuisance parameter, so this is the generalised SPRT: its exact log-likelihood ratio
(``arena.ratings.sprt_llr``, fishtest's ``LLR_logistic``), checked after every unit,
stops the test at ``LLR >= log((1 - beta) / alpha) - o1`` (H1) or
``LLR <= log(beta / (1 - alpha)) + o0`` (H0): Wald's bounds, brought in by the expected
overshoot estimated from the path so far (``arena.ratings.sprt_overshoot``), so that the
error rates come out at alpha and beta rather than below. The Elo shown at the stop is
median-unbiased (``arena.ratings.sprt_estimate``). ``check_bounds`` says which Elo
bounds the test takes: those where simulation (``bench/sprt_error_rates.py``) found the
error rates and the estimate's coverage as promised.

``elo_estimate`` is the plain estimate of a fixed number of units (``arena test
--games``), where no stopping rule biases it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from arena.ratings import sprt_llr

Z95 = 1.959963984540054
EMPTY = 0.5
"""What an outcome not seen yet counts as in ``elo_estimate``, in units: a short streak
keeps a finite, modest estimate."""
ELO_CLAMP = 1e-3
"""A mean score is kept within [ELO_CLAMP, 1 - ELO_CLAMP] before it becomes Elo (1200)."""
ELO_LIMIT = 400.0
"""The largest |elo0| and |elo1| an SPRT takes."""
WIDTH_LIMIT = 50.0
"""The largest elo1 - elo0 an SPRT takes."""

Counts = npt.NDArray[np.float64]


def expected_score(elo: float) -> float:
    """The logistic model's expected score at an Elo difference of ``elo``."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def elo_of(score: float) -> float:
    """The inverse of ``expected_score``, clamped (a perfect score has no finite Elo)."""
    score = min(max(score, ELO_CLAMP), 1.0 - ELO_CLAMP)
    return -400.0 * math.log10(1.0 / score - 1.0)


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (lower, upper) LLR bounds, before the overshoot correction."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def check_bounds(elo0: float, elo1: float) -> str | None:
    """Why an SPRT cannot test ``elo0`` against ``elo1``, or None if it can."""
    if elo0 >= elo1:
        return f"an SPRT needs elo0 < elo1; got elo0 {elo0:g}, elo1 {elo1:g}"
    if max(abs(elo0), abs(elo1)) > ELO_LIMIT or elo1 - elo0 > WIDTH_LIMIT:
        return (
            f"SPRT bounds are from -{ELO_LIMIT:g} to {ELO_LIMIT:g} Elo, elo1 at most "
            f"{WIDTH_LIMIT:g} above elo0; got elo0 {elo0:g}, elo1 {elo1:g} (wider, one unit "
            "moves the LLR too far for the error rates to stay at alpha and beta; beyond "
            "400, nothing was checked: docs/formats.md#sprt)"
        )
    return None


def llr(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """The exact log-likelihood ratio of H1 (Elo ``elo1``) against H0 (``elo0``); 0 with
    no unit."""
    return sprt_llr.llr([losses, draws, wins], expected_score(elo0), expected_score(elo1))


def llr_levels(levels: Sequence[float], elo0: float, elo1: float) -> float:
    """The exact LLR of five-outcome units, counted by level (0, lost both halves, first;
    scored ``level / 4``): fishtest's pentanomial ``LLR_logistic``; 0 with no unit."""
    if len(levels) != 5:
        raise ValueError(f"five-outcome units have 5 levels; got {list(levels)}")
    return sprt_llr.llr(levels, expected_score(elo0), expected_score(elo1))


def _stats(wins: Counts, draws: Counts, losses: Counts) -> tuple[Counts, Counts, Counts]:
    """Units, score mean and score variance, the empty outcomes regularised."""
    w, d, l_ = (np.where(c == 0, EMPTY, c) for c in (wins, draws, losses))
    n = w + d + l_
    mean = (w + 0.5 * d) / n
    var = (w * (1.0 - mean) ** 2 + d * (0.5 - mean) ** 2 + l_ * mean**2) / n
    return n, mean, var


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
