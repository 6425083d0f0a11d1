"""Persian Rummy's table for the replay viewer and the live page
(``arena.replay.tables``): the discard pile, the melds and the stock."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games.persian_rummy.game import CARDS, PersianRummyState, mask_codes
from arena.replay.tables import Table, pile, played

DECK_SIZE = 56

PLAY_DIRECTION = "clockwise"
"""Dealt from the dealer's left, who plays first."""


def deck_size(options: Mapping[str, Any]) -> int:
    return DECK_SIZE


def table(state: PersianRummyState) -> Table:
    discards = state.pile_views
    piles = [
        pile("discard", "Discard pile", [d.card for d in discards], [d.seat for d in discards])
    ]
    for meld in state.meld_views:
        doubled = ", doubled" if meld.doubled else ""
        label = f"Meld {meld.id + 1}: {meld.kind} by seat {meld.melded_by}{doubled}"
        piles.append(played("meld", label, meld.cards))
    stock = [CARDS[c] for c in reversed(state.stock)]  # top card first
    piles.append(pile("stock", f"Stock ({len(stock)})", stock, face_down=True))
    facts = [
        ["Dealer", f"seat {state.dealer}"],
        ["Deal", f"{state.deal_number} of 2"],
        ["Table points", " : ".join(map(str, state.table_points))],
    ]
    if state.chosen >= 0:
        facts.append(["Must meld", CARDS[state.chosen]])
    if state.passes:
        facts.append(["Passes in a row", str(state.passes)])
    return {
        "scores_are": "points per team",
        "phase": state.phase,
        "hands": [list(mask_codes(hand)) for hand in state.hands],
        "piles": piles,
        "facts": facts,
    }
