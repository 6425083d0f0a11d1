"""The round-robin schedule, deterministic from the master seed.

Every pairing of entries plays every game both entries play, ``deals`` times in each
seating. What the matches deal depends on the fair-play mode (``fair_play``):

- ``open``: every match has a deal key, and so a deal, of its own; an entry never sees a
  deal twice, and each match is rated on its own;
- ``sealed`` / ``trusted``: the two seatings of a deal share one key (a duplicate pair:
  both sides hold the same cards) and the pair is rated as one outcome.

Keys name the game, the pairing and the deal, never the tournament: the same operator
seed deals the same cards in another tournament, which is what reproducible runs want.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from arena.tournament.fair_play import deal_seed


@dataclass(frozen=True)
class ScheduledMatch:
    match_id: str
    game: str
    entries: tuple[str, str]
    """Entry playing team 0, entry playing team 1."""
    deal: int
    seed: int
    pair_key: str
    """The rated unit: the same for both halves of a duplicate pair, else the match id."""
    deal_key: str = ""
    """What the seed derives from; shared only by the halves of a duplicate pair."""
    paired: bool = True
    """Rated with its other half (duplicate), rather than on its own."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ScheduledMatch:
        return cls(**{**data, "entries": tuple(data["entries"])})


def schedule(
    tournament_id: str,
    entries: Sequence[str],
    games_of: Mapping[str, Sequence[str]],
    games: Sequence[str],
    deals: int,
    master_seed: int,
    paired: bool,
) -> list[ScheduledMatch]:
    """All matches, in a fixed order: game, pairing, deal, then the two seatings."""
    matches = []
    for game in games:
        for p, (a, b) in enumerate(itertools.combinations(entries, 2)):
            if game not in games_of[a] or game not in games_of[b]:
                continue
            for deal in range(deals):
                pair = f"{game}-{p}-{deal}"
                for half, seating in (("a", (a, b)), ("b", (b, a))):
                    match_id = f"{tournament_id}-{pair}-{half}"
                    key = pair if paired else f"{pair}-{half}"
                    matches.append(
                        ScheduledMatch(
                            match_id=match_id,
                            game=game,
                            entries=seating,
                            deal=deal,
                            seed=deal_seed(master_seed, key),
                            pair_key=f"{tournament_id}-{pair}" if paired else match_id,
                            deal_key=key,
                            paired=paired,
                        )
                    )
    return matches
