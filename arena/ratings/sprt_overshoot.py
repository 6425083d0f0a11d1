"""How far the SPRT's LLR overshoots a bound, estimated as the test runs.

The LLR moves in steps, so when it crosses a bound it lands past it, and the test is
then more sure than it set out to be: its error rates come out below alpha and beta,
far below when the steps are big (wide Elo bounds: a unit at 0/200 moves the LLR by
about 0.4 of the 5.9 between the bounds). As fishtest (``update_SPRT``), the bounds are
brought in by the expected overshoot, estimated from the path itself: for a random walk
the overshoot's mean is about ``E[H**2] / (2 E[H])``, ``H`` the ladder heights (each
rise of the LLR above its highest value so far; Siegmund, *Sequential Analysis*,
Corollary 8.33), and likewise below with each fall under its lowest. A ``Ladder`` holds
the sums over the path so far; the test accepts H1 at ``LLR >= upper - o1`` and H0 at
``LLR <= lower + o0``.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Ladder:
    """The LLR's lowest and highest values so far, with the count-free sums of its
    descending (``m0``, ``sq0``: sum and sum of squares) and ascending ladder heights."""

    low: float = 0.0
    m0: float = 0.0
    sq0: float = 0.0
    high: float = 0.0
    m1: float = 0.0
    sq1: float = 0.0

    def step(self, llr: float) -> Ladder:
        """The ladder after one more unit, at which the LLR is ``llr``."""
        low, m0, sq0, high, m1, sq1 = self.low, self.m0, self.sq0, self.high, self.m1, self.sq1
        if llr < low:
            m0, sq0, low = m0 + (llr - low), sq0 + (llr - low) ** 2, llr
        if llr > high:
            m1, sq1, high = m1 + (llr - high), sq1 + (llr - high) ** 2, llr
        return Ladder(low, m0, sq0, high, m1, sq1)

    def corrections(self) -> tuple[float, float]:
        """``(o0, o1)``: how far in to bring the lower and the upper bound."""
        return (
            -self.sq0 / self.m0 / 2 if self.m0 else 0.0,
            self.sq1 / self.m1 / 2 if self.m1 else 0.0,
        )

    def to_list(self) -> list[float]:
        return list(astuple(self))

    @classmethod
    def from_list(cls, values: list[float]) -> Ladder:
        return cls(*values)


def corrections_along(llrs: Array, start: Array) -> tuple[Array, Array, Array]:
    """``Ladder.step`` over many paths at once: ``llrs`` holds each path's next LLRs
    (paths on the first axis, units on the second) and ``start`` each path's ladder
    (``Ladder.to_list`` per row). Returns ``o0`` and ``o1`` after every unit, and the
    ladders after the last."""
    low0, m0, sq0, high0, m1, sq1 = (start[:, i : i + 1] for i in range(6))
    highest = np.maximum(np.maximum.accumulate(llrs, axis=1), high0)
    before = np.concatenate([high0, highest[:, :-1]], axis=1)
    rise = np.maximum(llrs - before, 0.0)
    up, up2 = m1 + np.cumsum(rise, axis=1), sq1 + np.cumsum(rise * rise, axis=1)
    lowest = np.minimum(np.minimum.accumulate(llrs, axis=1), low0)
    before = np.concatenate([low0, lowest[:, :-1]], axis=1)
    fall = np.minimum(llrs - before, 0.0)
    down, down2 = m0 + np.cumsum(fall, axis=1), sq0 + np.cumsum(fall * fall, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        o0 = np.where(down != 0, -down2 / down / 2, 0.0)
        o1 = np.where(up != 0, up2 / up / 2, 0.0)
    last = np.stack(
        [lowest[:, -1], down[:, -1], down2[:, -1], highest[:, -1], up[:, -1], up2[:, -1]],
        axis=1,
    )
    return o0, o1, last
