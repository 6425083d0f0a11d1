"""Maximum-likelihood Elo with draws, from the whole results table (as BayesElo does).

Model (Bradley-Terry with a draw margin, BayesElo's): between players rated ``r_i`` and
``r_j``, with ``F(x) = 1 / (1 + 10**(-x / 400))`` and a fitted draw margin ``d >= 0``::

    P(i beats j) = F(r_i - r_j - d)
    P(j beats i) = F(r_j - r_i - d)
    P(draw)      = 1 - P(i beats j) - P(j beats i)

There is no first-move advantage term: the arena scores each duplicate pair as one
outcome, so seat advantages cancel. Ratings are centred on 0 and found by Newton's
method on the log-likelihood plus a weak Gaussian prior (sd ``prior_sigma`` Elo,
``PRIOR_SIGMA`` unless asked), which keeps
a player who won every game finite. 95% intervals come from the inverse Hessian.

Only the set of outcomes matters, never their order: the same table gives the same
ratings however the workers that produced it finished.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

Z95 = 1.959963984540054
K = math.log(10) / 400
PRIOR_SIGMA = 1000.0
MAX_ITERATIONS = 100
LOG_D_BOUNDS = (-12.0, 8.0)
"""Clamp on log(draw margin): a table without a single draw has its maximum at d = 0."""

Vector = npt.NDArray[np.float64]
Counts = dict[tuple[str, str], tuple[int, int, int]]
"""By pairing ``(a, b)`` with ``a < b``: how often ``a`` won, drew and lost against ``b``."""


@dataclass(frozen=True, order=True)
class Outcome:
    """One rated game: ``score`` is 1 if ``a`` won, 0.5 for a draw, 0 if ``b`` won."""

    a: str
    b: str
    score: float


@dataclass(frozen=True)
class Rating:
    player: str
    elo: float
    ci95: float
    """Half-width of the 95% interval of ``elo`` (relative to the pool's mean)."""
    games: int
    wins: int
    draws: int
    losses: int


@dataclass(frozen=True)
class RatingTable:
    ratings: tuple[Rating, ...]
    """Sorted best first (ties broken by name)."""
    draw_elo: float
    covariance: dict[tuple[str, str], float]
    iterations: int = field(default=0, compare=False)
    """Newton iterations the fit took: a diagnostic, not part of the answer."""

    def difference_ci95(self, a: str, b: str) -> float:
        """Half-width of the 95% interval of ``elo(a) - elo(b)``."""
        c = self.covariance
        variance = c[a, a] + c[b, b] - 2 * c[a, b]
        return Z95 * math.sqrt(max(variance, 0.0))

    def by_player(self) -> dict[str, Rating]:
        return {r.player: r for r in self.ratings}


def _sigmoid(x: Vector) -> Vector:
    result: Vector = 0.5 * (1.0 + np.tanh(0.5 * x))
    return result


class _Problem:
    """Penalised log-likelihood of the free parameters ``theta`` = (r_0..r_{n-2}, log d).

    The last rating is minus the sum of the others, so ratings stay centred on 0.
    """

    def __init__(
        self,
        n: int,
        a: Vector,
        b: Vector,
        wins: Vector,
        draws: Vector,
        losses: Vector,
        prior_sigma: float = PRIOR_SIGMA,
    ):
        self.n = n
        self.precision = 1.0 / prior_sigma**2
        self.a, self.b = a.astype(np.intp), b.astype(np.intp)
        self.wins, self.draws, self.losses = wins, draws, losses

    def ratings(self, theta: Vector) -> Vector:
        free = theta[: self.n - 1]
        return np.append(free, -free.sum())

    def _parts(self, theta: Vector) -> tuple[Vector, float, Vector, Vector]:
        r = self.ratings(theta)
        d = math.exp(theta[-1])
        delta = r[self.a] - r[self.b]
        return delta, d, _sigmoid(K * (delta - d)), _sigmoid(K * (-delta - d))

    def value(self, theta: Vector) -> float:
        _, _, p_win, p_loss = self._parts(theta)
        p_draw = np.clip(1.0 - p_win - p_loss, 1e-300, None)
        log_l = (
            self.wins @ np.log(np.clip(p_win, 1e-300, None))
            + self.losses @ np.log(np.clip(p_loss, 1e-300, None))
            + self.draws @ np.log(p_draw)
        )
        prior = -0.5 * float(self.ratings(theta) @ self.ratings(theta)) * self.precision
        return float(log_l) + prior

    def derivatives(self, theta: Vector) -> tuple[Vector, Vector]:
        """Gradient and Hessian, both analytic: one pass over the pairs, where central
        differences of the gradient took 2 * len(theta) passes."""
        _, d, p_win, p_loss = self._parts(theta)
        p_draw = np.clip(1.0 - p_win - p_loss, 1e-300, None)
        slope_win, slope_loss = p_win * (1 - p_win), p_loss * (1 - p_loss)
        # Derivatives of the log-likelihood by delta = r_a - r_b and by d; the draw
        # terms only where there are draws (elsewhere p_draw may be ~0 and they overflow).
        w, dr, lo = self.wins, self.draws, self.losses
        drawn = dr > 0
        share = np.where(drawn, dr / p_draw, 0.0)
        by_delta = K * (w * (1 - p_win) - lo * (1 - p_loss) - share * (slope_win - slope_loss))
        by_d = K * (-w * (1 - p_win) - lo * (1 - p_loss) + share * (slope_win + slope_loss))
        # Second derivatives. P(draw) = 1 - p_win - p_loss, whose derivatives by
        # (delta, d) are K * (slope_loss - slope_win, slope_win + slope_loss) and whose
        # second derivatives are K^2 * (-(c_win + c_loss)) for delta-delta and d-d,
        # K^2 * (c_win - c_loss) for delta-d, with c = slope * (1 - 2p).
        curve_win, curve_loss = slope_win * (1 - 2 * p_win), slope_loss * (1 - 2 * p_loss)
        draw_by_delta = np.where(drawn, K * (slope_loss - slope_win) / p_draw, 0.0)
        draw_by_d = np.where(drawn, K * (slope_win + slope_loss) / p_draw, 0.0)
        decided = -(K**2) * (w * slope_win + lo * slope_loss)
        by_delta_delta = (
            decided + share * -(K**2) * (curve_win + curve_loss) - dr * draw_by_delta**2
        )
        by_d_d = decided + share * -(K**2) * (curve_win + curve_loss) - dr * draw_by_d**2
        by_delta_d = (
            K**2 * (w * slope_win - lo * slope_loss)
            + share * K**2 * (curve_win - curve_loss)
            - dr * draw_by_delta * draw_by_d
        )
        n = self.n
        ratings = self.ratings(theta)
        by_rating = self._spread(by_delta) - ratings * self.precision
        rating_by_t = self._spread(by_delta_d * d)  # chain rule for d = exp(theta_last)
        cells = np.concatenate(
            [self.a * (n + 1), self.b * (n + 1), self.a * n + self.b, self.b * n + self.a]
        )
        weights = np.concatenate([by_delta_delta, by_delta_delta, -by_delta_delta, -by_delta_delta])
        full = np.bincount(cells, weights, minlength=n * n).reshape(n, n).astype(float)
        full -= np.eye(n) * self.precision
        # Chain rule for the centring: r = J @ free with J = [I; -1, ..., -1].
        size = n - 1
        hessian = np.empty((n, n))
        hessian[:size, :size] = full[:-1, :-1] - full[:-1, -1:] - full[-1:, :-1] + full[-1, -1]
        hessian[:size, size] = hessian[size, :size] = rating_by_t[:-1] - rating_by_t[-1]
        hessian[size, size] = d * d * by_d_d.sum() + d * by_d.sum()
        gradient: Vector = np.append(by_rating[:-1] - by_rating[-1], by_d.sum() * d)
        return gradient, hessian

    def _spread(self, by_delta: Vector) -> Vector:
        """Per-player sums of a per-pair quantity: + for ``a``, - for ``b``."""
        plus = np.bincount(self.a, by_delta, minlength=self.n)
        minus = np.bincount(self.b, by_delta, minlength=self.n)
        spread: Vector = (plus - minus).astype(float)  # ints when there is no pair
        return spread


def count_outcomes(outcomes: Iterable[Outcome]) -> Counts:
    """Outcomes aggregated by pairing: the fit sees only these counts, so the order of
    the outcomes cannot matter, and counts of disjoint sets of outcomes just add up."""
    counts: dict[tuple[str, str], list[int]] = {}
    for o in outcomes:
        a, b, score = o.a, o.b, o.score
        if a > b:
            a, b, score = b, a, 1.0 - score
        row = counts.setdefault((a, b), [0, 0, 0])
        row[0 if score == 1.0 else 1 if score == 0.5 else 2] += 1
    return {pairing: (w, d, lo) for pairing, (w, d, lo) in counts.items()}


def add_counts(tables: Iterable[Counts]) -> Counts:
    """The counts of the union of the outcomes counted in ``tables``."""
    total: dict[tuple[str, str], tuple[int, int, int]] = {}
    for table in tables:
        for pairing, (w, d, lo) in table.items():
            tw, td, tl = total.get(pairing, (0, 0, 0))
            total[pairing] = (tw + w, td + d, tl + lo)
    return total


def fit(
    outcomes: Iterable[Outcome],
    players: Sequence[str] | None = None,
    prior_sigma: float = PRIOR_SIGMA,
) -> RatingTable:
    """Ratings of every player named in ``outcomes`` (and in ``players``, if given)."""
    return fit_counts(count_outcomes(outcomes), players, prior_sigma)


def fit_counts(
    counts: Counts,
    players: Sequence[str] | None = None,
    prior_sigma: float = PRIOR_SIGMA,
    start: RatingTable | None = None,
) -> RatingTable:
    """Ratings from outcomes already counted by ``count_outcomes`` (or ``add_counts``),
    under a normal prior of sd ``prior_sigma`` Elo on each (centred) rating. Newton's
    method starts from ``start``'s ratings when given (a fit of the same players to
    similar counts, as a bootstrap's resamples are): the answer is the same, sooner."""
    if not prior_sigma > 0 or not math.isfinite(prior_sigma):
        raise ValueError(f"the prior's sd is a positive number of Elo, got {prior_sigma!r}")
    names = sorted(set(players or ()) | {a for a, _ in counts} | {b for _, b in counts})
    if len(names) < 2:
        raise ValueError("ratings need at least two players")
    index = {name: i for i, name in enumerate(names)}
    pairings = sorted(counts, key=lambda pairing: (index[pairing[0]], index[pairing[1]]))
    table = np.array([counts[p] for p in pairings], dtype=float) if pairings else np.zeros((0, 3))
    problem = _Problem(
        len(names),
        np.array([index[a] for a, _ in pairings], dtype=float),
        np.array([index[b] for _, b in pairings], dtype=float),
        table[:, 0],
        table[:, 1],
        table[:, 2],
        prior_sigma,
    )
    theta = np.append(np.zeros(len(names) - 1), _start_log_d(table))
    if start is not None:
        known = start.by_player()
        if set(known) == set(names):
            elo = np.array([known[name].elo for name in names])
            low, high = LOG_D_BOUNDS
            log_d = math.log(max(start.draw_elo, 1e-300))
            theta = np.append((elo - elo.mean())[:-1], min(max(log_d, low), high))
    theta, iterations = _newton(problem, theta)
    hessian = problem.derivatives(theta)[1]
    try:
        covariance_free = np.linalg.inv(-hessian)
    except np.linalg.LinAlgError:
        # No outcome at all (only unfinished pairs so far): nothing pins the draw margin,
        # and the ratings' intervals are the prior's.
        covariance_free = np.linalg.pinv(-hessian)
    # Map the covariance of the free ratings to all n ratings (the last is minus the sum).
    jacobian = np.vstack([np.eye(len(names) - 1), -np.ones(len(names) - 1)])
    cov = jacobian @ covariance_free[:-1, :-1] @ jacobian.T
    elo = problem.ratings(theta)
    records = _records(names, counts)
    ratings = sorted(
        (
            Rating(name, float(elo[i]), Z95 * math.sqrt(max(cov[i, i], 0.0)), *records[name])
            for i, name in enumerate(names)
        ),
        key=lambda r: (-r.elo, r.player),
    )
    return RatingTable(
        ratings=tuple(ratings),
        draw_elo=math.exp(theta[-1]),
        covariance={(a, b): float(cov[i, j]) for a, i in index.items() for b, j in index.items()},
        iterations=iterations,
    )


def _start_log_d(counts: Vector) -> float:
    """Where Newton starts log d: the margin that gives the table's share of draws
    between equal players, so it starts near the answer (on the lower clamp for a
    table without draws, where the answer is) rather than walking there one unit of
    log d an iteration."""
    total = float(counts.sum())
    if total == 0:
        return math.log(100.0)  # nothing to go by; nothing pins it either
    share = float(counts[:, 1].sum()) / total
    low, high = LOG_D_BOUNDS
    if share == 0:
        return low
    if share == 1:
        return high
    return min(max(math.log(400 * math.log10((1 + share) / (1 - share))), low), high)


def _newton(problem: _Problem, theta: Vector) -> tuple[Vector, int]:
    """Maximise ``problem`` from ``theta``; returns the maximum and the iterations.

    A log d on its clamp that the gradient pushes further out is held there (left out
    of the Newton system): that is the constrained maximum in that coordinate, and
    leaving it in made every step point past the clamp, so the convergence test never
    passed on a table without draws and all MAX_ITERATIONS ran.
    """
    low, high = LOG_D_BOUNDS
    value = problem.value(theta)
    iterations = 0
    while iterations < MAX_ITERATIONS:
        iterations += 1
        gradient, hessian = problem.derivatives(theta)
        free = np.ones(len(theta), dtype=bool)
        free[-1] = not (
            (theta[-1] <= low and gradient[-1] <= 0) or (theta[-1] >= high and gradient[-1] >= 0)
        )
        gradient = np.where(free, gradient, 0.0)
        step = np.zeros(len(theta))
        try:
            step[free] = np.linalg.solve(hessian[np.ix_(free, free)], -gradient[free])
        except np.linalg.LinAlgError:
            step = gradient * 1e-3
        if gradient @ step <= 0:  # not an ascent direction: fall back to the gradient
            step = gradient * 1e-3
        scale = 1.0
        while scale > 1e-8:
            candidate = theta + scale * step
            candidate[-1] = min(max(candidate[-1], low), high)
            new_value = problem.value(candidate)
            if new_value >= value - 1e-12:
                break
            scale /= 2
        moved = float(np.max(np.abs(candidate - theta)))
        converged = abs(new_value - value) < 1e-10 and moved < 1e-7
        theta, value = candidate, new_value
        if converged:
            break
    return theta, iterations


def _records(names: Sequence[str], counts: Counts) -> dict[str, tuple[int, ...]]:
    tally = {name: [0, 0, 0, 0] for name in names}  # games, wins, draws, losses
    for (a, b), (w, d, lo) in counts.items():
        for player, record in ((a, (w, d, lo)), (b, (lo, d, w))):
            row = tally[player]
            row[0] += w + d + lo
            for k in range(3):
                row[k + 1] += record[k]
    return {name: tuple(row) for name, row in tally.items()}
