"""Pairwise answers: is A better than B, and by how much?

Each bot's interval on the board is relative to the pool's mean, and two overlapping
intervals say nothing about the pair: the ratings are correlated (every rating is
fitted from the same table). The difference's variance comes from the fit's full
covariance, ``Var(a - b) = C_aa + C_bb - 2 C_ab``, and gives

- the difference with its 95% interval, and
- the likelihood of superiority, LOS = Phi(difference / sd): in the fit's Gaussian
  approximation of the posterior, the chance that A is the stronger, the number
  BayesElo's and Ordo's ``los`` tables print.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from arena.ratings.board import Leaderboard, is_ranked
from arena.ratings.elo import Z95

MATRIX_BOTS = 20
"""Bots in an LOS matrix at most: the top of the board (a wider one is unreadable)."""


class CannotCompare(ValueError):
    """The board cannot answer; the message says why, for the reader."""


@dataclass(frozen=True)
class Comparison:
    a: str
    b: str
    difference: float
    """Elo of ``a`` less Elo of ``b``."""
    ci95: float
    """Half-width of the difference's 95% interval."""
    los: float
    """The chance that ``a`` is the stronger, 0..1."""


def los(difference: float, sd: float) -> float:
    """Phi(difference / sd); a difference known exactly (sd 0) is certain either way."""
    if sd <= 0:
        return 1.0 if difference > 0 else 0.0 if difference < 0 else 0.5
    return 0.5 * (1.0 + math.erf(difference / (sd * math.sqrt(2.0))))


def compare(board: Leaderboard, a: str, b: str) -> Comparison:
    """The answer for two bots the board ranks (established or provisional: the same
    rows the board shows an estimate for), in one group; else why not."""
    rows = {row.bot: row for row in board.rows}
    unknown = [name for name in (a, b) if name not in rows]
    if unknown:
        ranked = ", ".join(sorted(r.bot for r in board.rows if is_ranked(r))) or "none"
        raise CannotCompare(f"no rating for {', '.join(unknown)} on this board; ranked: {ranked}")
    if a == b:
        raise CannotCompare(f"compare two different bots, got {a!r} twice")
    cov = board.covariance
    if not cov:
        raise CannotCompare("this board was stored without its covariance; ask for it afresh")
    for name in (a, b):
        if name not in cov or not is_ranked(rows[name]):
            raise CannotCompare(f"{name} has no rating to compare on this board: {rows[name].note}")
    if b not in cov[a]:
        raise CannotCompare(
            f"{a} (group {rows[a].group}) and {b} (group {rows[b].group}) are in different "
            "groups: no games connect them, so their ratings cannot be compared"
        )
    sd = math.sqrt(max(cov[a][a] + cov[b][b] - 2 * cov[a][b], 0.0))
    difference = rows[a].elo - rows[b].elo
    return Comparison(a, b, difference, Z95 * sd, los(difference, sd))


def los_matrix(board: Leaderboard, limit: int = MATRIX_BOTS) -> list[tuple[str, list[float]]]:
    """The top ``limit`` ranked bots of the main group, in rank order, each with its LOS
    against each of them (0.5 on itself). Provisional bots are in it: their point
    estimates run ahead with few pairs, but their intervals, and so the LOS, stay
    calibrated (``bench.rating_bias``)."""
    bots = [r.bot for r in board.rows if is_ranked(r) and r.group == 1][:limit]
    return [(a, [0.5 if a == b else compare(board, a, b).los for b in bots]) for a in bots]
