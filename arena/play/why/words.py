"""What the explanations share: the cards a typed line names, and cards in words."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from arena.games.cards import pretty_text
from arena.v1 import bot_pb2

Card = str
Observation = Any
"""A game's observation message (the game's field of ``ActRequest.observation``)."""
Explainer = Callable[[Observation, Card, str], "str | None"]
"""A game's ``explain_card``: the seat's observation, the card and the verb typed."""
ActionExplainer = Callable[[Observation, str, Sequence[str]], "str | None"]
"""A game's ``explain_action``: the observation, the typed text, the legal texts."""
CallExplainer = Callable[[Observation, str], "str | None"]
"""A game's ``explain_call``: the observation and a typed line naming no card."""

SUIT_LETTERS = {1: "C", 2: "D", 3: "H", 4: "S"}
"""The proto ``Suit`` enum to card-code letters."""
SUIT_WORDS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
SYMBOL_LETTERS = {"\u2663": "C", "\u2666": "D", "\u2665": "H", "\u2660": "S"}
CARD_WORD = re.compile(
    r"^(?:(10|[2-9TJQKA])([CDHS\u2663\u2666\u2665\u2660])|(GC|RC|LC|X[1-4]))$", re.IGNORECASE
)
COLON_NAMES = {"GC": "Grand Colon", "RC": "Royal Colon", "LC": "Little Colon"}
SAME_COLOUR = {"C": "S", "S": "C", "D": "H", "H": "D"}


def card_in(text: str) -> Card | None:
    """The card code a typed line names (``play jd``, ``J♦``, ``10h``), if any."""
    for word in text.split():
        match = CARD_WORD.match(word)
        if match is None:
            continue
        if match.group(3):
            return match.group(3).upper()
        rank = "T" if match.group(1) == "10" else match.group(1).upper()
        suit = match.group(2)
        return rank + SYMBOL_LETTERS.get(suit, suit.upper())
    return None


def show(card: Card) -> str:
    return COLON_NAMES.get(card, pretty_text(card))


def shown(cards: Sequence[Card]) -> str:
    return " ".join(show(c) for c in cards)


def codes(cards: Sequence[Any]) -> list[Card]:
    return [str(c.code) for c in cards]


def legal_texts(request: bot_pb2.ActRequest) -> list[str]:
    return [action.text for action in request.legal_actions]


def _follow(
    led: str, holding: Sequence[Card], card: Card, note: str = "", trump: str | None = None
) -> str:
    suit = f"trumps ({SUIT_WORDS[led]})" if led == trump else SUIT_WORDS[led]
    return f"you must follow {suit}: you hold {shown(holding)}{note}"
