"""OpenSkill ratings beside the Elo: Weng and Lin's Bayesian approximation (the
Plackett-Luce model of the ``openskill`` package), which rates a team's members.

Each bot's skill is a normal belief, mean ``mu`` and standard deviation ``sigma``,
starting at 25 and 25/3 (the package's defaults). A rated unit (a duplicate pair, or a
match rated alone: the Elo's units, ``arena.ratings.teams.team_outcomes``) is one game
between two teams, each team's skill the sum of its members'; a draw is a tie. The
``ordinal``, ``mu - 3 * sigma``, is a conservative skill: in the model the bot is
99.9% likely to be at least that good, so a bot that has played little ranks low until
it has shown more. The table is ranked by it. ``elo`` puts ``mu`` on the Elo's scale:
between two bots whose sigmas have shrunk to nothing, the model's chance that one wins
is the Elo formula's at that difference (ignoring draws, which the two models treat
differently).

``tau`` (the package's drift of skill between games) is 0: a bot's code does not
change between its games, which is the Elo fit's assumption too.

The update is sequential (one pass, each unit moving the ratings from where the
previous one left them), so the result depends on the order of the units, where the
Elo fit depends only on their set. Units are therefore taken in an order fixed by the
set alone: by a hash of the pair key (``unit_order``), so the same table always gives
the same ratings, however the workers that produced it finished. The hash rather than
the key itself because keys sort by whatever their format put first (a round robin's
pairing by pairing, so each bot's last units are all against one opponent); the hash
interleaves them, which ranked as well or slightly better in ``bench/rating_models.py``.
The consequences: adding one unit replays every unit after it in that order, so a
bot's numbers can move more than the one new result explains; and another order of the
same units moves the most-moved bot's mu by 1.5-2 of its sigmas at 16 units per pairing
(a quarter to a half at one), so sigma understates how uncertain mu is. Nor is the one
pass the exact fit: in the bench its rank correlation with the truth equals the Elo's
at one unit per pairing and falls 2-5% behind as units accumulate.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from openskill.models import PlackettLuce, PlackettLuceRating

from arena.ratings.teams import TeamOutcome, players, team_outcomes

if TYPE_CHECKING:
    from arena.store.results import MatchResult

MU = 25.0
SIGMA = MU / 3
BETA = MU / 6
Z = 3.0
"""Standard deviations below ``mu`` for the ordinal."""
ELO_PER_MU = 400 / (math.log(10) * math.sqrt(2) * BETA)
"""At sigma 0 the model's P(a beats b) is ``1 / (1 + exp(-(mu_a - mu_b) / (sqrt 2 beta)))``,
the Elo formula's at ``(mu_a - mu_b) * ELO_PER_MU`` (about 29.5 Elo a point of mu)."""


def model() -> PlackettLuce:
    return PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=0.0)


@dataclass(frozen=True)
class SkillRating:
    player: str
    mu: float
    sigma: float
    units: int
    """Rated units the bot played in (on either team)."""

    @property
    def ordinal(self) -> float:
        """``mu - 3 sigma``: in the model, 99.9% likely to be at most the bot's skill."""
        return self.mu - Z * self.sigma

    @property
    def elo(self) -> float:
        """``mu`` on the Elo scale, 0 at the starting mu."""
        return (self.mu - MU) * ELO_PER_MU


@dataclass(frozen=True)
class SkillTable:
    ratings: tuple[SkillRating, ...]
    """Best ordinal first (ties broken by name)."""

    def by_player(self) -> dict[str, SkillRating]:
        return {r.player: r for r in self.ratings}


def unit_order(outcome: TeamOutcome) -> tuple[str, TeamOutcome]:
    """Where a unit goes in the sequence: fixed by its pair key alone, and interleaving
    a round robin's pairings (see the module's docstring)."""
    return hashlib.sha256(outcome.key.encode()).hexdigest(), outcome


def rate(outcomes: Iterable[TeamOutcome], players: Sequence[str] = ()) -> SkillTable:
    """Ratings of every bot in ``outcomes`` (and in ``players``, at the start if it has
    no unit), from the units in ``unit_order``: a function of the set of units."""
    return rate_in_order(sorted(outcomes, key=unit_order), players)


def rate_in_order(outcomes: Sequence[TeamOutcome], players: Sequence[str] = ()) -> SkillTable:
    """Ratings from the units in the order given (``rate`` fixes the order; this is for
    measuring what the order does)."""
    openskill = model()
    names = sorted(set(players) | {p for o in outcomes for p in (*o.a, *o.b)})
    belief: dict[str, PlackettLuceRating] = {name: openskill.rating(name=name) for name in names}
    units = dict.fromkeys(names, 0)
    for o in outcomes:
        if set(o.a) & set(o.b):
            raise ValueError(f"unit {o.key}: a bot on both teams")
        ranks = [0.0, 0.0] if o.score == 0.5 else [0.0, 1.0] if o.score == 1.0 else [1.0, 0.0]
        new_a, new_b = openskill.rate([[belief[p] for p in o.a], [belief[p] for p in o.b]], ranks)
        for name, rating in (*zip(o.a, new_a, strict=True), *zip(o.b, new_b, strict=True)):
            belief[name] = rating
            units[name] += 1
    ratings = (SkillRating(n, belief[n].mu, belief[n].sigma, units[n]) for n in names)
    return SkillTable(tuple(sorted(ratings, key=lambda r: (-r.ordinal, r.player))))


def skill_table(results: Iterable[MatchResult], game: str = "") -> SkillTable:
    """OpenSkill ratings of every bot in stored ``results`` (only ``game``'s when given),
    from the same units the Elo leaderboard rates."""
    chosen = [r for r in results if not game or r.game == game]
    return rate(team_outcomes(chosen), players(chosen))
