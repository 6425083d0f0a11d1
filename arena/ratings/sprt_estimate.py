"""The Elo difference an SPRT measured, without the bias its stopping rule gives.

A test stops when its evidence is extreme, so the plain estimate at the stop (the mean
score's Elo) leans away from the middle: between equal entries at 0/25 bounds its
median is about -5 Elo, and its 95% interval covers the truth in about 91% of tests.
This is fishtest's median-unbiased estimate (``SPRT_elo``; ``sprt.py`` there): the LLR
is taken as a Brownian motion (``arena.ratings.sprt_brownian``) whose drift depends on
the true expected score ``s`` — per unit ``(s - (s0 + s1) / 2) (s1 - s0) / v`` with
variance ``(s1 - s0)**2 / v``, ``v`` the observed score variance — and the estimate is
the Elo at which an outcome worse than the one observed has probability 1/2; the 95%
interval's ends are the Elo at which it has 0.975 and 0.025. The observed outcome is the
LLR of that same approximation at the units so far, ``(T, y) = (N, N * drift)``; past a
bound it is put on the bound at the time its slope reaches it, and a test that stopped
is put on the bound it stopped at. One difference from fishtest: an outcome not seen
yet counts as half a unit (``UNSEEN``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.ratings.sprt_brownian import Brownian

ELO_RANGE = (-1200.0, 1200.0)
"""Where the estimate's ends are looked for; an end beyond is shown at the limit."""
TOLERANCE = 1e-3
"""In Elo: how closely each end is found."""
UNSEEN = 0.5
"""What an outcome not seen yet counts as here, in units. fishtest's 0.001 (which the
LLR keeps) makes the spread of a short streak nearly 0 and its estimate extreme: one
loss would read about -1130 Elo; half a unit keeps it modest. Once all three outcomes
have been seen, as at the stop of nearly every test, it changes nothing."""


@dataclass(frozen=True)
class Estimate:
    elo: float
    """Median-unbiased: as likely above the truth as below it."""
    low: float
    high: float
    """The 95% interval's ends (not symmetric about ``elo``)."""


def _score(elo: float) -> float:
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def _bisect(f: Callable[[float], float], low: float, high: float) -> float:
    """The root of a decreasing ``f`` in [low, high], or the end it is nearest."""
    if f(low) <= 0:
        return low
    if f(high) >= 0:
        return high
    while high - low > TOLERANCE:
        mid = (low + high) / 2
        if f(mid) > 0:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def estimate(
    losses: int,
    draws: int,
    wins: int,
    elo0: float,
    elo1: float,
    alpha: float,
    beta: float,
    stopped: int = 0,
    level: float = 0.95,
) -> Estimate:
    """The median-unbiased Elo of the first entry over the second and its interval, from
    a test's counts; ``stopped`` is +1 if it accepted H1, -1 if H0, 0 if it has not.
    With no unit, nothing is known: (0, 0, 0)."""
    return estimate_counts([losses, draws, wins], elo0, elo1, alpha, beta, stopped, level)


def estimate_counts(
    outcomes: Sequence[int],
    elo0: float,
    elo1: float,
    alpha: float,
    beta: float,
    stopped: int = 0,
    level: float = 0.95,
) -> Estimate:
    """``estimate`` from the counts of ``k >= 2`` outcomes scored ``i / (k - 1)``, lowest
    first: 3 (loss, draw, win) or a pair's 5 levels."""
    if not sum(outcomes):
        return Estimate(0.0, 0.0, 0.0)
    counts = [float(c) if c else UNSEEN for c in outcomes]
    values = [i / (len(counts) - 1) for i in range(len(counts))]
    n = sum(counts)
    mean = sum(c * v for c, v in zip(counts, values, strict=True)) / n
    var = sum(c * (v - mean) ** 2 for c, v in zip(counts, values, strict=True)) / n
    s0, s1 = _score(elo0), _score(elo1)
    a, b = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)

    def drift(s: float) -> float:
        return (s - (s0 + s1) / 2) * (s1 - s0) / var

    sigma2 = (s1 - s0) ** 2 / var
    slope = drift(mean)
    t, y = n, n * slope
    if y <= a:
        t, y = a / slope, a
    elif y >= b:
        t, y = b / slope, b
    if stopped > 0 and y < b:
        t, y = n, b
    elif stopped < 0 and y > a:
        t, y = n, a

    def worse(elo: float) -> float:
        return Brownian(a, b, drift(_score(elo)), sigma2).outcome_cdf(t, y)

    def at(p: float) -> float:
        return _bisect(lambda elo: worse(elo) - (1 - p), *ELO_RANGE)

    tail = (1 - level) / 2
    return Estimate(at(0.5), at(tail), at(1 - tail))
