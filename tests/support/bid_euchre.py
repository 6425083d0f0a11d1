"""Bid Euchre deals arranged by hand, and actions played by name."""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.api import Deal
from arena.games.bid_euchre.game import (
    NUM_ACTIONS,
    BidEuchreGame,
    BidEuchreState,
)

GAME = BidEuchreGame()


def arranged_deal(
    hands: Sequence[str],
    dealer: int,
    *,
    scores: tuple[int, ...] = (0, 0),
    deal_number: int = 1,
    **options: object,
) -> BidEuchreState:
    """A fresh match whose first hand is dealt as given (one string of codes per seat),
    through ``new_state(deal=...)``; ``scores`` and ``deal_number`` are the running
    scores and the hand number it starts from."""
    deal = Deal.of(hands, dealer, scores=scores, deal_number=deal_number)
    return GAME.new_state(0, options, deal=deal)


def action_id(state: BidEuchreState, text: str) -> int:
    """The action id with this canonical text, legal or not."""
    for action in range(NUM_ACTIONS):
        if state.action_text(action) == text:
            return action
    raise KeyError(text)


def act(state: BidEuchreState, *texts: str) -> None:
    for text in texts:
        state.apply(action_id(state, text))


def play(state: BidEuchreState, *cards: str) -> None:
    """Play these cards in order, each by whichever seat is to act."""
    act(state, *(f"play {card}" for card in cards))


# --- the joker variant ---------------------------------------------------------------------
# Dealer 3 is dealt seven cards and discards TD unless a test says otherwise. Seat 1 holds
# the joker and five spades; seat 0 the right bower and three more hearts; seat 2 the left.
JOKER_DEAL = (
    "JH AH KH QH 9S 9C",
    "X1 AS KS QS JS TS",
    "JD TH 9H AD KD QD",
    "AC KC QC JC TC 9D TD",
)


def joker_deal(discard: str = "TD") -> BidEuchreState:
    """The ``JOKER_DEAL`` with the dealer's discard made."""
    state = arranged_deal(JOKER_DEAL, dealer=3, joker=True)
    act(state, f"discard {discard}")
    return state
