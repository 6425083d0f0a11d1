"""Bridgette: following suit or the led card's colon, and the barred suit. Whether a card
may be played is the engine's own rule (``rules.follows``, ``rules.leads``); this module
only puts it in words."""

from __future__ import annotations

from arena.games.bridgette import rules
from arena.games.bridgette.actions import MATCHING_COLON, SUIT_OF
from arena.play.why.words import (
    SUIT_LETTERS,
    SUIT_WORDS,
    Card,
    Observation,
    _follow,
    codes,
    show,
)


def explain_card(observation: Observation, card: Card, verb: str) -> str | None:
    """Follow suit or play the led card's own colon; a barred suit may not be led."""
    hand = codes(observation.hand)
    trick = [str(p.card.code) for p in observation.trick]
    if not trick:
        barred = SUIT_LETTERS.get(observation.barred_suit)
        if barred is None or card in rules.leads(hand, barred):
            return None
        return (
            f"{SUIT_WORDS[barred]} are barred: a colon was played on your "
            f"{SUIT_WORDS[barred]} lead, so you may not lead {SUIT_WORDS[barred]} again "
            f"while you hold another card"
        )
    led = trick[0]
    allowed = rules.follows(hand, led)
    if card in allowed:
        return None
    matching = MATCHING_COLON[led]
    if not SUIT_OF[card]:
        return (
            f"a colon may follow only a card of its group: {show(led)} takes the "
            f"{show(matching)}, and another colon only when nothing else can be played"
        )
    holding = [c for c in allowed if SUIT_OF[c]]
    return _follow(SUIT_OF[led], holding, card, f" (or the {show(matching)})")
