"""The toy's table for the replay viewer and the live page (``arena.replay.tables``): the
pair in progress, the cards of the pairs already scored this hand, and the four cards
left out, face down."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.replay.tables import Table, pile, played
from tests.games.toy.game import CARDS, ToyState

DECK_SIZE = len(CARDS)

PLAY_DIRECTION = "facing"
"""Two seats, across the table."""


def deck_size(options: Mapping[str, Any]) -> int:
    return DECK_SIZE


def table(state: ToyState) -> Table:
    hand = state.hands_played + (0 if state.over else 1)
    return {
        "phase": "over" if state.over else "play",
        "hands": [list(h) for h in state.hands],
        "piles": [
            played("trick", "Pair in progress", state.trick),
            pile("discard", "Pairs scored this hand", state.played),
            pile("stock", "Left out of this hand", state.rest, face_down=True),
        ],
        "facts": [
            ["Dealer", f"seat {state.dealer}"],
            ["Hand", f"{hand} of {state.options['hands']}"],
        ],
        "scores_are": "points per seat",
    }
