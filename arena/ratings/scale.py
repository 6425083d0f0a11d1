"""Where a board's scale sits, and how its intervals are found: what a reader may ask of
a leaderboard besides the results (``GetLeaderboardRequest.anchor``, ``prior_sd``,
``bootstrap``).

A fitted board is centred: its bots average 0, so a bot's number moves when another
joins or leaves. An **anchor** pins the scale to one bot instead, as Ordo's ``-a``
does: that bot is shown at exactly ``anchor_elo`` and every other bot of its group at
the fitted difference to it, ``anchor_elo + (r_i - r_anchor)``. The differences are the
fit's, unchanged; each bot's interval is then that of its difference to the anchor
(the anchor's own is 0), from the same covariance.

The **prior** is the fit's normal prior on each centred rating (``arena.ratings.elo``);
its sd is what keeps a perfect record finite, so it is where such a record's estimate
stops. Its default, ``PRIOR_SIGMA`` (1000 Elo), is weak: it moves a rating fitted from a
handful of pairs by a few Elo at most.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from arena.ratings.elo import PRIOR_SIGMA, Z95, Rating, RatingTable

MAX_BOOTSTRAP = 1000
"""Most resamples a board may ask for: each refits every game's table."""
MAX_PRIOR_SD = 100_000.0
_LISTED = 12
"""Bots named in the refusal of an anchor not on the board."""


class BadScale(ValueError):
    """A scale that cannot be given: the message says what is allowed."""


@dataclass(frozen=True)
class Scale:
    anchor: str = ""
    """The bot fixed at ``anchor_elo``; "" for a board centred on its bots' mean."""
    anchor_elo: float = 0.0
    prior_sd: float = PRIOR_SIGMA
    bootstrap: int = 0
    """Resamples for bootstrap intervals (``arena.ratings.bootstrap``); 0: none."""
    seed: int = 0
    """The resampling's seed: the same board, scale and seed give the same intervals."""

    def __post_init__(self) -> None:
        if not (math.isfinite(self.prior_sd) and 0 < self.prior_sd <= MAX_PRIOR_SD):
            raise BadScale(
                f"prior_sd is the prior's standard deviation in Elo, above 0 and at most "
                f"{MAX_PRIOR_SD:,.0f} (unset: {PRIOR_SIGMA:g}); got {self.prior_sd:g}"
            )
        if not math.isfinite(self.anchor_elo):
            raise BadScale(f"anchor_elo is a finite Elo; got {self.anchor_elo}")
        if not 0 <= self.bootstrap <= MAX_BOOTSTRAP:
            raise BadScale(
                f"bootstrap is a number of resamples from 0 (none) to {MAX_BOOTSTRAP}; "
                f"got {self.bootstrap}"
            )
        if self.anchor_elo and not self.anchor:
            raise BadScale("anchor_elo needs an anchor: the bot to fix at that Elo")

    def caveat(self, groups: int) -> str:
        """The board's line saying what the anchor does ("" without one)."""
        if not self.anchor:
            return ""
        line = (
            f"anchored: {self.anchor} is fixed at {self.anchor_elo:+g} Elo, and each "
            f"rating and its 95% interval are of the bot's difference to {self.anchor}"
        )
        if groups > 1:
            line += f"; groups other than {self.anchor}'s stay centred on their own mean"
        return line


DEFAULT = Scale()


def anchor_table(table: RatingTable, anchor: str, elo: float) -> RatingTable:
    """``table`` with ``anchor`` at ``elo``, the others at their difference to it, and
    the covariance of those differences (a linear map, as the centring is)."""
    at = table.by_player()[anchor].elo
    c = table.covariance
    names = [r.player for r in table.ratings]
    covariance = {
        (a, b): c[a, b] - c[a, anchor] - c[anchor, b] + c[anchor, anchor]
        for a in names
        for b in names
    }

    def moved(r: Rating) -> Rating:
        variance = max(covariance[r.player, r.player], 0.0)
        return replace(r, elo=r.elo - at + elo, ci95=Z95 * math.sqrt(variance))

    return replace(table, ratings=tuple(moved(r) for r in table.ratings), covariance=covariance)


def not_on_board(anchor: str, ranked: list[str], where: str) -> BadScale:
    """The refusal of an anchor that has no rating on the board, naming those that do
    (by name, the first ``_LISTED``)."""
    if not ranked:
        return BadScale(f"anchor {anchor!r}: {where} ranks no bot yet, so none can anchor it")
    ranked = sorted(ranked)
    shown = ", ".join(ranked[:_LISTED])
    more = f" and {len(ranked) - _LISTED} more" if len(ranked) > _LISTED else ""
    return BadScale(
        f"anchor {anchor!r} has no rating on {where}; the anchor must be a ranked bot "
        f"there: {shown}{more}"
    )
