"""Persian Rummy's information state memory (``arena.envs.infostate``): which cards each
seat discarded, took from the pile and placed on the table, this deal.

Melds stay on the table, but the observation drops the rest of the record: a card taken
from the pile leaves ``discard_pile`` (and with it who discarded it), and leaves
``known_cards`` once its taker melds or discards it. The memory keeps what any of the
seat's observations of the deal showed, so a discard taken before the seat's next turn
is not in it (the seat was sent nothing while it lay there). ``turn_sightings`` rebuilds
the pile and the taken cards at each of the seat's earlier decisions from the deal's
public events, for ``arena.envs.infostate.information_state_tensor``."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from arena.games import State
from arena.games.persian_rummy.layout import PACK
from arena.v1 import persian_rummy_pb2

INDEX = {code: i for i, code in enumerate(PACK)}
DECISIONS = frozenset({"draw", "take", "meld", "layoff", "discard", "pass"})
"""The events that open a seat's action: the seat was sent an observation just before."""

HAND_FIELDS = ("deal_number",)
BLOCKS = (
    ("discarded", len(PACK), "cards seen on the pile as its discards this deal"),
    ("taken", len(PACK), "cards seen in its hand as taken from the pile this deal"),
    ("melded", len(PACK), "cards it placed on the table this deal (melds and layoffs)"),
)

Sighting = tuple[str, int, int]


def sightings(
    observation: persian_rummy_pb2.PersianRummyObservation,
) -> Iterator[Sighting]:
    for discard in observation.discard_pile:
        if discard.HasField("seat"):
            yield "discarded", discard.seat, INDEX[discard.card.code]
    for known in observation.known_cards:
        for card in known.cards:
            yield "taken", known.seat, INDEX[card.code]
    for meld in observation.melds:
        for played in meld.cards:
            yield "melded", played.seat, INDEX[played.card.code]


class _Table:
    """The pile and the cards known to be held, replayed from one deal's events."""

    def __init__(self, seats: int) -> None:
        self.pile: list[tuple[str, int | None]] = []
        self.known: list[set[str]] = [set() for _ in range(seats)]

    def seen(self) -> Iterator[Sighting]:
        for card, seat in self.pile:
            if seat is not None:
                yield "discarded", seat, INDEX[card]
        for seat, cards in enumerate(self.known):
            for card in cards:
                yield "taken", seat, INDEX[card]

    def apply(self, kind: str, seat: int | None, data: Mapping[str, Any]) -> None:
        if kind == "turn_up":
            self.pile = [(data["card"], None)]
        elif kind == "discard" and seat is not None:
            self.pile.append((data["card"], seat))
            self.known[seat].discard(data["card"])
        elif kind == "take" and seat is not None:
            del self.pile[data["index"] :]
            self.known[seat].update(data["cards"])
        elif kind in ("meld", "layoff") and seat is not None:
            self.known[seat].difference_update(data["cards"])


def turn_sightings(state: State, seat: int) -> set[Sighting]:
    """What ``seat``'s observations at its decisions of the current deal showed."""
    events = state.events
    start = max((i for i, e in enumerate(events) if e.kind == "deal"), default=0)
    table = _Table(state.game_info.num_seats)
    out: set[Sighting] = set()
    for event in events[start:]:
        if event.seat == seat and event.kind in DECISIONS:
            out.update(table.seen())
        table.apply(event.kind, event.seat, event.data)
    return out
