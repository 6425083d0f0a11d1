"""Bid Euchre's table for the replay viewer and the live page (``arena.replay.tables``):
the trick, each team's tricks, and the joker variant's discard (seen by the dealer
alone)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games.bid_euchre.game import BidEuchreState
from arena.replay.tables import Table, calls, pile, trick_piles, words

DECK_SIZE = 24
"""With the default options: the ``joker`` option adds one (``deck_size``)."""

PLAY_DIRECTION = "clockwise"
"""``arena.games.tricks``: seats numbered clockwise."""

HIDDEN_PHASES = {"ace_no_face": ("bidding", False)}
"""A seat is asked in private whether it throws in a hand of an ace and no face card: the
live table shows the auction going on, and nobody to act, as telling either would say
what that hand holds (``arena.replay.public_table``)."""

HIDDEN_FACTS = {"Exchange": "a card passed face down to partner, and one back"}
"""The cards the declarer and partner exchange (an ``ask`` contract) are seen by those
two alone."""


def deck_size(options: Mapping[str, Any]) -> int:
    return DECK_SIZE + (1 if options.get("joker") else 0)


def table(state: BidEuchreState) -> Table:
    contract = "none yet"
    if state.declarer is not None and state.contract is not None:
        contract = f"{words(state.observation(state.declarer).contract)} by seat {state.declarer}"
    facts = [
        ["Dealer", f"seat {state.dealer}"],
        ["Auction", calls(state.calls)],
        ["Contract", contract],
        ["Trump", state.trump or "none yet"],
    ]
    if state.sitting_out is not None:
        facts.append(["Sitting out", f"seat {state.sitting_out} (the hand is dead)"])
    if state.card_given is not None:
        facts.append(["Exchange", f"{state.card_given} given, {state.card_returned or '-'} back"])
    piles = trick_piles(state.trick, state.tricks, lambda seat: seat % 2, "Team")
    if state.discarded is not None:  # the joker variant: seen by the dealer alone
        label = f"Seat {state.dealer} discarded (out of play)"
        piles.append(pile("discard", label, [state.discarded], face_down=True))
    return {
        "scores_are": "points per team, game to 32",
        "phase": state.phase,
        "hands": [list(hand) for hand in state.hands],
        "piles": piles,
        "facts": facts,
    }
