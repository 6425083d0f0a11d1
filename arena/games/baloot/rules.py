"""Baloot's rules of the Hokum choice, the doubling chain, the declarations and the play,
as pure functions of plain values (card codes, suits, counts). The engine's legal actions
and the explanations of illegal moves (``why``) both call these, so each rule is written
once. Who may bid what is ``rounds.bids_allowed``, next to the phases it reads.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from arena.games.baloot.actions import (
    CARD_BIT,
    DECLARATION_ACTION,
    DECLARATIONS,
    DECLINE,
    DOUBLE,
    PROJECT_MASK,
    PROJECTS,
    SUIT_OF,
    BalootProject,
)
from arena.games.cards import SUITS, Card
from arena.games.tricks import cards_that_follow


def playable(hand: list[Card], led: Card | None, trump: str | None, locked: bool) -> list[Card]:
    """Cards of ``hand`` that may be played to a trick led with ``led`` (None: to lead).
    Follow the led suit if held, else anything; a locked Hokum bars leading a trump while
    another suit is held."""
    if led is not None:
        return cards_that_follow(hand, SUIT_OF[led], SUIT_OF.__getitem__)
    if locked:
        return [card for card in hand if card[1] != trump] or hand
    return hand


def hokum_trumps(up_suit: str, bidding_round: int) -> list[str]:
    """The suits a Hokum caller may keep as trump: the up-card's in round 1, any other in
    round 2."""
    return [up_suit] if bidding_round == 1 else [s for s in SUITS if s != up_suit]


def doubling_calls(steps: int) -> list[int]:
    """The doubling actions open after ``steps`` raises (double, triple, four): decline,
    or the next step only."""
    return [DECLINE, DOUBLE + steps]


MAX_PROJECTS = max(map(len, DECLARATIONS))
"""Projects one declaration may hold (two)."""

_PROJECT_BY_CARDS: dict[tuple[Card, ...], BalootProject] = {
    tuple(sorted(project.cards)): project for project in PROJECTS
}


def project_of(cards: Sequence[Card]) -> BalootProject | None:
    """The project these cards make, in any order; None if they make none."""
    return _PROJECT_BY_CARDS.get(tuple(sorted(cards)))


def declarable(hand: Sequence[Card]) -> list[int]:
    """Every valid declaration of an 8-card hand, none included; empty if it holds no
    project (so the seat is not asked)."""
    held = 0
    for card in hand:
        held |= CARD_BIT[card]
    singles = [p for p, mask in enumerate(PROJECT_MASK) if mask & held == mask]
    if not singles:
        return []
    found = [(), *((p,) for p in singles)]
    found += [
        (p, q)
        for p, q in itertools.combinations(singles, 2)
        if not PROJECT_MASK[p] & PROJECT_MASK[q]
    ]
    return sorted(DECLARATION_ACTION[projects] for projects in found)
