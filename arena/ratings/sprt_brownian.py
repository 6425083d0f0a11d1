"""Brownian motion between two absorbing bounds: where the SPRT's estimate comes from.

The LLR of an SPRT is, to a good approximation, a Brownian motion with drift ``mu`` and
variance ``sigma2`` per unit, started at 0 and stopped at the first of ``a < 0 < b``.
``outcome_cdf(T, y)`` is the chance that such a motion ends *worse* than one observed at
``(T, y)``: for a test that accepted H1 at time ``T`` (``y = b``), that it accepts H0
instead or accepts H1 later; for one that accepted H0 (``y = a``), that it accepts H0
sooner; for one still running at ``y`` strictly between, that it has accepted H0 by
``T`` or is still running below ``y``. The formulas are fishtest's (``brownian.py``;
https://www.cantate.be/Fishtest/): the eigenfunction series of the killed motion on
the strip, and for short times, where that series converges slowly, Siegmund's
first-passage approximation with the normal tails taken in logs.
"""

from __future__ import annotations

import math

TOLERANCE = 1e-9
LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def log_phi(z: float) -> float:
    """log of the standard normal CDF, accurate far into the lower tail."""
    if z > -30:
        return math.log(0.5 * math.erfc(-z / math.sqrt(2)))
    # Mills' ratio, three terms: Phi(z) ~ phi(z) / -z * (1 - 1/z**2 + 3/z**4).
    return -z * z / 2 - LOG_SQRT_2PI - math.log(-z) + math.log1p(-1 / z**2 + 3 / z**4)


def _scaled_phi(log_scale: float, z: float) -> float:
    """``exp(log_scale) * Phi(z)``, without overflow when the scale is huge and the
    tail tiny."""
    return math.exp(min(log_scale + log_phi(z), 700.0))


class Brownian:
    def __init__(self, a: float, b: float, mu: float, sigma2: float) -> None:
        if not a < 0 < b or sigma2 <= 0:
            raise ValueError(f"need a < 0 < b and a positive variance; got {a}, {b}, {sigma2}")
        self.a, self.b, self.mu, self.sigma2 = a, b, mu, sigma2

    def outcome_cdf(self, t: float, y: float) -> float:
        width = self.b - self.a
        gamma = self.mu / self.sigma2
        if self.sigma2 * t / width**2 < 1e-2 or abs(gamma * width) > 15:
            p = self._siegmund(t, y)
        else:
            p = self._series(t, y)
        return min(max(p, 0.0), 1.0)

    def _series(self, t: float, y: float) -> float:
        """The exact law: the chance of leaving at ``a`` at all, plus the series for
        the part of the motion still alive at ``t`` (or that leaves at ``a`` after it),
        in the strip's coordinates ``[0, width]`` with the start at ``-a``."""
        mu, sigma2 = self.mu, self.sigma2
        width = self.b - self.a
        x, y = -self.a, y - self.a
        gamma = mu / sigma2
        drift_decay = mu * mu / sigma2 / 2

        def decay(n: int) -> float:
            return (n * math.pi / width) ** 2 * sigma2 / 2 + drift_decay

        first = decay(1)
        scale = math.exp(-first * t - x * gamma + y * gamma)
        total, n = 0.0, 1
        while True:
            k = n * math.pi / width
            # 2/width * exp(-gamma y) times a primitive of exp(gamma y) sin(k y), at y.
            primitive = (
                2 * width * gamma * math.sin(k * y) - 2 * n * math.pi * math.cos(k * y)
            ) / (width**2 * gamma**2 + (n * math.pi) ** 2)
            term = math.exp(-(decay(n) - first) * t) * primitive
            total += term * math.sin(k * x)
            if abs(scale * term) <= TOLERANCE:
                break
            n += 1
        if gamma * width > 30:
            leave_low = math.exp(-2 * gamma * x)
        elif abs(gamma * width) < 1e-8:
            leave_low = (width - x) / width
        else:
            leave_low = math.expm1(2 * gamma * (width - x)) / math.expm1(2 * gamma * width)
        return leave_low + scale * total

    def _siegmund(self, t: float, y: float) -> float:
        """For short times or strong drift: the unkilled motion's chance of being below
        ``y``, corrected by one reflection in each bound."""
        sd = math.sqrt(t * self.sigma2)
        shift = self.mu * t
        gamma = self.mu / self.sigma2
        z = (y - shift) / sd
        za = (-y + shift + 2 * self.a) / sd
        zb = (y - shift - 2 * self.b) / sd
        phi_z = 0.5 * math.erfc(-z / math.sqrt(2))
        return phi_z + _scaled_phi(2 * gamma * self.a, za) - _scaled_phi(2 * gamma * self.b, zb)
