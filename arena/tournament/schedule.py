"""The duplicate round-robin schedule, deterministic from the master seed.

Every pairing of entries plays every game both entries play, on ``deals`` deal seeds;
each seed is played twice with the entries swapping seats, so both sides hold the same
cards. The seed of deal ``k`` of a game is the same for every pairing, which also makes
results comparable across pairings.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class ScheduledMatch:
    match_id: str
    game: str
    entries: tuple[str, str]
    """Entry playing team 0, entry playing team 1."""
    deal: int
    seed: int
    pair_key: str
    """The same for both halves of a duplicate pair."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ScheduledMatch:
        return cls(**{**data, "entries": tuple(data["entries"])})


def deal_seed(master_seed: int, game: str, deal: int) -> int:
    digest = hashlib.sha256(f"{master_seed}:{game}:{deal}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def schedule(
    tournament_id: str,
    entries: Sequence[str],
    games_of: Mapping[str, Sequence[str]],
    games: Sequence[str],
    deals: int,
    master_seed: int,
) -> list[ScheduledMatch]:
    """All matches, in a fixed order: game, pairing, deal, then the two seatings."""
    matches = []
    for game in games:
        for p, (a, b) in enumerate(itertools.combinations(entries, 2)):
            if game not in games_of[a] or game not in games_of[b]:
                continue
            for deal in range(deals):
                seed = deal_seed(master_seed, game, deal)
                key = f"{tournament_id}-{game}-{p}-{deal}"
                for half, seating in (("a", (a, b)), ("b", (b, a))):
                    matches.append(ScheduledMatch(f"{key}-{half}", game, seating, deal, seed, key))
    return matches
