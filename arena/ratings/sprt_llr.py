"""The SPRT's exact generalised log-likelihood ratio (fishtest's ``LLR_logistic``).

A unit's outcome takes one of ``k`` values ``a_i = i / (k - 1)``: a trinomial unit
(k = 3: loss, draw, win, scored 0, 1/2, 1 — a single match, or a duplicate pair as the
arena scores it, by the sign of its total margin) or a pentanomial one (k = 5: a pair of
games scored by its total 0, 1/2, 1, 3/2, 2, halved). H0 says the expected score is
``s0``, H1 that it is ``s1``; how the rest of the outcome distribution looks (the draw
rate) is left free, so each hypothesis is given its best case: the distribution of mean
``s`` most likely to have produced the counts. With ``phat`` the observed frequencies,
that distribution is ``p_i = phat_i / (1 + x (a_i - s))``, where ``x`` is the one root
of ``sum_i phat_i (a_i - s) / (1 + x (a_i - s)) = 0`` that keeps every ``p_i`` positive
(the Lagrange multiplier of the mean's constraint; fishtest's ``MLE_expected``, from
https://www.cantate.be/Fishtest/support_MLE_multinomial.pdf). The log-likelihood
ratio over ``N`` units is then::

    LLR = N * sum_i phat_i * (log(1 + x0 (a_i - s0)) - log(1 + x1 (a_i - s1)))

For a trinomial the root's equation is a quadratic, solved in closed form for whole
arrays of counts at once (the simulations check it after every unit of thousands of
runs); for other ``k`` it is found by Newton's method kept inside a shrinking bracket
(``llr``, one table; ``llr_arrays``, whole arrays), and by plain bisection as a check
(``llr_any``).
As fishtest, an outcome never seen counts ``EPSILON`` of a unit, so that every
``phat_i`` is positive; unlike the normal approximation this needs no larger prior,
since a streak's exact LLR is bounded: two straight wins give ``2 log(s1 / s0)`` at
most.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

EPSILON = 1e-3
"""What an outcome never seen counts as, in units (fishtest's ``regularize``)."""

Array = npt.NDArray[np.float64]


def regularised(counts: Array) -> Array:
    """``counts`` (outcomes on the last axis) with each 0 replaced by ``EPSILON``."""
    return np.where(counts == 0, EPSILON, counts)


def _trinomial_root(p: Array, s: float) -> Array:
    """The multiplier ``x`` for frequencies ``p`` (loss, draw, win on the last axis, each
    positive, summing to 1) under mean ``s``. Multiplying the root's equation by the
    three denominators leaves ``q x**2 + c x + m = 0`` with ``m`` the mean less ``s``,
    ``c = m * sum(b) - sum(p b**2)`` and ``q = b_0 b_1 b_2`` (``b_i = a_i - s``); of its
    roots, the one with every ``1 + x b_i > 0`` is taken (there is exactly one, as the
    equation's left side falls from +inf to -inf between the poles)."""
    b = np.array([-s, 0.5 - s, 1.0 - s])
    m = p @ b
    c = m * b.sum() - p @ (b * b)
    q = float(np.prod(b))
    disc = np.maximum(c * c - 4.0 * q * m, 0.0)
    # The two roots in the forms that lose no precision: when q is 0 (s = 1/2) the
    # equation is linear, and w / q is infinite while m / w is its root.
    w = -0.5 * (c + np.copysign(np.sqrt(disc), c))
    with np.errstate(divide="ignore", invalid="ignore"):
        first = w / q if q else np.full_like(m, np.inf)
        second = np.where(w != 0, m / np.where(w != 0, w, 1.0), 0.0)
    low, high = -1.0 / (1.0 - s), 1.0 / s
    inside = (first > low) & (first < high)
    return np.where(m == 0, 0.0, np.where(inside, first, second))


def _trinomial_root_one(p: Sequence[float], s: float) -> float:
    """``_trinomial_root`` for one table, in plain floats (the format's path, where
    numpy's overhead on three numbers would cost more than the arithmetic)."""
    b = (-s, 0.5 - s, 1.0 - s)
    m = sum(pi * bi for pi, bi in zip(p, b, strict=True))
    if m == 0:
        return 0.0
    c = m * sum(b) - sum(pi * bi * bi for pi, bi in zip(p, b, strict=True))
    q = b[0] * b[1] * b[2]
    w = -0.5 * (c + math.copysign(math.sqrt(max(c * c - 4.0 * q * m, 0.0)), c))
    second = m / w if w else 0.0
    if q:
        first = w / q
        if -1.0 / (1.0 - s) < first < 1.0 / s:
            return first
    return second


def _root(p: Sequence[float], values: Sequence[float], s: float) -> float:
    """The multiplier for any number of outcomes, by bisection between the poles (the
    equation's left side falls strictly between them)."""
    b = [a - s for a in values]
    low, high = -1.0 / max(b), -1.0 / min(b)

    def f(x: float) -> float:
        return sum(pi * bi / (1.0 + x * bi) for pi, bi in zip(p, b, strict=True))

    for _ in range(200):
        mid = (low + high) / 2
        if not low < mid < high:
            break
        if f(mid) > 0:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def _check(s0: float, s1: float) -> None:
    if not (0 < s0 < 1 and 0 < s1 < 1):
        raise ValueError(f"expected scores are strictly between 0 and 1; got {s0}, {s1}")


def llr_trinomial(
    losses: npt.ArrayLike, draws: npt.ArrayLike, wins: npt.ArrayLike, s0: float, s1: float
) -> Array:
    """The exact LLR of H1 (expected score ``s1``) against H0 (``s0``) for arrays of
    counts of any one shape, element by element; 0 where there is no unit."""
    _check(s0, s1)
    raw = np.stack([np.asarray(c, dtype=np.float64) for c in (losses, draws, wins)], axis=-1)
    counts = regularised(raw)
    n = counts.sum(axis=-1)
    p = counts / n[..., None]
    total = np.zeros_like(n)
    for s, sign in ((s0, 1.0), (s1, -1.0)):
        x = _trinomial_root(p, s)
        b = np.array([-s, 0.5 - s, 1.0 - s])
        total += sign * np.sum(p * np.log1p(x[..., None] * b), axis=-1)
    result: Array = np.where(raw.sum(axis=-1) == 0, 0.0, n * total)
    return result


def _roots(p: Array, values: Array, s: float, steps: int = 200) -> Array:
    """``_root`` for arrays of frequencies (outcomes on the last axis): Newton steps from
    0, each replaced by the bracket's midpoint when it would leave the bracket, which
    every step shrinks (the left side falls strictly, so its sign says which end goes).
    Each table stops when its root stops moving; only those still moving are computed
    (a rare outcome puts a root near a pole, where it takes dozens of halvings)."""
    b = values - s
    shape = p.shape[:-1]
    flat = p.reshape(-1, p.shape[-1])
    low = np.full(len(flat), -1.0 / b.max())
    high = np.full(len(flat), -1.0 / b.min())
    x = np.zeros(len(flat))
    todo = np.arange(len(flat))
    for _ in range(steps):
        if not todo.size:
            break
        xs, ps = x[todo], flat[todo]
        terms = b / (1.0 + xs[:, None] * b)
        f = np.sum(ps * terms, axis=-1)
        lo = np.where(f > 0, xs, low[todo])
        hi = np.where(f > 0, high[todo], xs)
        slope = -np.sum(ps * terms * terms, axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = xs - f / slope
        moved = np.where((step > lo) & (step < hi), step, (lo + hi) / 2)
        low[todo], high[todo], x[todo] = lo, hi, moved
        still = np.abs(moved - xs) > 1e-15 * np.maximum(1.0, np.abs(xs))
        todo = todo[still]
    roots: Array = x.reshape(shape)
    return roots


def llr_arrays(counts: npt.ArrayLike, s0: float, s1: float) -> Array:
    """The exact LLR for arrays of tables of ``k >= 2`` counts (outcomes on the last
    axis, lowest first, scored ``i / (k - 1)``), element by element; 0 where there is
    no unit. ``llr_trinomial`` for three, in closed form."""
    _check(s0, s1)
    raw = np.asarray(counts, dtype=np.float64)
    k = raw.shape[-1]
    if k == 3:
        return llr_trinomial(raw[..., 0], raw[..., 1], raw[..., 2], s0, s1)
    if k < 2:
        raise ValueError(f"an outcome table has 2 or more counts; got {k}")
    regular = regularised(raw)
    n = regular.sum(axis=-1)
    p = regular / n[..., None]
    values = np.arange(k) / (k - 1)
    total = np.zeros_like(n)
    for s, sign in ((s0, 1.0), (s1, -1.0)):
        x = _roots(p, values, s)
        total += sign * np.sum(p * np.log1p(x[..., None] * (values - s)), axis=-1)
    result: Array = np.where(raw.sum(axis=-1) == 0, 0.0, n * total)
    return result


def _root_newton(p: Sequence[float], values: Sequence[float], s: float) -> float:
    """``_root`` by ``_roots``' safeguarded Newton, in plain floats: the format's path
    for a pair's five outcomes, after every pair, where bisection took ten times as long."""
    b = [a - s for a in values]
    low, high = -1.0 / max(b), -1.0 / min(b)
    x = 0.0
    for _ in range(200):
        terms = [bi / (1.0 + x * bi) for bi in b]
        f = sum(pi * t for pi, t in zip(p, terms, strict=True))
        if f == 0:
            return x
        low, high = (x, high) if f > 0 else (low, x)
        slope = -sum(pi * t * t for pi, t in zip(p, terms, strict=True))
        step = x - f / slope
        moved = step if low < step < high else (low + high) / 2
        if abs(moved - x) <= 1e-15 * max(1.0, abs(x)):
            return moved
        x = moved
    return x


def llr_any(counts: Sequence[float], s0: float, s1: float, newton: bool = False) -> float:
    """The exact LLR for one table of ``k >= 2`` counts, lowest outcome first, the root
    found by bisection whatever ``k`` (by Newton's method with ``newton``)."""
    _check(s0, s1)
    if len(counts) < 2:
        raise ValueError(f"an outcome table has 2 or more counts; got {list(counts)}")
    if not sum(counts):
        return 0.0
    regular = [float(c) if c else EPSILON for c in counts]
    n = sum(regular)
    p = [c / n for c in regular]
    values = [i / (len(counts) - 1) for i in range(len(counts))]
    total = 0.0
    for s, sign in ((s0, 1.0), (s1, -1.0)):
        x = (_root_newton if newton else _root)(p, values, s)
        total += sign * sum(pi * math.log1p(x * (a - s)) for pi, a in zip(p, values, strict=True))
    return n * total


def llr(counts: Sequence[float], s0: float, s1: float) -> float:
    """The exact LLR for the counts of one table, lowest outcome first: 3 of them
    (loss, draw, win; in closed form) or 5 (pairs scoring 0, 1/2, 1, 3/2, 2), or any
    ``k >= 2``."""
    if len(counts) != 3 or not any(c != 0 for c in counts):
        return llr_any(counts, s0, s1, newton=True)
    _check(s0, s1)
    regular = [float(c) if c else EPSILON for c in counts]
    n = sum(regular)
    p = [c / n for c in regular]
    total = 0.0
    for s, sign in ((s0, 1.0), (s1, -1.0)):
        x = _trinomial_root_one(p, s)
        total += sign * sum(
            pi * math.log1p(x * (a - s)) for pi, a in zip(p, (0.0, 0.5, 1.0), strict=True)
        )
    return n * total
