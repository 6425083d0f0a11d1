"""Bid Euchre's rules of the calls, the ASK return and the play, as pure functions of plain
values (card codes, the trump suit, call indices). The engine's legal actions and the
explanations of illegal moves (``why``) both call these, so each rule is written once.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.bid_euchre.actions import CALL_BASE, EFFECTIVE_SUIT, MOON, PASS, STRENGTH
from arena.games.cards import SUITS, Card


def may_call(call: int, high: int, stuck: bool) -> bool:
    """Whether ``call`` (an index of ``CALLS``) may be made over the highest call ``high``:
    a call must beat it; a pass is always allowed, except to a stuck dealer."""
    return not stuck if call == PASS else call > high


def dealer_stuck(stick_the_dealer: bool, seat: int, dealer: int, high: int) -> bool:
    """Stick the dealer: after three passes the dealer may not pass too."""
    return stick_the_dealer and seat == dealer and high == PASS


CALLS_ABOVE: tuple[list[int], ...] = tuple(
    [CALL_BASE + c for c in range(MOON + 1) if may_call(c, high, stuck=False)]
    for high in range(MOON + 1)
)
"""Legal call actions given the highest call so far: pass, or anything higher (only pass
after MOON); precomputed from ``may_call`` so the engine's hot path is a lookup."""
STUCK_DEALER_CALLS = [CALL_BASE + c for c in range(MOON + 1) if may_call(c, PASS, stuck=True)]


def trumps_in(cards: Sequence[Card], trump: str) -> list[Card]:
    """The trumps among ``cards``: the trump suit, the left bower and the joker."""
    suit_of = EFFECTIVE_SUIT[trump]
    return [card for card in cards if suit_of[card] == trump]


def returnable(dealt: list[Card], trump: str) -> list[Card]:
    """What partner may return in an ASK: the highest trump among the six dealt cards
    (bowers and joker included); any of the six when none is a trump. The card just
    received is not among them, so it can never go back."""
    trumps = trumps_in(dealt, trump)
    if not trumps:
        return dealt
    return [max(trumps, key=STRENGTH[trump].__getitem__)]


def _following(trump: str) -> dict[Card, frozenset[Card]]:
    """For each card led under ``trump``, the cards of its effective suit (a led left bower
    or joker is a trump lead)."""
    suit_of = EFFECTIVE_SUIT[trump]
    by_suit = {suit: frozenset(card for card in suit_of if suit_of[card] == suit) for suit in SUITS}
    return {led: by_suit[suit] for led, suit in suit_of.items()}


FOLLOWING: dict[str, dict[Card, frozenset[Card]]] = {trump: _following(trump) for trump in SUITS}
"""By trump, then by the card led: the cards that follow it. One lookup a card, which keeps
the engine's commonest step, the next seat's legal plays, short."""


def follows(hand: list[Card], led: Card, trump: str) -> list[Card]:
    """Cards of ``hand`` that may follow ``led``: its effective suit (a led left bower or
    joker is a trump lead) if held, else any card."""
    same_suit = FOLLOWING[trump][led]
    return [card for card in hand if card in same_suit] or list(hand)
