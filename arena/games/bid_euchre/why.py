"""Bid Euchre: following suit with the left bower and the joker, the ASK return, the calls."""

from __future__ import annotations

from arena.play.screen import enum_text
from arena.play.why.words import (
    SAME_COLOUR,
    SUIT_LETTERS,
    SUIT_WORDS,
    Card,
    Observation,
    _follow,
    codes,
    show,
    shown,
)
from arena.v1 import bid_euchre_pb2

BID_EUCHRE_JOKER = "X1"


def explain_card(observation: Observation, card: Card, verb: str) -> str | None:
    """Follow the led suit, the left bower and the joker counting as trumps; the ASK
    return."""
    trump = SUIT_LETTERS.get(observation.trump)
    phase = observation.phase
    hand = codes(observation.hand)
    if trump is None:
        return None
    left = "J" + SAME_COLOUR[trump]

    def suit(c: Card) -> str:
        return trump if c in (left, BID_EUCHRE_JOKER) else c[1]

    if phase == bid_euchre_pb2.BID_EUCHRE_PHASE_ASK_RETURN:
        trumps = [c for c in hand if suit(c) == trump]
        joker = " and the joker" if BID_EUCHRE_JOKER in trumps else ""
        return (
            f"in an ASK you must return your highest trump (bowers{joker} included): "
            f"of {shown(trumps)}, that is not {show(card)}"
            if trumps
            else None
        )
    trick = [str(p.card.code) for p in observation.trick]
    if not trick:
        return None
    led = suit(trick[0])
    holding = [c for c in hand if suit(c) == led]
    if not holding or suit(card) == led:
        return None
    notes = []
    if trick[0] in (left, BID_EUCHRE_JOKER):
        led_card = "joker" if trick[0] == BID_EUCHRE_JOKER else show(left)
        notes.append(f"the {led_card} led is a trump, so trumps were led")
    if card == left:
        notes.append(f"the {show(left)} is a trump in a {SUIT_WORDS[trump]} hand")
    elif card == BID_EUCHRE_JOKER:
        notes.append(f"the joker is a trump ({SUIT_WORDS[trump]}), not a card of the led suit")
    elif left in holding:
        notes.append(f"your {show(left)} counts as a trump")
    if BID_EUCHRE_JOKER in holding and card != BID_EUCHRE_JOKER:
        notes.append("your joker counts as a trump")
    return _follow(led, holding, card, "".join(f"; {n}" for n in notes), trump)


BID_EUCHRE_CALLS = {
    "pass": bid_euchre_pb2.BID_EUCHRE_CALL_PASS,
    "3": bid_euchre_pb2.BID_EUCHRE_CALL_THREE,
    "three": bid_euchre_pb2.BID_EUCHRE_CALL_THREE,
    "4": bid_euchre_pb2.BID_EUCHRE_CALL_FOUR,
    "four": bid_euchre_pb2.BID_EUCHRE_CALL_FOUR,
    "5": bid_euchre_pb2.BID_EUCHRE_CALL_FIVE,
    "five": bid_euchre_pb2.BID_EUCHRE_CALL_FIVE,
    "ask": bid_euchre_pb2.BID_EUCHRE_CALL_ASK,
    "moon": bid_euchre_pb2.BID_EUCHRE_CALL_MOON,
}
"""A typed call (``call 4``, ``four``, ``pass``) to the proto's call; the enum runs from
the weakest call to the strongest."""


def explain_call(observation: Observation, text: str) -> str | None:
    """A call must beat the highest so far; the dealer stuck after three passes must call."""
    if observation.phase != bid_euchre_pb2.BID_EUCHRE_PHASE_BIDDING:
        return None
    words = text.casefold().split()
    if words[:1] == ["call"]:
        words = words[1:]
    call = BID_EUCHRE_CALLS.get(words[0]) if len(words) == 1 else None
    if call is None:
        return None
    made = [c for c in observation.calls if c.call != bid_euchre_pb2.BID_EUCHRE_CALL_PASS]
    if call == bid_euchre_pb2.BID_EUCHRE_CALL_PASS:
        if not made and observation.seat == observation.dealer:
            return "the dealer may not pass after three passes (stick the dealer): you must call"
        return None
    highest = max(made, key=lambda c: c.call, default=None)
    if highest is not None and call <= highest.call:
        name = enum_text(bid_euchre_pb2.BidEuchreCall.DESCRIPTOR, highest.call)
        return f"a call must be higher than the highest so far: seat {highest.seat} called {name}"
    return None
