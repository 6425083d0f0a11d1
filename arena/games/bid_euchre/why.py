"""Bid Euchre: following suit with the left bower and the joker, the ASK return, the calls.
Whether a card or call is allowed is the engine's own rule (``rules``); this module only
puts it in words."""

from __future__ import annotations

from arena.games.bid_euchre import rules
from arena.games.bid_euchre.actions import (
    CALL_SHOWN,
    CALLS,
    EFFECTIVE_SUIT,
    JOKER,
    PASS,
    left_bower,
)
from arena.play.screen import enum_text
from arena.play.why.words import (
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


def explain_card(observation: Observation, card: Card, verb: str) -> str | None:
    """Follow the led suit, the left bower and the joker counting as trumps; the ASK
    return."""
    trump = SUIT_LETTERS.get(observation.trump)
    if trump is None:
        return None
    hand = codes(observation.hand)
    if observation.phase == bid_euchre_pb2.BID_EUCHRE_PHASE_ASK_RETURN:
        return _return_fault(observation, hand, card, trump)
    trick = [str(p.card.code) for p in observation.trick]
    if not trick:
        return None
    holding = rules.follows(hand, trick[0], trump)
    if card in holding:
        return None
    left = left_bower(trump)
    notes = []
    if trick[0] in (left, JOKER):
        led_card = "joker" if trick[0] == JOKER else show(left)
        notes.append(f"the {led_card} led is a trump, so trumps were led")
    if card == left:
        notes.append(f"the {show(left)} is a trump in a {SUIT_WORDS[trump]} hand")
    elif card == JOKER:
        notes.append(f"the joker is a trump ({SUIT_WORDS[trump]}), not a card of the led suit")
    elif left in holding:
        notes.append(f"your {show(left)} counts as a trump")
    if JOKER in holding and card != JOKER:
        notes.append("your joker counts as a trump")
    led = EFFECTIVE_SUIT[trump][trick[0]]
    return _follow(led, holding, card, "".join(f"; {n}" for n in notes), trump)


def _return_fault(observation: Observation, hand: list[Card], card: Card, trump: str) -> str | None:
    """Partner returns the highest of the six dealt cards' trumps (``rules.returnable``);
    the words list every trump in the hand."""
    given = str(observation.card_given.code) if observation.HasField("card_given") else ""
    dealt = [c for c in hand if c != given]
    trumps = rules.trumps_in(hand, trump)
    if not trumps or card in rules.returnable(dealt, trump):
        return None
    joker = " and the joker" if JOKER in trumps else ""
    return (
        f"in an ASK you must return your highest trump (bowers{joker} included): "
        f"of {shown(trumps)}, that is not {show(card)}"
    )


CALL_WORDS = {
    word.casefold(): call for call, name in enumerate(CALLS) for word in (name, CALL_SHOWN[call])
}
"""A typed call (``call 4``, ``four``, ``pass``) to the engine's call index (``CALLS``),
from the weakest call to the strongest."""


def _call_index(proto_call: int) -> int:
    """The engine's index of a proto ``BidEuchreCall`` (same order, after UNSPECIFIED)."""
    return proto_call - bid_euchre_pb2.BID_EUCHRE_CALL_PASS


def explain_call(observation: Observation, text: str) -> str | None:
    """A call must beat the highest so far; the dealer stuck after three passes must call
    (``rules.may_call``, ``rules.dealer_stuck``)."""
    if observation.phase != bid_euchre_pb2.BID_EUCHRE_PHASE_BIDDING:
        return None
    words = text.casefold().split()
    if words[:1] == ["call"]:
        words = words[1:]
    call = CALL_WORDS.get(words[0]) if len(words) == 1 else None
    if call is None:
        return None
    made = [c for c in observation.calls if c.call != bid_euchre_pb2.BID_EUCHRE_CALL_PASS]
    highest = max(made, key=lambda c: c.call, default=None)
    high = PASS if highest is None else _call_index(highest.call)
    # The observation does not carry stick_the_dealer: with it off, the dealer's pass is
    # legal and never reaches here, so a refused pass means it is on.
    stuck = rules.dealer_stuck(True, observation.seat, observation.dealer, high)
    if rules.may_call(call, high, stuck):
        return None
    if highest is None:
        return "the dealer may not pass after three passes (stick the dealer): you must call"
    name = enum_text(bid_euchre_pb2.BidEuchreCall.DESCRIPTOR, highest.call)
    return f"a call must be higher than the highest so far: seat {highest.seat} called {name}"
