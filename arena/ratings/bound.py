"""What a clean sweep says. A bot that won every pair has no finite maximum-likelihood
rating: its estimate is wherever the prior stops it, a number about the prior and not
the bot. What the record does say is a one-sided bound: the rating below which such a
sweep would have been a 1-in-20 chance. A bot that lost every pair is the mirror: an
upper bound, the rating above which losing them all would have been that unlikely."""

from __future__ import annotations

import math
from collections.abc import Sequence

from arena.ratings.elo import K

ONE_SIDED = 0.05
"""A 95% bound: the sweep's probability at the bound."""
_SEARCH = (-10000.0, 10000.0)


def _log_sweep(r: float, opponents: Sequence[tuple[float, int]], draw_elo: float) -> float:
    """log P(winning every one of the pairs) at rating ``r``: sum n log F(r - r_j - d)."""
    return sum(-n * math.log1p(math.exp(-K * (r - elo - draw_elo))) for elo, n in opponents)


def lower_bound(opponents: Sequence[tuple[float, int]], draw_elo: float) -> float:
    """The 95% lower bound on the rating of a bot that won all its pairs, given its
    opponents' ratings and how many pairs it played each (``(elo, pairs)``)."""
    target = math.log(ONE_SIDED)
    low, high = _SEARCH
    for _ in range(100):  # the sweep's probability rises with r: bisect
        mid = (low + high) / 2
        if _log_sweep(mid, opponents, draw_elo) < target:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def upper_bound(opponents: Sequence[tuple[float, int]], draw_elo: float) -> float:
    """The 95% upper bound on the rating of a bot that lost all its pairs (the mirror)."""
    return -lower_bound([(-elo, n) for elo, n in opponents], draw_elo)
