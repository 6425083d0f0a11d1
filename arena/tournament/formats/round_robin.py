"""Round robin and gauntlet: a fixed list of pairings, every one played in full.

Round robin pairs every entry with every other; a gauntlet pairs each of its
challengers with every other entry, and challengers never meet. Each pairing plays
every game both its entries play, ``deals`` deals each, in both seatings. The order is
fixed: game, pairing, deal, seating. The n-th match is found by arithmetic, so handing
out a window costs the same at the start of a 200,000-match schedule as at its end.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from arena.tournament.formats.base import (
    CliParam,
    Field,
    Format,
    InvalidFormat,
    State,
    unit_matches,
)
from arena.tournament.schedule import ScheduledMatch
from arena.v1 import arena_pb2


class RoundRobin(Format):
    name = "round-robin"
    proto = arena_pb2.FORMAT_ROUND_ROBIN
    title = "Round robin"

    def __init__(self, field: Field, params: Mapping[str, Any]) -> None:
        super().__init__(field, params)
        # Per game, the pairings that play it, numbered by their place among all the
        # tournament's pairings (so a unit's name does not depend on who plays what).
        self.blocks: list[tuple[str, list[tuple[int, str, str]]]] = []
        for game in field.games:
            pairings = [
                (p, a, b)
                for p, (a, b) in enumerate(itertools.combinations(field.entries, 2))
                if self.pairs(a, b) and game in field.common_games(a, b)
            ]
            if pairings:
                self.blocks.append((game, pairings))
        self.per_pairing = 2 * field.deals

    def pairs(self, a: str, b: str) -> bool:
        """Whether ``a`` and ``b`` meet."""
        return True

    def total(self) -> int:
        return sum(len(pairings) for _, pairings in self.blocks) * self.per_pairing

    def start(self) -> State:
        return {"issued": 0}

    def next(self, state: State, room: int) -> tuple[State, list[ScheduledMatch]]:
        first = state["issued"]
        last = min(first + room, self.total())
        matches = [self.match(i) for i in range(first, last)]
        return {**state, "issued": last}, matches

    def decided(self, state: State) -> bool:
        return bool(state["issued"] >= self.total())

    def match(self, index: int) -> ScheduledMatch:
        """The ``index``-th match of the schedule."""
        for game, pairings in self.blocks:
            size = len(pairings) * self.per_pairing
            if index < size:
                p, a, b = pairings[index // self.per_pairing]
                deal, half = divmod(index % self.per_pairing, 2)
                pair = unit_matches(self.field, f"{game}-{p}-{deal}", game, a, b, deal)
                return pair[half]
            index -= size
        raise IndexError("past the end of the schedule")

    @classmethod
    def progress_text(cls, t: arena_pb2.Tournament) -> str:
        return "round robin"


class Gauntlet(RoundRobin):
    name = "gauntlet"
    proto = arena_pb2.FORMAT_GAUNTLET
    title = "Gauntlet"
    params_field = "gauntlet"
    cli_params = (
        CliParam("--challenger", "challenger", "challengers", "--challenger BOT, one or more"),
    )

    def __init__(self, field: Field, params: Mapping[str, Any]) -> None:
        challengers = tuple(params.get("challengers", ()))
        unknown = [c for c in challengers if c not in field.entries]
        if not challengers or unknown:
            raise InvalidFormat(
                "a gauntlet names one or more of its entries as challengers, each of which "
                "plays every other entry"
                + (f"; not entries: {', '.join(unknown)}" if unknown else "")
            )
        if len(set(challengers)) == len(field.entries):
            raise InvalidFormat(
                "a gauntlet needs a field to run: at least one entry that is not a challenger"
            )
        self.challengers = frozenset(challengers)
        super().__init__(field, params)

    def pairs(self, a: str, b: str) -> bool:
        return (a in self.challengers) != (b in self.challengers)

    @classmethod
    def params_text(cls, t: arena_pb2.Tournament) -> str:
        return f"{cls.title}: challengers {', '.join(t.spec.gauntlet.challengers)}"

    @classmethod
    def progress_text(cls, t: arena_pb2.Tournament) -> str:
        return f"gauntlet of {', '.join(t.spec.gauntlet.challengers)}"
