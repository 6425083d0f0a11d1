"""Baloot's observation records: ``BalootObservation``, what one seat may know, and the
records of bids, doublings and declared projects it lists. Part of the engine
``arena.games.baloot.game``, which exports these names.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.games.cards import Card
from arena.games.tricks import PlayedCard, Trick

# --- Observation -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BalootBidMade:
    """One call: ``bid`` pass, hokum, sun or ashkal; ``stage`` the bidding phase it was in."""

    seat: int
    bid: str
    bidding_round: int
    stage: str


@dataclass(frozen=True, slots=True)
class BalootDoublingMade:
    """One step of the doubling chain: decline, double, triple, four or gahwa."""

    seat: int
    doubling: str


@dataclass(frozen=True, slots=True)
class BalootDeclaredProject:
    """A declared project with its seat and its points in this round's contract."""

    seat: int
    kind: str
    cards: tuple[Card, ...]
    points: int


@dataclass(frozen=True, slots=True)
class BalootObservation:
    """What one seat may know; fields mirror the proto ``BalootObservation`` by name.

    ``contract``, ``trump``, ``buyer`` and ``project_team`` are ``None`` until known;
    ``projects`` is empty until trick 1 is over; ``own_projects`` shows this seat's
    declaration as soon as it is made.
    """

    seat: int
    dealer: int
    phase: str
    round_number: int
    hand: tuple[Card, ...]
    up_card: Card
    bidding_round: int
    bids: tuple[BalootBidMade, ...]
    contract: str | None
    trump: str | None
    buyer: int | None
    multiplier: int
    gahwa: bool
    locked: bool
    doubling_allowed: bool
    doublings: tuple[BalootDoublingMade, ...]
    own_projects: tuple[BalootDeclaredProject, ...]
    projects: tuple[BalootDeclaredProject, ...]
    project_team: int | None
    trick: tuple[PlayedCard, ...]
    tricks: tuple[Trick, ...]
    tricks_won: tuple[int, ...]
    abnat: tuple[int, ...]
    scores: tuple[int, ...]
    hand_sizes: tuple[int, ...]
