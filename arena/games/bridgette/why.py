"""Bridgette: following suit or the led card's colon, and the barred suit."""

from __future__ import annotations

from arena.play.why.words import (
    COLON_NAMES,
    SUIT_LETTERS,
    SUIT_WORDS,
    Card,
    Observation,
    _follow,
    codes,
    show,
)

BRIDGETTE_GROUPS = {"GC": "A", "RC": "KQJ", "LC": "23456789T"}


def _colon_of(card: Card) -> Card:
    return next(colon for colon, ranks in BRIDGETTE_GROUPS.items() if card[0] in ranks)


def explain_card(observation: Observation, card: Card, verb: str) -> str | None:
    """Follow suit or play the led card's own colon; a barred suit may not be led."""
    hand = codes(observation.hand)
    trick = [str(p.card.code) for p in observation.trick]
    if not trick:
        barred = SUIT_LETTERS.get(observation.barred_suit)
        if barred and card not in COLON_NAMES and card[1] == barred:
            return (
                f"{SUIT_WORDS[barred]} are barred: a colon was played on your "
                f"{SUIT_WORDS[barred]} lead, so you may not lead {SUIT_WORDS[barred]} again "
                f"while you hold another card"
            )
        return None
    led = trick[0]
    if led in COLON_NAMES:
        return None
    holding = [c for c in hand if c not in COLON_NAMES and c[1] == led[1]]
    matching = _colon_of(led)
    if card in COLON_NAMES:
        return (
            f"a colon may follow only a card of its group: {show(led)} takes the "
            f"{show(matching)}, and another colon only when nothing else can be played"
        )
    if holding:
        return _follow(led[1], holding, card, f" (or the {show(matching)})")
    return None
