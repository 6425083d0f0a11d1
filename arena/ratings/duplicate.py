"""Rated units: a duplicate pair, or a single match.

Card games are luck-heavy; playing each deal twice with the entries swapping seats
cancels most of the luck. The pair's total margin (entry A's points minus B's, summed
over both matches) decides it: positive, A wins; zero, a draw; negative, B wins. Where
bots may remember a deal (``fair_play = open``) no deal is played twice, and a match is
its own unit, decided by its margin the same way; more of them are needed for the same
interval (``bench/rating_units.py`` measures how many).
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
    paired: bool = True
    """Half of a duplicate pair; False for a match rated on its own."""


def pair_outcomes(results: Iterable[DuplicateResult]) -> list[Outcome]:
    """One outcome per complete unit: a pair with one match missing is not rated yet."""
    return [outcome for _, outcome in keyed_outcomes(results)]


def keyed_outcomes(results: Iterable[DuplicateResult]) -> list[tuple[str, Outcome]]:
    """``pair_outcomes`` with each unit's pair key, in key order: what a sequential
    model (``arena.ratings.skill``) needs to put the units in an order of its own."""
    by_pair: dict[str, list[DuplicateResult]] = defaultdict(list)
    for result in results:
        by_pair[result.pair_key].append(result)
    outcomes = []
    for key in sorted(by_pair):
        matches = by_pair[key]
        if len(matches) != (2 if matches[0].paired else 1):
            continue
        a, b = sorted({matches[0].a, matches[0].b})
        forfeits = {m.forfeit_by for m in matches} - {None}
        if forfeits:
            score = 0.5 if forfeits == {a, b} else (0.0 if a in forfeits else 1.0)
        else:
            margin = sum(m.margin if m.a == a else -m.margin for m in matches)
            score = 1.0 if margin > 0 else 0.5 if margin == 0 else 0.0
        outcomes.append((key, Outcome(a, b, score)))
    return outcomes
