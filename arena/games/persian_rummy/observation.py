"""Persian Rummy's observation records: ``PersianRummyObservation``, what one seat may know,
and the records of discards, table melds and seat cards it lists. Part of the engine
``arena.games.persian_rummy.game``, which exports these names.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.games.cards import Card
from arena.games.tricks import PlayedCard

# --- Observation -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PersianRummyDiscard:
    """One card of the discard pile and the seat that discarded it (None: turned up)."""

    card: Card
    seat: int | None


@dataclass(frozen=True, slots=True)
class PersianRummyTableMeld:
    """A meld on the table; ``kind`` is "set" or "run"; each card with the seat that
    placed it, in canonical order."""

    id: int
    kind: str
    cards: tuple[PlayedCard, ...]
    doubled: bool
    melded_by: int


@dataclass(frozen=True, slots=True)
class PersianRummySeatCards:
    """Cards tied to one seat."""

    seat: int
    cards: tuple[Card, ...]


@dataclass(slots=True)
class PersianRummyObservation:
    """What one seat may know; fields mirror the proto ``PersianRummyObservation`` by name.

    A fresh object per call and read-only by convention; it is not frozen because a frozen
    dataclass of this size costs three times as much to build, once per decision. Its
    nested values are frozen and shared between calls.

    ``chosen_card`` is set only in the ``use_chosen`` phase; ``known_cards`` lists, per
    seat, the pile cards it took (seen by everyone) that it still holds.
    """

    seat: int
    deal_number: int
    dealer: int
    phase: str
    hand: tuple[Card, ...]
    discard_pile: tuple[PersianRummyDiscard, ...]
    melds: tuple[PersianRummyTableMeld, ...]
    stock_size: int
    hand_sizes: tuple[int, ...]
    scores: tuple[int, ...]
    table_points: tuple[int, ...]
    chosen_card: Card | None
    passes: int
    known_cards: tuple[PersianRummySeatCards, ...]
