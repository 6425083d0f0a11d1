"""Rated units: a duplicate pair, or a single match.

Card games are luck-heavy; playing each deal twice with the entries swapping seats
cancels most of the luck. The pair's total margin (entry A's points minus B's, summed
over both matches) decides it: positive, A wins; zero, a draw; negative, B wins. Where
bots may remember a deal (``fair_play = open``) no deal is played twice, and a match is
its own unit, decided by its margin the same way; more of them are needed for the same
interval (``bench/rating_units.py`` measures how many).

A pair also has five outcomes (``five=True``, the pentanomial reading of fishtest's
paired games): the total margin still decides who won it, and a win is split into won
both halves (each match's own margin positive) or won on the total only, a loss the
same way (``Outcome.level``: 4, 3, 2 level, 1, 0). Why not fishtest's own five, the
sum of the two halves' results: a half decided by its own margin keeps the luck of the
deal, and in every game measured that reading needed 1.2 to 2.9 times as many pairs as
the total margin for the same interval (``bench/rating_units.py``), while this one
refines the total margin and loses nothing of it.
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


def pair_outcomes(results: Iterable[DuplicateResult], five: bool = False) -> list[Outcome]:
    """One outcome per complete unit: a pair with one match missing is not rated yet.
    With ``five``, each pair's outcome carries its five-outcome ``level`` (a match
    rated alone has none)."""
    return [outcome for _, outcome in keyed_outcomes(results, five)]


def pair_level(margins: Iterable[int]) -> int:
    """The five-outcome level of a pair for the entry whose margins (one per match,
    its points less the other's) are given: 4 it won both matches, 3 it won on the total
    margin without winning both, 2 level, 1 and 0 the mirror."""
    halves = list(margins)
    total = sum(halves)
    if total > 0:
        return 4 if all(m > 0 for m in halves) else 3
    if total < 0:
        return 0 if all(m < 0 for m in halves) else 1
    return 2


def keyed_outcomes(
    results: Iterable[DuplicateResult], five: bool = False
) -> list[tuple[str, Outcome]]:
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
        if forfeits:  # lost outright: the lowest level, whatever the margins
            score = 0.5 if forfeits == {a, b} else (0.0 if a in forfeits else 1.0)
            level = int(4 * score)
        else:
            level = pair_level(m.margin if m.a == a else -m.margin for m in matches)
            score = 1.0 if level > 2 else 0.5 if level == 2 else 0.0
        read = five and matches[0].paired
        outcomes.append((key, Outcome(a, b, score, level if read else None)))
    return outcomes
