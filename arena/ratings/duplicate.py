"""Duplicate scoring: both matches of a deal, seats swapped, count as one outcome.

Card games are luck-heavy; playing each deal twice with the entries swapping seats
cancels most of the luck. The pair's total margin (entry A's points minus B's, summed
over both matches) decides it: positive, A wins; zero, a draw; negative, B wins.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from arena.ratings.elo import Outcome


@dataclass(frozen=True)
class DuplicateResult:
    """One finished match, reduced to what rating needs."""

    pair_key: str
    """Identifies the duplicate pair: the same for both matches of one deal."""
    a: str
    b: str
    margin: int
    """Entry ``a``'s final score minus entry ``b``'s in this match."""
    forfeit_by: str | None = None
    """The entry that forfeited this match, if any: it loses the pair outright."""


def pair_outcomes(results: Iterable[DuplicateResult]) -> list[Outcome]:
    """One outcome per complete pair; a pair with one match missing is not rated yet."""
    by_pair: dict[str, list[DuplicateResult]] = defaultdict(list)
    for result in results:
        by_pair[result.pair_key].append(result)
    outcomes = []
    for key in sorted(by_pair):
        matches = by_pair[key]
        if len(matches) != 2:
            continue
        a, b = sorted({matches[0].a, matches[0].b})
        forfeits = {m.forfeit_by for m in matches} - {None}
        if forfeits:
            score = 0.5 if forfeits == {a, b} else (0.0 if a in forfeits else 1.0)
        else:
            margin = sum(m.margin if m.a == a else -m.margin for m in matches)
            score = 1.0 if margin > 0 else 0.5 if margin == 0 else 0.0
        outcomes.append(Outcome(a, b, score))
    return outcomes
