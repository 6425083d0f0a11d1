"""Trick-taking helpers shared by the engines of Bid Euchre, Baloot and Bridgette.

Only what every trick game agrees on lives here: a played card, a finished trick,
who may play what when a suit is led, and who wins a trick. What a card's suit or
strength *is* differs by game (Bid Euchre's left bower is a trump, not a card of its
printed suit), so callers pass those as functions, usually a precomputed table's
``__getitem__`` so the hot path stays a dictionary lookup.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.games.cards import Card

SuitOf = Callable[[Card], str]
"""The suit a card counts as in this deal (its *effective* suit), e.g. a bower's trump."""

StrengthOf = Callable[[Card], int]
"""A number that orders cards of one effective suit: higher beats lower."""


@dataclass(frozen=True, slots=True)
class PlayedCard:
    """A card together with the seat that played it."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class Trick:
    """A finished trick: who led, the cards in play order, and who took it."""

    leader: int
    cards: tuple[PlayedCard, ...]
    winner: int


def cards_that_follow(hand: Sequence[Card], led_suit: str, suit_of: SuitOf) -> list[Card]:
    """The cards of ``hand`` that may be played to a trick led in ``led_suit``.

    A player holding the led suit must play it; a player void in it may play anything.
    The hand's order is kept, so a canonically sorted hand gives a sorted answer.
    """
    following = [card for card in hand if suit_of(card) == led_suit]
    return following if following else list(hand)


def trick_winner(
    cards: Sequence[PlayedCard],
    trump: str | None,
    suit_of: SuitOf,
    strength: StrengthOf,
) -> int:
    """Seat that takes the trick: the strongest trump played, else the strongest card
    of the led suit. Cards of any other suit never win. ``trump`` is ``None`` when the
    deal has no trump suit.
    """
    best = cards[0]
    best_suit = suit_of(best.card)
    best_strength = strength(best.card)
    for played in cards[1:]:
        suit = suit_of(played.card)
        if suit == best_suit:
            played_strength = strength(played.card)
            if played_strength > best_strength:
                best, best_strength = played, played_strength
        elif suit == trump:
            # The best so far is not a trump (else the branch above ran): trump beats it.
            best, best_suit, best_strength = played, suit, strength(played.card)
    return best.seat


def seat_after(seat: int, num_seats: int, sitting_out: int | None = None) -> int:
    """The next seat in turn order, skipping a seat that sits the deal out.

    Seats are numbered in each game's direction of play (clockwise in Bid Euchre,
    counter-clockwise in Baloot), so the next seat is always ``seat + 1``.
    """
    following = (seat + 1) % num_seats
    if following == sitting_out:
        following = (following + 1) % num_seats
    return following
