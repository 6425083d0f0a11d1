"""A scheduled match: what a worker asks a referee to play, deterministic from the
master seed. Formats (``arena.tournament.formats``) decide which matches to schedule.

What the matches deal depends on the fair-play mode (``fair_play``):

- ``open``: every match has a deal key, and so a deal, of its own; an entry never sees a
  deal twice, and each match is rated on its own;
- ``sealed`` / ``trusted``: the two seatings of a deal share one key (a duplicate pair:
  both sides hold the same cards) and the pair is rated as one outcome.

Keys name the game, the pairing and the deal, never the tournament: the same operator
seed deals the same cards in another tournament, which is what reproducible runs want.
"""

from __future__ import annotations

from collections.abc import Mapping
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
