"""Leagues: CodinGame-style tiers on a competition's open ladder (``docs/competitions.md``).

The rules list 2 to 8 leagues, lowest first; each but the last (the top) has a boss, a
version of a bot the operator registered. Every version starts in the lowest league. It
moves up one league when its record against that league's boss, in duplicate pairs
(every game together), has at least ``promotion_pairs`` pairs and a likelihood of
superiority of at least ``promotion_los``, and is then judged against the next boss,
and so on. The LOS is the one ``arena sprt`` prints on pair outcomes
(``arena.ratings.compare.los`` of W - L over sqrt(W + L)): draws tell nothing about who
is stronger. It is judged after every pair that arrives. A version never goes down,
whatever its later pairs against a boss it already beat (units in flight as it moved
up): the ladder keeps each version's league in its state. Looked at after every pair,
the LOS is no fixed error rate: a version as strong as its boss crosses it by luck in
the end; the rule makes a boss a bar to clear, and the ratings the measure.

Pure: the ladder (``arena.tournament.formats.ladder_leagues``) keeps the records and
the leagues reached; the board reads them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.ratings.compare import los

PROMOTION_LOS = (0.95, 0.5, 0.9999)
"""The default LOS over a boss that moves a version up, what it must be above (even
pairs give 0.5: a coin toss) and the most it may be."""
PROMOTION_PAIRS = (6, 1, 1000)
"""The default, least and most pairs against a boss before a promotion is judged: six
straight wins is an LOS of 0.993, five wins and a loss 0.949."""
LEAGUES = (2, 8)
"""The fewest and most leagues: a lowest with a boss, a top without."""

Record = tuple[int, int, int]
"""Duplicate pairs won, drawn and lost against a boss."""


@dataclass(frozen=True)
class League:
    name: str
    boss: str
    """``name@version``; empty for the top league."""


@dataclass(frozen=True)
class Leagues:
    """The rules' leagues, lowest first, and what moves a version up."""

    leagues: tuple[League, ...]
    promotion_los: float = PROMOTION_LOS[0]
    promotion_pairs: int = PROMOTION_PAIRS[0]

    def bosses(self) -> dict[str, int]:
        """Each boss's league, by its label."""
        return {league.boss: i for i, league in enumerate(self.leagues) if league.boss}

    def to_json(self) -> dict[str, Any]:
        return {
            "leagues": [{"name": x.name, "boss": x.boss} for x in self.leagues],
            "promotion_los": self.promotion_los,
            "promotion_pairs": self.promotion_pairs,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Leagues:
        return cls(
            tuple(League(str(x["name"]), str(x["boss"])) for x in data["leagues"]),
            float(data["promotion_los"]),
            int(data["promotion_pairs"]),
        )


def promoted(record: Record, promotion_los: float, promotion_pairs: int) -> bool:
    """Whether ``record`` against a boss moves a version past it."""
    wins, draws, losses = record
    if wins + draws + losses < promotion_pairs:
        return False
    return los(wins - losses, math.sqrt(wins + losses)) >= promotion_los


def record_against(counts: Mapping[str, Any], version: str, boss: str) -> Record:
    """``version``'s pairs against ``boss`` over every game, from the ladder's counts
    (``{game: {a: {b: [w, d, l]}}}``, ``a < b``, from ``a``'s side)."""
    a, b = sorted((version, boss))
    wins = draws = losses = 0
    for by_pair in counts.values():
        row = by_pair.get(a, {}).get(b)
        if row:
            wins, draws, losses = wins + row[0], draws + row[1], losses + row[2]
    return (wins, draws, losses) if a == version else (losses, draws, wins)


def climb(rules: Leagues, counts: Mapping[str, Any], version: str, reached: int = 0) -> int:
    """``version``'s league: from ``reached`` (the league it is in so far), up past every
    boss its record beats, one league at a time."""
    league = reached
    while league < len(rules.leagues) - 1:
        boss = rules.leagues[league].boss
        record = record_against(counts, version, boss)
        if not promoted(record, rules.promotion_los, rules.promotion_pairs):
            break
        league += 1
    return league


def league_of(rules: Leagues, reached: Mapping[str, int], label: str) -> int:
    """``label``'s league: a boss's own; a version's as far as it has climbed
    (``reached``, the ladder's record; absent: the lowest)."""
    bosses = rules.bosses()
    return bosses[label] if label in bosses else int(reached.get(label, 0))
