"""Card codes shared by every engine.

Engines name a card by a short code so hands, logs and replays stay readable and cheap
to hash: rank character then suit character (``QH``, ``TS`` for the ten of spades),
``X1``..``X4`` for Persian Rummy's jokers, and ``GC``/``RC``/``LC`` for Bridgette's
Grand, Royal and Little colons. The wire translation (``arena.wire``) maps codes to the
proto ``Card`` message; nothing else needs to know both forms.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

SUITS = "CDHS"
"""Clubs, diamonds, hearts, spades: the canonical suit order of every game here."""

RANKS = "23456789TJQKA"
"""Standard ranks, low to high (aces high); games reorder them as their rules need."""

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
SUIT_SYMBOLS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
JOKERS = ("X1", "X2", "X3", "X4")
COLONS = ("GC", "RC", "LC")

Card = str


def rank_of(card: Card) -> str:
    return card[0]


def suit_of(card: Card) -> str:
    return card[1]


def pretty(card: Card) -> str:
    """Human form for logs and replays: ``Q\u2665``, ``10\u2660``, ``X1``, ``GC``."""
    if card in JOKERS or card in COLONS:
        return card
    rank = "10" if card[0] == "T" else card[0]
    return rank + SUIT_SYMBOLS[card[1]]


def pretty_cards(cards: Iterable[Card]) -> str:
    return " ".join(pretty(c) for c in cards)


_CODE = re.compile(rf"\b[{RANKS}][{SUITS}]\b")


def pretty_text(text: str) -> str:
    """``text`` with each two-character card code in human form: an action's text
    (``play TH``, what the wire and a person typing use) as a table shows cards
    (``play 10\u2665``)."""
    return _CODE.sub(lambda code: pretty(code.group()), text)
