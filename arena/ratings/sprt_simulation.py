"""Many simulated SPRTs between entries of known strength, as the format runs them.

Each run draws units (win, draw or loss for the first entry) and, after every unit,
computes the exact LLR (``arena.ratings.sprt_llr``), updates the overshoot estimate
(``arena.ratings.sprt_overshoot``) and stops at the first bound it reaches, exactly as
``arena.tournament.formats.sprt`` does. The runs still going draw their next units
together, about ``chunk`` outcomes a step (arrays that stay in cache), so a run costs
numpy work, not Python loops. ``bench.sprt_error_rates`` and the SPRT's tests use it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from arena.ratings.sprt_llr import llr_arrays, llr_trinomial
from arena.ratings.sprt_overshoot import corrections_along

H0, H1, INCONCLUSIVE = -1, 1, 0
"""Verdicts in ``Simulation.verdicts``."""


def _score(elo: float) -> float:
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


@dataclass(frozen=True)
class Simulation:
    verdicts: npt.NDArray[np.int8]
    """Per run: H1, H0, or INCONCLUSIVE (``max_units`` reached)."""
    units: npt.NDArray[np.int64]
    """Per run: units scored when it stopped."""
    counts: npt.NDArray[np.int64]
    """Per run: losses, draws and wins when it stopped (``simulate_outcomes``: each
    outcome's count, lowest first)."""

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
    chunk: int = 2**18,
    correct: bool = True,
) -> Simulation:
    """``runs`` independent tests between entries ``elo`` apart drawing ``draw_rate``
    of their units, the LLR checked after every unit; ``correct=False`` leaves Wald's
    bounds where they are (no overshoot correction), for comparison."""
    s = _score(elo)
    p_win, p_loss = s - draw_rate / 2, 1 - s - draw_rate / 2
    if min(p_win, p_loss) < 0:
        raise ValueError("the draw rate leaves no room for that expected score")
    s0, s1 = _score(elo0), _score(elo1)
    lower, upper = np.log(beta / (1 - alpha)), np.log((1 - beta) / alpha)
    rng = np.random.default_rng(seed)
    verdicts = np.zeros(runs, dtype=np.int8)
    units = np.full(runs, max_units, dtype=np.int64)
    counts = np.zeros((runs, 3), dtype=np.int64)  # losses, draws, wins so far
    ladders = np.zeros((runs, 6))
    active = np.arange(runs)
    done = 0
    while active.size and done < max_units:
        size = min(max(chunk // active.size, 16), max_units - done)
        u = rng.random((active.size, size))
        wins = counts[active, 2:3] + np.cumsum(u < p_win, axis=1)
        losses = counts[active, 0:1] + np.cumsum(u >= 1 - p_loss, axis=1)
        draws = done + np.arange(1, size + 1) - wins - losses
        ratio = llr_trinomial(losses, draws, wins, s0, s1)
        stopped, ends, last = _stops(
            ratio, ladders[active], lower, upper, correct, verdicts, units, active, done
        )
        rows = np.arange(active.size)
        counts[active, 0] = losses[rows, ends]
        counts[active, 1] = draws[rows, ends]
        counts[active, 2] = wins[rows, ends]
        ladders[active] = last
        active = active[~stopped]
        done += size
    return Simulation(verdicts, units, counts)


Ints = npt.NDArray[np.intp]


def _stops(
    ratio: npt.NDArray[np.float64],
    ladders: npt.NDArray[np.float64],
    lower: float,
    upper: float,
    correct: bool,
    verdicts: npt.NDArray[np.int8],
    units: npt.NDArray[np.int64],
    active: Ints,
    done: int,
) -> tuple[npt.NDArray[np.bool_], Ints, npt.NDArray[np.float64]]:
    """One chunk's stopping rule, shared by both simulators: where each active run's
    LLR path (``ratio``, one row a run) first crosses a bound (overshoot-corrected when
    ``correct``), recorded in ``verdicts`` and ``units``. Returns which stopped, the
    column each run's counts end at, and the runs' overshoot ladders after it."""
    o0, o1, last = corrections_along(ratio, ladders)
    if not correct:
        o0, o1 = np.zeros_like(o0), np.zeros_like(o1)
    crossed_up, crossed_down = ratio >= upper - o1, ratio <= lower + o0
    crossed = crossed_up | crossed_down
    stopped = np.asarray(crossed.any(axis=1))
    at = np.argmax(crossed, axis=1)
    rows = np.arange(active.size)
    ends = np.where(stopped, at, ratio.shape[1] - 1)
    finished = active[stopped]
    verdicts[finished] = np.where(crossed_up[rows, at][stopped], H1, H0)
    units[finished] = done + at[stopped] + 1
    return stopped, ends, last


def tilted(shape: Sequence[float], elo: float) -> list[float]:
    """Chances of ``k`` outcomes (scored ``i / (k - 1)``) of expected score
    ``s(elo)``: ``shape`` exponentially tilted, ``p_i ~ shape_i exp(t a_i)``, ``t``
    found by bisection. A pair's five outcomes at any strength from one observed shape."""
    base = np.asarray(shape, dtype=np.float64)
    values = np.arange(len(base)) / (len(base) - 1)
    target = _score(elo)

    def chances(t: float) -> npt.NDArray[np.float64]:
        weights = base * np.exp(t * (values - 0.5))
        result: npt.NDArray[np.float64] = weights / weights.sum()
        return result

    low, high = -200.0, 200.0
    for _ in range(200):
        mid = (low + high) / 2
        if float(chances(mid) @ values) < target:
            low = mid
        else:
            high = mid
    return [float(p) for p in chances((low + high) / 2)]


def simulate_outcomes(
    chances: Sequence[float],
    elo0: float,
    elo1: float,
    alpha: float,
    beta: float,
    runs: int,
    max_units: int,
    seed: int = 0,
    chunk: int = 2**16,
) -> Simulation:
    """``simulate`` for units of ``k`` outcomes drawn with ``chances`` (lowest first,
    scored ``i / (k - 1)``: a pair's five, ``tilted``), the LLR ``llr_arrays``; the
    counts are per outcome. The same stopping rule, overshoot correction included."""
    p = np.asarray(chances, dtype=np.float64)
    if p.ndim != 1 or len(p) < 2 or np.any(p < 0) or not math.isclose(p.sum(), 1.0):
        raise ValueError(f"chances of 2 or more outcomes, summing to 1; got {list(chances)}")
    k = len(p)
    edges = np.cumsum(p)[:-1]
    s0, s1 = _score(elo0), _score(elo1)
    lower, upper = np.log(beta / (1 - alpha)), np.log((1 - beta) / alpha)
    rng = np.random.default_rng(seed)
    verdicts = np.zeros(runs, dtype=np.int8)
    units = np.full(runs, max_units, dtype=np.int64)
    counts = np.zeros((runs, k), dtype=np.int64)
    ladders = np.zeros((runs, 6))
    active = np.arange(runs)
    done = 0
    while active.size and done < max_units:
        size = min(max(chunk // active.size, 16), max_units - done)
        drawn = np.searchsorted(edges, rng.random((active.size, size)), side="right")
        so_far = counts[active][:, None, :] + np.cumsum(
            drawn[..., None] == np.arange(k), axis=1, dtype=np.int64
        )
        ratio = llr_arrays(so_far, s0, s1)
        stopped, ends, last = _stops(
            ratio, ladders[active], lower, upper, True, verdicts, units, active, done
        )
        rows = np.arange(active.size)
        counts[active] = so_far[rows, ends]
        ladders[active] = last
        active = active[~stopped]
        done += size
    return Simulation(verdicts, units, counts)
