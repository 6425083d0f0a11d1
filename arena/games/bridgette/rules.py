"""Bridgette's play rules as pure functions of plain values: which cards may follow a led
card, and which may be led under a bar. The engine's legal actions and the explanations of
illegal moves (``why``) both call these, so each rule is written once.
"""

from __future__ import annotations

from arena.games.bridgette.actions import MATCHING_COLON, SUIT_OF
from arena.games.cards import Card
from arena.games.tricks import cards_that_follow


def follows(hand: list[Card], led: Card) -> list[Card]:
    """Cards of ``hand`` (in canonical order) that may follow ``led``. On a suit card: its
    matching colon, or the led suit if held, else any suit card; a colon of another group
    only when nothing else may be played. On a colon: anything."""
    suit = SUIT_OF[led]
    if not suit:
        return hand
    colons_at = len(hand)
    while colons_at and not SUIT_OF[hand[colons_at - 1]]:
        colons_at -= 1
    playable = cards_that_follow(hand[:colons_at], suit, SUIT_OF.__getitem__)
    matching = MATCHING_COLON[led]
    if matching in hand:
        playable.append(matching)  # colons sort after every suit card
    return playable if playable else hand


def leads(hand: list[Card], barred: str | None) -> list[Card]:
    """Cards of ``hand`` that may be led: any, except the ``barred`` suit (a colon was
    played on its last lead) while another suit's card or a colon is held."""
    if barred is None:
        return hand
    allowed = [card for card in hand if SUIT_OF[card] != barred]
    return allowed if allowed else hand
