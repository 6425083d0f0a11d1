"""Seep's observation records: ``SeepObservation``, what one seat may know, and the records
of houses, plays, team piles and deal results it lists. Part of the engine
``arena.games.seep.game``, which exports these names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from arena.games.cards import Card
from arena.games.seep.actions import NUM_SEATS

# --- Observation -----------------------------------------------------------------------------
# The nested records are named tuples rather than frozen dataclasses: they are as
# immutable and hashable, convert to proto by field name just the same, and are three
# times cheaper to build, which counts since every play and observation makes some.

OWNER_SEATS: tuple[tuple[int, ...], ...] = tuple(
    tuple(s for s in range(NUM_SEATS) if owners >> s & 1) for owners in range(1 << NUM_SEATS)
)
"""The seats of an owner bitmask, ascending."""
OWNER_TEXT: tuple[str, ...] = tuple("+".join(map(str, seats)) for seats in OWNER_SEATS)
"""The same, as text for logs: "0+2"."""


class SeepHouse(NamedTuple):
    """A house as the proto ``SeepHouse``: value, cards, cemented flag, k and owners."""

    value: int
    cards: tuple[Card, ...]
    cemented: bool
    multiplicity: int
    owners: tuple[int, ...]


class SeepPlay(NamedTuple):
    """One play of the deal as the proto ``SeepPlay``; ``kind`` is throw, capture, build,
    add or break. ``value`` is the house value after the play (CAPTURE: of the house
    taken), ``broken_value`` the value a BREAK started from."""

    play_number: int
    seat: int
    kind: str
    card: Card
    value: int | None = None
    broken_value: int | None = None
    loose: tuple[Card, ...] = ()
    house_cards: tuple[Card, ...] = ()
    sweep: bool = False
    bonus: int = 0


class SeepTeamPile(NamedTuple):
    """What a team took in this deal: cards, their points, sweeps and the deal score."""

    cards: tuple[Card, ...]
    points: int
    sweeps: int
    sweep_points: int
    deal_score: int


EMPTY_PILE = SeepTeamPile((), 0, 0, 0, 0)


class SeepDealResult(NamedTuple):
    """One finished deal: deal scores, the difference after it, and the bazzi outcome."""

    deal_number: int
    bazzi_number: int
    dealer: int
    deal_scores: tuple[int, ...]
    difference: int
    bazzi_winner: int | None
    bazzi_over: bool


@dataclass(slots=True)
class SeepObservation:
    """What one seat may know; fields mirror the proto ``SeepObservation`` by name.

    ``difference`` is team 0 minus team 1 within the current bazzi; ``scores`` are bazzis
    won. During the bid only the bidder holds cards and the floor is face down.

    Not frozen: one is built for every decision, and a frozen dataclass of 24 fields costs
    three times as much to build. Every field holds an immutable value, and each call
    makes a new observation, so nothing a caller does to one reaches the state.
    """

    seat: int
    phase: str
    dealer: int
    bidder: int
    bid: int | None
    hand: tuple[Card, ...]
    loose: tuple[Card, ...]
    houses: tuple[SeepHouse, ...]
    face_down_floor: int
    play_number: int
    hand_sizes: tuple[int, ...]
    captured_counts: tuple[int, ...]
    piles: tuple[SeepTeamPile, ...]
    last_capture_team: int | None
    plays: tuple[SeepPlay, ...]
    difference: int
    scores: tuple[int, ...]
    bazzi_number: int
    bazzis: int
    deal_number: int
    deals_in_bazzi: int
    max_deals: int
    deal_history: tuple[SeepDealResult, ...]
    redeal_cards: tuple[Card, ...]
