"""Maximum-likelihood Elo with draws, from the whole results table (as BayesElo does).

Model (Bradley-Terry with a draw margin, BayesElo's): between players rated ``r_i`` and
``r_j``, with ``F(x) = 1 / (1 + 10**(-x / 400))`` and a fitted draw margin ``d >= 0``::

    P(i beats j) = F(r_i - r_j - d)
    P(j beats i) = F(r_j - r_i - d)
    P(draw)      = 1 - P(i beats j) - P(j beats i)

There is no first-move advantage term: the arena scores each duplicate pair as one
outcome, so seat advantages cancel.

A duplicate pair read in five outcomes (``Outcome.level``: won both halves, won on the
total margin only, level, and the mirror) extends the model by an outer margin
``e >= 0``, as an ordered logit extends a binary one::

    P(i wins both halves | i wins the pair) = F(r_i - r_j - d - e) / F(r_i - r_j - d)

so the three outcomes above are exactly BayesElo's, and ratings on the same scale as
a board of W/D/L units; the split between winning both halves and winning on the total
only is what the five outcomes add, and the fit then takes it into the ratings and
their intervals through the same likelihood (``e`` is fitted, as ``d`` is, only when
some unit has a level). Ratings are centred on 0 and found by Newton's
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

LEVEL_SCORES = (0.0, 0.0, 0.5, 1.0, 1.0)
"""The win, draw or loss each five-outcome level is."""

Vector = npt.NDArray[np.float64]
Counts = dict[tuple[str, str], tuple[int, int, int]]
"""By pairing ``(a, b)`` with ``a < b``: how often ``a`` won, drew and lost against ``b``."""
Levels = dict[tuple[str, str], tuple[int, int, int, int, int]]
"""By pairing ``(a, b)`` with ``a < b``: of the units read in five outcomes, how many
were at each level for ``a``, 0 (lost both halves) to 4 (won both). Those units are in
the pairing's ``Counts`` too, as the wins (3, 4), draws (2) and losses (0, 1) they are."""


@dataclass(frozen=True, order=True)
class Outcome:
    """One rated game: ``score`` is 1 if ``a`` won, 0.5 for a draw, 0 if ``b`` won."""

    a: str
    b: str
    score: float
    level: int | None = None
    """A duplicate pair's five-outcome reading for ``a`` (``arena.ratings.duplicate``):
    4 won both halves, 3 won on the total only, 2 level, 1 and 0 the mirror; None for a
    unit read as a win, draw or loss only. It agrees with ``score``."""

    def __post_init__(self) -> None:
        if self.level is not None and LEVEL_SCORES[self.level] != self.score:
            raise ValueError(f"level {self.level} is a score of {LEVEL_SCORES[self.level]}")


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
    both_elo: float | None = None
    """The outer margin ``e`` of five-outcome units (None: the table had none)."""

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


def _refinement(
    u: Vector, e: float, both: Vector, split: Vector
) -> tuple[Vector, Vector, Vector, Vector, Vector, Vector]:
    """Log-likelihood of how decided five-outcome units were won, given who won them, and
    its derivatives by ``u`` (the winner's ``delta - d``) and ``e``: ``both`` units won
    both halves, with chance ``q = F(u - e) / F(u)``, and ``split`` did not, with chance
    ``1 - q = (1 - F(u - e)) (1 - 10**(-e / 400))``. Returns the value and the
    derivatives by u, e, uu, ue, ee, per pairing."""
    f_u, f_v = _sigmoid(K * u), _sigmoid(K * (u - e))
    log_f_u, log_f_v = -np.logaddexp(0.0, -K * u), -np.logaddexp(0.0, -K * (u - e))
    log_not_v = -np.logaddexp(0.0, K * (u - e))
    value = both * (log_f_v - log_f_u) + split * (log_not_v + math.log(-math.expm1(-K * e)))
    slope_v = K * K * f_v * (1 - f_v)
    by_u = K * (both * (f_u - f_v) - split * f_v)
    by_e = -K * both * (1 - f_v) + K * split * (f_v + 1.0 / math.expm1(K * e))
    by_uu = both * (K * K * f_u * (1 - f_u) - slope_v) - split * slope_v
    by_ue = (both + split) * slope_v
    tail = K * K * math.exp(K * e) / math.expm1(K * e) ** 2
    by_ee = -(both + split) * slope_v - split * tail
    return value, by_u, by_e, by_uu, by_ue, by_ee


