"""Collusion report: does any pair of entries' head-to-head stray from what the ratings
predict?

An entry that throws its matches against an ally (plays at random whenever the ally is
its opponent) raises the ally's rating while playing honestly everywhere else. It shows
as one pair whose results fall far from what both entries' other results predict; no
single entry's record looks odd. So for each unordered pair of entries that met, the
report compares the pair's observed score with the score the ratings predict and gives
a standardised deviation, a z-score. A pair is flagged at ``|z| >= FLAG_Z`` on at least
``MIN_OUTCOMES`` rated outcomes.

Choices, and why:

* **Rated outcomes, as the leaderboard rates them.** A duplicate pair is one outcome, a
  match rated alone is one (``arena.ratings.duplicate``, through the leaderboard's own
  ``duplicate_result``), and the ratings are the leaderboard's maximum-likelihood Elo
  with its draw margin and prior (``arena.ratings.elo.fit_counts``).
* **Leave-pair-out.** Each pair is predicted from ratings fitted *without that pair's
  own outcomes*: fitted with them, the throw itself lifts the ally and sinks the
  thrower towards the pair's results (in a field of two, all the way). At the same
  false-alarm rate the two detect a thrower about equally well
  (``bench.collusion_calibration``), but only the leave-pair-out z has one null
  distribution whatever the field: the in-sample z's 5% threshold ran from 1.4 (4
  entries) to 2.3 (8 entries, 16 pairs a pairing), so no constant would do. The cost
  is a fit per pair: 40 ms for 8 entries, 1.6 s for 32.
* **Flagged pairs are left out of every prediction.** The ally's inflated rating makes
  its honest games against a third entry look like that entry under-performing; so the
  most deviant flagged pair is left out of every fit and the report redone, until no
  new pair is flagged (the bench: no other pair flagged in thrower tournaments, against
  1 in 15-30 otherwise). An honest tournament without a flag costs one round.
* **z from the predictive distribution.** The score's distribution is the outcomes'
  win/draw/loss spread under the fitted model, mixed over the rating difference's
  uncertainty (normal, with the fit's covariance); ``z`` is the normal deviate of the
  observed score's mid-p tail probability in it. A first version's
  ``(score - expected) / sd``, with the ratings' uncertainty by the delta method, had
  honest 8-entry tournaments flag a pair 13-17% of the time at 3.5: a 900-Elo
  underdog's one win in 16 was 5.6 of those sds out, a 1-in-16 chance at the true
  strengths. Few outcomes are far from normal, and a maximum-likelihood rating from a
  small table runs ahead of the truth (``bench.rating_bias``), where its uncertainty,
  not its point, says how likely the upset is. The draw margin is taken as fitted.
* **Two-sided.** In a pair, one entry's shortfall is the other's excess: a throw shows
  as the thrower below prediction, which is the ally above, and either may be the
  higher rated (a strong entry throwing to a weak ally does the most for it). So
  ``|z|`` is tested, and ``below`` and ``above`` name the possible thrower and the
  possible beneficiary. A flag is a reason to read the replays, not a verdict: honest
  tournaments flag a pair now and then (``FLAG_Z``), and a bot with a real blind spot
  against one opponent's style looks the same.
* **Draws** count half, as in the fit. **Perfect records** stay finite (the fit's
  prior) and uncertain, which the predictive distribution carries. A pair that nothing
  else connects (no chain of other games between them) has no prediction.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING

import numpy as np
from numpy.polynomial.hermite_e import hermegauss

from arena.ratings.duplicate import pair_outcomes
from arena.ratings.elo import (
    Counts,
    K,
    Outcome,
    RatingTable,
    Vector,
    count_outcomes,
    fit_counts,
)
from arena.ratings.groups import groups
from arena.ratings.leaderboard import duplicate_result

if TYPE_CHECKING:
    from arena.store.results import MatchResult

__all__ = [
    "FLAG_Z",
    "MIN_OUTCOMES",
    "PairReport",
    "collusion_report",
    "collusion_report_counts",
    "collusion_reports",
    "deviation",
    "pair_report",
]

FLAG_Z = 3.5
"""Flag a pair at ``|z| >= FLAG_Z``. ``bench.collusion_calibration`` (true Elo sd 200, a
40-Elo draw margin): honest round robins of 8 entries flag at least one pair in 1.3%
of tournaments at 8 duplicate pairs a pairing (4 of 300) and 0.3% at 16; of 4 entries
at 12 (the issue's 144 matches), none of 300; of 16 entries at 8, 2.0% (of 200). A
thrower losing every pair to its ally is flagged in 32% of 8 x 8 tournaments (67% when
it is the stronger of the two), 62% (99%) at 8 x 16 and 36% (61%) at 4 x 12. False
alarms grow with the pairs, at most about the normal ``1 - (1 - 2 Phi(-3.5)) ** pairs``:
1.3% at 28 pairs, 5% at 120, 61% at 2,016 (64 entries); pass a larger ``flag_z`` for a
big field."""

MIN_OUTCOMES = 6
"""Rated outcomes a pair needs before it can be flagged. With fewer, |z| reaches
FLAG_Z only when a favourite by 200 Elo or more loses every outcome, or a favourite by
600-1,300 Elo loses one to three: the logistic's far tail, which nobody has measured for
card games (a crash forfeits a pair whatever the strengths). At six, a favourite
expected to score 76% that loses all six reaches |z| 4.0 with its rating known; an
even pairing needs ten straight losses."""


@dataclass(frozen=True)
class PairReport:
    """One pair of entries that met, ``a < b``; scores are ``a``'s against ``b``."""

    a: str
    b: str
    outcomes: int
    """Rated outcomes between them (duplicate pairs, or matches rated alone)."""
    wins: int
    draws: int
    losses: int
    """``a``'s record against ``b``."""
    score: float
    """``a``'s observed score: wins plus half the draws."""
    expected: float | None
    """``a``'s score predicted by ratings fitted without this pair's outcomes (and
    without other flagged pairs'); None when no other games connect the two."""
    sd: float | None
    """Standard deviation of the predicted score: the outcomes' spread and the
    uncertainty of the predicting ratings."""
    z: float | None
    """The normal deviate of the observed score's tail probability: below 0, ``a`` did
    worse against ``b`` than the rest of the tournament predicts."""
    flagged: bool
    """``|z| >= flag_z`` on at least ``min_outcomes`` outcomes."""

    @property
    def below(self) -> str:
        """The entry that scored below prediction: the possible thrower (``b`` when
        there is no deviation to speak of)."""
        return self.a if (self.z or 0.0) < 0 else self.b

    @property
    def above(self) -> str:
        """The entry that scored above prediction: the possible beneficiary."""
        return self.b if self.below == self.a else self.a


def deviation(
    table: RatingTable, a: str, b: str, record: tuple[int, int, int]
) -> tuple[float, float, float]:
    """``(expected, sd, z)`` of ``a``'s score in ``record`` (its wins, draws, losses
    against ``b``) under the ratings of ``table``.

    ``expected`` is the fit's own prediction, ``n * (P(win) + P(draw) / 2)`` at the
    fitted difference and draw margin. ``sd`` and ``z`` come from the predictive
    distribution of the score: the outcomes' win/draw/loss spread, mixed over the
    difference's uncertainty (normal, with the fit's covariance; Gauss-Hermite nodes);
    ``z`` is the normal deviate of the observed score's mid-p tail probability in it
    (the module's docstring says why not ``(score - expected) / sd``).
    """
    wins, draws, losses = record
    n = wins + draws + losses
    elo = table.by_player()
    delta = elo[a].elo - elo[b].elo
    p_win, p_draw, p_loss = _probabilities(np.array([delta]), table.draw_elo)
    expected = float(n * (p_win[0] + 0.5 * p_draw[0]))
    c = table.covariance
    sd_delta = math.sqrt(max(c[a, a] + c[b, b] - 2 * c[a, b], 0.0))
    nodes, weights = _NODES
    p_win, p_draw, p_loss = _probabilities(delta + sd_delta * nodes, table.draw_elo)
    pmf = weights @ _half_points(p_win, p_draw, p_loss, n)  # by half-points: 2 wins + draws
    halves = np.arange(2 * n + 1) / 2
    mean = float(pmf @ halves)
    sd = math.sqrt(max(float(pmf @ halves**2) - mean * mean, 0.0))
    k = 2 * wins + draws
    lower = float(pmf[:k].sum() + 0.5 * pmf[k])
    upper = float(pmf[k + 1 :].sum() + 0.5 * pmf[k])
    tail = max(min(lower, upper), 1e-300)
    z = _NORMAL.inv_cdf(tail) if tail < 0.5 else 0.0
    return expected, sd, z if lower < upper else -z


def pair_report(
    counts: Counts,
    a: str,
    b: str,
    *,
    without: Collection[tuple[str, str]] = (),
    flag_z: float = FLAG_Z,
    min_outcomes: int = MIN_OUTCOMES,
) -> PairReport:
    """The pair ``a < b`` of ``counts`` predicted from the ratings of every other
    pairing's outcomes, less those of the pairings in ``without`` (each ``(x, y)`` with
    ``x < y``)."""
    record = counts[a, b]
    wins, draws, losses = record
    n = wins + draws + losses
    players = sorted({x for x, _ in counts} | {y for _, y in counts})
    rest = {p: r for p, r in counts.items() if p != (a, b) and p not in without}
    part = next(g for g in groups(players, rest) if a in g)
    expected = sd = z = None
    if b in part:
        inside = {p: r for p, r in rest.items() if p[0] in part}
        expected, sd, z = deviation(fit_counts(inside, players=part), a, b, record)
    flagged = z is not None and n >= min_outcomes and abs(z) >= flag_z
    return PairReport(a, b, n, wins, draws, losses, wins + 0.5 * draws, expected, sd, z, flagged)


def collusion_report_counts(
    counts: Counts, *, flag_z: float = FLAG_Z, min_outcomes: int = MIN_OUTCOMES
) -> list[PairReport]:
    """The report from outcomes already counted (``arena.ratings.elo.count_outcomes``,
    or a finished tournament's stored tally): every pair that met, most deviant first.

    Flagged pairs are left out of every other pair's prediction too, the most deviant
    first, one at a time, until no new pair is flagged: a throw inflates the ally's
    rating, and the ally's honest games against a third entry then look like that
    entry under-performing (seen in a real four-seat game while this was written; a table of
    that shape is in ``tests/ratings/test_collusion.py``).
    An honest tournament without a flag costs one round, a fit per pair.
    """
    met = sorted(p for p, record in counts.items() if sum(record))
    suspect: list[tuple[str, str]] = []
    while True:
        reports = [
            pair_report(
                counts,
                a,
                b,
                without=suspect,
                flag_z=flag_z,
                min_outcomes=min_outcomes,
            )
            for a, b in met
        ]
        reports.sort(key=lambda r: (-abs(r.z or 0.0), r.a, r.b))
        new = [r for r in reports if r.flagged and (r.a, r.b) not in suspect]
        if not new:
            return reports
        suspect.append((new[0].a, new[0].b))


def collusion_report(
    outcomes: Iterable[Outcome], *, flag_z: float = FLAG_Z, min_outcomes: int = MIN_OUTCOMES
) -> list[PairReport]:
    """The report on one tournament's rated outcomes (of one game: ratings are per
    game), most deviant pair first."""
    return collusion_report_counts(
        count_outcomes(outcomes), flag_z=flag_z, min_outcomes=min_outcomes
    )


def collusion_reports(
    results: Iterable[MatchResult], *, flag_z: float = FLAG_Z, min_outcomes: int = MIN_OUTCOMES
) -> dict[str, list[PairReport]]:
    """The report on one tournament's stored results, game by game, rated as the
    leaderboard rates them: a duplicate pair (both halves stored) is one outcome, a
    match rated alone is one, a forfeit loses the unit, a no-contest is not rated."""
    by_game: dict[str, list[MatchResult]] = {}
    for result in results:
        by_game.setdefault(result.game, []).append(result)
    reports = {}
    for game, played in sorted(by_game.items()):
        halves = [h for h in map(duplicate_result, played) if h is not None]
        outcomes = pair_outcomes(halves)
        if outcomes:
            reports[game] = collusion_report(outcomes, flag_z=flag_z, min_outcomes=min_outcomes)
    return reports


_NORMAL = NormalDist()
_HERMITE_NODES = 32
"""Enough that the predicted tail of a pair known only through the prior (an entry
that won every other game: sd of the difference in the thousands) is smooth."""
_NODES = (
    hermegauss(_HERMITE_NODES)[0],
    hermegauss(_HERMITE_NODES)[1] / math.sqrt(2 * math.pi),
)


def _probabilities(delta: Vector, draw_elo: float) -> tuple[Vector, Vector, Vector]:
    """The fit's model (``arena.ratings.elo``): P(win), P(draw), P(loss) of ``a`` at
    each difference ``delta`` = elo(a) - elo(b)."""
    p_win: Vector = 0.5 * (1.0 + np.tanh(0.5 * K * (delta - draw_elo)))
    p_loss: Vector = 0.5 * (1.0 + np.tanh(0.5 * K * (-delta - draw_elo)))
    p_draw: Vector = np.clip(1.0 - p_win - p_loss, 0.0, None)
    return p_win, p_draw, p_loss


def _half_points(p_win: Vector, p_draw: Vector, p_loss: Vector, n: int) -> Vector:
    """For each row's outcome probabilities, the distribution of the half-points of
    ``n`` independent outcomes (0 a loss, 1 a draw, 2 a win): one outcome added at a
    time, all rows at once. Every term is a sum of positive products, so the far tails
    keep their digits."""
    pmf = np.zeros((len(p_win), 2 * n + 1))
    pmf[:, 0] = 1.0
    for m in range(n):  # m outcomes so far: half-points 0..2m
        top = 2 * m
        new = np.zeros((len(p_win), top + 3))
        new[:, : top + 1] += p_loss[:, None] * pmf[:, : top + 1]
        new[:, 1 : top + 2] += p_draw[:, None] * pmf[:, : top + 1]
        new[:, 2 : top + 3] += p_win[:, None] * pmf[:, : top + 1]
        pmf[:, : top + 3] = new
    return pmf
