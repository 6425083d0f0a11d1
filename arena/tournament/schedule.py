"""A scheduled match: what a worker asks a referee to play, deterministic from the
master seed. Formats (``arena.tournament.formats``) decide which matches to schedule.

What the matches deal depends on the fair-play mode (``fair_play``):

- ``open``: every match has a deal key, and so a deal, of its own; an entry never sees a
  deal twice, and each match is rated on its own;
- ``sealed`` / ``trusted``: the two seatings of a deal share one key (a duplicate pair:
  both sides hold the same cards) and the pair is rated as one outcome. The second half
  (seating ``b``) starts only once the first (seating ``a``) has ended (``release``), so
  no bot of the first half is still running to signal the cards to one of the second.

Keys name the game, the pairing and the deal, never the tournament: the same operator
seed deals the same cards in another tournament, which is what reproducible runs want.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass, field
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
    options: Mapping[str, str] = field(default_factory=dict, hash=False)
    """The game's options it is played with, as the tournament's spec gives them
    (``PlayMatchRequest.options``); empty: the game's defaults. Stored only when set, so
    a schedule stored before options were played reads as defaults."""

    @property
    def first_half(self) -> str | None:
        """The match that must have ended before this one starts: for the second half of a
        duplicate pair (``<pair_key>-b``, ``formats.unit_matches``) its first half, else None."""
        if not self.paired or self.match_id != f"{self.pair_key}-b":
            return None
        return f"{self.pair_key}-a"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        if not self.options:
            del data["options"]
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ScheduledMatch:
        return cls(**{**data, "entries": tuple(data["entries"])})


def release(
    held: Mapping[str, str], new: Sequence[ScheduledMatch], ended: Collection[str]
) -> tuple[list[str], dict[str, str]]:
    """Which matches to queue now, and which to hold back (second half -> first half).

    ``held`` are the second halves held back so far, ``new`` the matches just handed
    out, ``ended`` the first halves that have ended: a result is stored and no attempt
    at them is still playing. A second half is queued once its first half has ended, and
    never before: the halves of a pair deal the same cards, so while both run a bot of the
    first could tell the cards to one of the second through anything the host shares (CPU
    load, timing). Only the two halves of one pair wait for each other; different pairs
    still play at once, so a tournament of many pairs keeps every worker busy.
    """
    queue: list[str] = []
    still: dict[str, str] = {}
    for second, first in sorted(held.items()):
        if first in ended:
            queue.append(second)
        else:
            still[second] = first
    for match in new:
        waits_for = match.first_half
        if waits_for is None or waits_for in ended:
            queue.append(match.match_id)
        else:
            still[match.match_id] = waits_for
    return queue, still