class _Problem:
    """Penalised log-likelihood of the free parameters ``theta`` = (r_0..r_{n-2}, log d),
    and log e last when some unit has five outcomes (``levels``).

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
        levels: npt.NDArray[np.float64] | None = None,
    ):
        self.n = n
        self.precision = 1.0 / prior_sigma**2
        self.a, self.b = a.astype(np.intp), b.astype(np.intp)
        self.wins, self.draws, self.losses = wins, draws, losses
        decided = levels is not None and bool(levels[:, [0, 1, 3, 4]].any())
        self.levels = levels if decided else None
        self.margins = 1 if self.levels is None else 2
        """How many margins theta ends with: d, and e with decided five-outcome units
        (level pairs alone say nothing of e, which would leave the Hessian singular)."""

    def _outer(self, theta: Vector, delta: Vector, d: float) -> tuple[Vector, ...] | None:
        """The five-outcome terms' value and derivatives by delta, d and e (summed over
        the winner's side and the loser's), or None without such units."""
        if self.levels is None:
            return None
        e = math.exp(theta[-1])
        lv = self.levels
        won = _refinement(delta - d, e, lv[:, 4], lv[:, 3])
        lost = _refinement(-delta - d, e, lv[:, 0], lv[:, 1])
        value = won[0] + lost[0]
        by_delta, by_d = won[1] - lost[1], -won[1] - lost[1]
        by_e = won[2] + lost[2]
        by_delta_delta = by_d_d = won[3] + lost[3]
        by_delta_d = -won[3] + lost[3]
        by_delta_e, by_d_e = won[4] - lost[4], -won[4] - lost[4]
        by_e_e = won[5] + lost[5]
        return (
            value, by_delta, by_d, by_e, by_delta_delta, by_d_d, by_delta_d,
            by_delta_e, by_d_e, by_e_e,
        )  # fmt: skip

    def ratings(self, theta: Vector) -> Vector:
        free = theta[: self.n - 1]
        return np.append(free, -free.sum())

    def _parts(self, theta: Vector) -> tuple[Vector, float, Vector, Vector]:
        r = self.ratings(theta)
        d = math.exp(theta[self.n - 1])
        delta = r[self.a] - r[self.b]
        return delta, d, _sigmoid(K * (delta - d)), _sigmoid(K * (-delta - d))

    def value(self, theta: Vector) -> float:
        delta, d, p_win, p_loss = self._parts(theta)
        p_draw = np.clip(1.0 - p_win - p_loss, 1e-300, None)
        log_l = (
            self.wins @ np.log(np.clip(p_win, 1e-300, None))
            + self.losses @ np.log(np.clip(p_loss, 1e-300, None))
            + self.draws @ np.log(p_draw)
        )
        outer = self._outer(theta, delta, d)
        if outer is not None:
            log_l += outer[0].sum()
        prior = -0.5 * float(self.ratings(theta) @ self.ratings(theta)) * self.precision
        return float(log_l) + prior

    def derivatives(self, theta: Vector) -> tuple[Vector, Vector]:
        """Gradient and Hessian, both analytic: one pass over the pairs, where central
        differences of the gradient took 2 * len(theta) passes."""
        delta, d, p_win, p_loss = self._parts(theta)
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
        outer = self._outer(theta, delta, d)
        if outer is not None:
            by_delta = by_delta + outer[1]
            by_d = by_d + outer[2]
            by_delta_delta = by_delta_delta + outer[4]
            by_d_d = by_d_d + outer[5]
            by_delta_d = by_delta_d + outer[6]
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
        hessian = np.empty((size + self.margins, size + self.margins))
        hessian[:size, :size] = full[:-1, :-1] - full[:-1, -1:] - full[-1:, :-1] + full[-1, -1]
        hessian[:size, size] = hessian[size, :size] = rating_by_t[:-1] - rating_by_t[-1]
        hessian[size, size] = d * d * by_d_d.sum() + d * by_d.sum()
        gradient: Vector = np.append(by_rating[:-1] - by_rating[-1], by_d.sum() * d)
        if outer is not None:
            e = math.exp(theta[-1])
            by_e, by_delta_e, by_d_e, by_e_e = outer[3], outer[7], outer[8], outer[9]
            rating_by_e = self._spread(by_delta_e * e)
            hessian[:size, n] = hessian[n, :size] = rating_by_e[:-1] - rating_by_e[-1]
            hessian[size, n] = hessian[n, size] = d * e * by_d_e.sum()
            hessian[n, n] = e * e * by_e_e.sum() + e * by_e.sum()
            gradient = np.append(gradient, by_e.sum() * e)
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


def count_levels(outcomes: Iterable[Outcome]) -> Levels:
    """The five-outcome units among ``outcomes`` by pairing and level (``Levels``);
    ``count_outcomes`` counts them as wins, draws and losses."""
    counts: dict[tuple[str, str], list[int]] = {}
    for o in outcomes:
        if o.level is None:
            continue
        a, b, level = (o.a, o.b, o.level) if o.a < o.b else (o.b, o.a, 4 - o.level)
        counts.setdefault((a, b), [0] * 5)[level] += 1
    return {pairing: (c[0], c[1], c[2], c[3], c[4]) for pairing, c in counts.items()}


def add_levels(tables: Iterable[Levels]) -> Levels:
    """The levels of the union of the units counted in ``tables``."""
    total: dict[tuple[str, str], list[int]] = {}
    for table in tables:
        for pairing, row in table.items():
            mine = total.setdefault(pairing, [0] * 5)
            for i, n in enumerate(row):
                mine[i] += n
    return {pairing: (c[0], c[1], c[2], c[3], c[4]) for pairing, c in total.items()}


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
    """Ratings of every player named in ``outcomes`` (and in ``players``, if given); the
    five-outcome units (``Outcome.level``) read in five."""
    outcomes = list(outcomes)
    return fit_counts(count_outcomes(outcomes), players, prior_sigma, levels=count_levels(outcomes))


def fit_counts(
    counts: Counts,
    players: Sequence[str] | None = None,
    prior_sigma: float = PRIOR_SIGMA,
    start: RatingTable | None = None,
    levels: Levels | None = None,
) -> RatingTable:
    """Ratings from outcomes already counted by ``count_outcomes`` (or ``add_counts``),
    under a normal prior of sd ``prior_sigma`` Elo on each (centred) rating. Newton's
    method starts from ``start``'s ratings when given (a fit of the same players to
    similar counts, as a bootstrap's resamples are): the answer is the same, sooner.
    ``levels`` (``count_levels``) splits the decided five-outcome units among
    ``counts`` into won (lost) both halves or on the total only; a pairing they name must
    be in ``counts`` with at least those wins, draws and losses."""
    if not prior_sigma > 0 or not math.isfinite(prior_sigma):
        raise ValueError(f"the prior's sd is a positive number of Elo, got {prior_sigma!r}")
    names = sorted(set(players or ()) | {a for a, _ in counts} | {b for _, b in counts})
    if len(names) < 2:
        raise ValueError("ratings need at least two players")
    index = {name: i for i, name in enumerate(names)}
    pairings = sorted(counts, key=lambda pairing: (index[pairing[0]], index[pairing[1]]))
    table = np.array([counts[p] for p in pairings], dtype=float) if pairings else np.zeros((0, 3))
    levels = levels or {}
    _check_levels(counts, levels)
    by_level = np.array([levels.get(p, (0, 0, 0, 0, 0)) for p in pairings], dtype=float)
    problem = _Problem(
        len(names),
        np.array([index[a] for a, _ in pairings], dtype=float),
        np.array([index[b] for _, b in pairings], dtype=float),
        table[:, 0],
        table[:, 1],
        table[:, 2],
        prior_sigma,
        by_level.reshape(-1, 5),
    )
    low, high = LOG_D_BOUNDS
    theta = np.append(np.zeros(len(names) - 1), _start_log_d(table))
    if start is not None:
        known = start.by_player()
        if set(known) == set(names):
            elo = np.array([known[name].elo for name in names])
            log_d = math.log(max(start.draw_elo, 1e-300))
            theta = np.append((elo - elo.mean())[:-1], min(max(log_d, low), high))
    if problem.margins == 2:
        log_e = _start_log_e(by_level, math.exp(theta[-1]))
        if start is not None and start.both_elo is not None:
            log_e = math.log(max(start.both_elo, 1e-300))
        theta = np.append(theta, min(max(log_e, low), high))
    theta, iterations = _newton(problem, theta)
    hessian = problem.derivatives(theta)[1]
    try:
        covariance_free = np.linalg.inv(-hessian)
    except np.linalg.LinAlgError:
        # No outcome at all (only unfinished pairs so far): nothing pins the draw margin,
        # and the ratings' intervals are the prior's.
        covariance_free = np.linalg.pinv(-hessian)
    # Map the covariance of the free ratings to all n ratings (the last is minus the sum).
    size = len(names) - 1
    jacobian = np.vstack([np.eye(size), -np.ones(size)])
    cov = jacobian @ covariance_free[:size, :size] @ jacobian.T
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
        draw_elo=math.exp(theta[size]),
        covariance={(a, b): float(cov[i, j]) for a, i in index.items() for b, j in index.items()},
        iterations=iterations,
        both_elo=math.exp(theta[-1]) if problem.margins == 2 else None,
    )


def _check_levels(counts: Counts, levels: Levels) -> None:
    """Refuses levels that are not units of ``counts``: the likelihood would be wrong."""
    for pairing, (l0, l1, l2, l3, l4) in levels.items():
        w, d, lo = counts.get(pairing, (0, 0, 0))
        if l3 + l4 > w or l2 > d or l0 + l1 > lo:
            raise ValueError(
                f"{pairing}: levels {(l0, l1, l2, l3, l4)} are more units than {(w, d, lo)}"
            )


def _start_log_e(levels: npt.NDArray[np.float64], d: float) -> float:
    """Where Newton starts log e: the margin at which players level but for the draw
    margin win both halves as often as the table's decided five-outcome units did."""
    both, split = float(levels[:, [0, 4]].sum()), float(levels[:, [1, 3]].sum())
    low, high = LOG_D_BOUNDS
    if both + split == 0:
        return math.log(100.0)
    if both == 0:
        return high
    if split == 0:
        return low
    share = both / (both + split) / (1 + 10 ** (d / 400))  # F(-d - e) = share * F(-d)
    e = -d + 400 * math.log10(1 / share - 1)
    return min(max(math.log(max(e, 1e-300)), low), high)


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

    A log d (or log e) on its clamp that the gradient pushes further out is held there
    (left out of the Newton system): that is the constrained maximum in that coordinate,
    and leaving it in made every step point past the clamp, so the convergence test
    never passed on a table without draws and all MAX_ITERATIONS ran.
    """
    low, high = LOG_D_BOUNDS
    margins = range(len(theta) - problem.margins, len(theta))  # log d, and log e
    value = problem.value(theta)
    iterations = 0
    while iterations < MAX_ITERATIONS:
        iterations += 1
        gradient, hessian = problem.derivatives(theta)
        free = np.ones(len(theta), dtype=bool)
        for i in margins:
            free[i] = not (
                (theta[i] <= low and gradient[i] <= 0) or (theta[i] >= high and gradient[i] >= 0)
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
            for i in margins:
                candidate[i] = min(max(candidate[i], low), high)
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
