"""Maximum-likelihood Elo with draws, from the whole results table (as BayesElo does).

Model (Bradley-Terry with a draw margin, BayesElo's): between players rated ``r_i`` and
``r_j``, with ``F(x) = 1 / (1 + 10**(-x / 400))`` and a fitted draw margin ``d >= 0``::

    P(i beats j) = F(r_i - r_j - d)
    P(j beats i) = F(r_j - r_i - d)
    P(draw)      = 1 - P(i beats j) - P(j beats i)

There is no first-move advantage term: the arena scores each duplicate pair as one
outcome, so seat advantages cancel. Ratings are centred on 0 and found by Newton's
method on the log-likelihood plus a weak Gaussian prior (``prior_sigma`` Elo), which keeps
a player who won every game finite. 95% intervals come from the inverse Hessian.

Only the set of outcomes matters, never their order: the same table gives the same
ratings however the workers that produced it finished.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Z95 = 1.959963984540054
K = math.log(10) / 400
PRIOR_SIGMA = 1000.0
MAX_ITERATIONS = 100

Vector = npt.NDArray[np.float64]


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

    def __init__(self, n: int, a: Vector, b: Vector, wins: Vector, draws: Vector, losses: Vector):
        self.n = n
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
        prior = -0.5 * float(self.ratings(theta) @ self.ratings(theta)) / PRIOR_SIGMA**2
        return float(log_l) + prior

    def gradient(self, theta: Vector) -> Vector:
        _, d, p_win, p_loss = self._parts(theta)
        p_draw = np.clip(1.0 - p_win - p_loss, 1e-300, None)
        slope_win, slope_loss = p_win * (1 - p_win), p_loss * (1 - p_loss)
        # Derivatives of the log-likelihood by delta = r_a - r_b and by d.
        by_delta = K * (
            self.wins * (1 - p_win)
            - self.losses * (1 - p_loss)
            - self.draws * (slope_win - slope_loss) / p_draw
        )
        by_d = K * (
            -self.wins * (1 - p_win)
            - self.losses * (1 - p_loss)
            + self.draws * (slope_win + slope_loss) / p_draw
        )
        by_rating = np.zeros(self.n)
        np.add.at(by_rating, self.a, by_delta)
        np.add.at(by_rating, self.b, -by_delta)
        by_rating -= self.ratings(theta) / PRIOR_SIGMA**2
        # Chain rule for the centring (r_last = -sum) and for d = exp(theta_last).
        grad: Vector = np.append(by_rating[:-1] - by_rating[-1], by_d.sum() * d)
        return grad

    def hessian(self, theta: Vector) -> Vector:
        """Central differences of the analytic gradient, symmetrised."""
        size = len(theta)
        h = 1e-4
        rows = []
        for i in range(size):
            step = np.zeros(size)
            step[i] = h
            rows.append((self.gradient(theta + step) - self.gradient(theta - step)) / (2 * h))
        matrix = np.array(rows)
        result: Vector = 0.5 * (matrix + matrix.T)
        return result


def fit(outcomes: Sequence[Outcome], players: Sequence[str] | None = None) -> RatingTable:
    """Ratings of every player named in ``outcomes`` (and in ``players``, if given)."""
    names = sorted(set(players or ()) | {o.a for o in outcomes} | {o.b for o in outcomes})
    if len(names) < 2:
        raise ValueError("ratings need at least two players")
    index = {name: i for i, name in enumerate(names)}
    # Aggregate identical pairings: the fit sees counts, so order cannot matter.
    counts: dict[tuple[int, int], list[float]] = {}
    for o in sorted(outcomes):
        i, j, score = index[o.a], index[o.b], o.score
        if i > j:
            i, j, score = j, i, 1.0 - score
        row = counts.setdefault((i, j), [0.0, 0.0, 0.0])
        row[0 if score == 1.0 else 1 if score == 0.5 else 2] += 1
    pairs = sorted(counts)
    table = np.array([counts[p] for p in pairs]) if pairs else np.zeros((0, 3))
    problem = _Problem(
        len(names),
        np.array([p[0] for p in pairs], dtype=float),
        np.array([p[1] for p in pairs], dtype=float),
        table[:, 0],
        table[:, 1],
        table[:, 2],
    )
    theta = np.append(np.zeros(len(names) - 1), math.log(100.0))
    theta = _newton(problem, theta)
    try:
        covariance_free = np.linalg.inv(-problem.hessian(theta))
    except np.linalg.LinAlgError:
        # No outcome at all (only unfinished pairs so far): nothing pins the draw margin,
        # and the ratings' intervals are the prior's.
        covariance_free = np.linalg.pinv(-problem.hessian(theta))
    # Map the covariance of the free ratings to all n ratings (the last is minus the sum).
    jacobian = np.vstack([np.eye(len(names) - 1), -np.ones(len(names) - 1)])
    cov = jacobian @ covariance_free[:-1, :-1] @ jacobian.T
    elo = problem.ratings(theta)
    records = _records(names, outcomes)
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
    )


def _newton(problem: _Problem, theta: Vector) -> Vector:
    value = problem.value(theta)
    for _ in range(MAX_ITERATIONS):
        gradient = problem.gradient(theta)
        hessian = problem.hessian(theta)
        try:
            step = np.linalg.solve(hessian, -gradient)
        except np.linalg.LinAlgError:
            step = gradient * 1e-3
        if gradient @ step <= 0:  # not an ascent direction: fall back to the gradient
            step = gradient * 1e-3
        scale = 1.0
        while scale > 1e-8:
            candidate = theta + scale * step
            candidate[-1] = min(max(candidate[-1], -12.0), 8.0)
            new_value = problem.value(candidate)
            if new_value >= value - 1e-12:
                break
            scale /= 2
        converged = abs(new_value - value) < 1e-10 and float(np.max(np.abs(scale * step))) < 1e-7
        theta, value = candidate, new_value
        if converged:
            break
    return theta


def _records(names: Sequence[str], outcomes: Sequence[Outcome]) -> dict[str, tuple[int, ...]]:
    tally = {name: [0, 0, 0, 0] for name in names}  # games, wins, draws, losses
    for o in outcomes:
        for player, score in ((o.a, o.score), (o.b, 1.0 - o.score)):
            row = tally[player]
            row[0] += 1
            row[1 if score == 1.0 else 2 if score == 0.5 else 3] += 1
    return {name: tuple(row) for name, row in tally.items()}
