"""Persian Rummy's rules of melds, lay-offs and the stock as pure functions over plain values:
card indices (``4 * rank + suit``, ranks 0..12 for 2..A; the jokers 52..55 make rank 13), rank
masks and the stock's size. The engine makes its meld table and its legal moves from them
(``actions``, ``legal``, ``position``) and the explanations of illegal moves (``why``) ask the
same functions, so each rule is written once.
"""

from __future__ import annotations

from collections.abc import Sequence

JOKER_RANK = 13
FIRST_JOKER = 4 * JOKER_RANK
"""The index of the first joker: every index from here on is a joker."""


def meld_fault(cards: Sequence[int]) -> str | None:
    """Why these cards are no meld, or None when they are a set (three or four cards of one
    rank, jokers a rank of their own) or a run (three or more consecutive ranks of one
    suit, aces high only: the ace is rank 12, so A-2-3 is no run). The fault: ``"few"``
    (under three cards), ``"joker"`` (jokers are not wild: they meld only with each other),
    ``"gap"`` (one suit, ranks not consecutive) or ``"shape"`` (neither one rank nor one
    suit)."""
    if len(cards) < 3:
        return "few"
    jokers = sum(card >= FIRST_JOKER for card in cards)
    if jokers:
        return None if jokers == len(cards) else "joker"
    if len({card >> 2 for card in cards}) == 1:
        return None
    if len({card & 3 for card in cards}) == 1:
        ranks = sorted(card >> 2 for card in cards)
        return None if ranks == list(range(ranks[0], ranks[0] + len(ranks))) else "gap"
    return "shape"


def set_completion(cards: Sequence[int]) -> int:
    """The one card that may be laid off on a set on the table: the fourth of its rank (of
    a set of jokers, the fourth joker); -1 once the set has four cards."""
    if len(cards) >= 4:
        return -1
    return 4 * (cards[0] >> 2) + 6 - sum(card & 3 for card in cards)


def run_reach(low: int, high: int, ranks: int) -> tuple[int, int]:
    """How far cards of a run's suit extend the run ``low..high`` without a gap, given
    their ranks as a 13-bit mask: how many ranks they fill just below it and just above it
    (none below the 2 or above the ace). Cards of the suit lay off on the run only so."""
    below = ~ranks & ((1 << low) - 1)
    above = ranks >> (high + 1)
    return low - below.bit_length(), ((~above) & (above + 1)).bit_length() - 1


def draws_from_stock(stock_size: int) -> bool:
    """A turn opens with a draw from the stock while it has cards (or a take from the
    pile); once it is empty, with a take or a pass: the pile never becomes a new stock."""
    return stock_size > 0
