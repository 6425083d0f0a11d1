"""Seep's table for the replay viewer and the live page (``arena.replay.tables``): the
floor (face down until the bid), the houses, each team's captures and the stock."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from arena.games.seep.game import CARDS, OWNER_TEXT, SeepState
from arena.replay.tables import Table, pile

DECK_SIZE = 52

PLAY_DIRECTION = "counter-clockwise"
"""As Seep is played in North India."""


def deck_size(options: Mapping[str, Any]) -> int:
    return DECK_SIZE


def table(state: SeepState) -> Table:
    piles = []
    if state.face_down:
        down = _codes(state.face_down)
        piles.append(pile("floor", "Floor, face down until the bid", down, face_down=True))
    piles.append(pile("floor", "Floor", _codes(state.loose)))
    for value, house in sorted(state.houses.items()):
        cemented = ", cemented" if house.total > value else ""
        label = f"House {value}{cemented}, of seat {OWNER_TEXT[house.owners]}"
        piles.append(pile("house", label, _codes(house.cards)))
    for team, captured in enumerate(state.piles):
        view = state.pile_views[team]
        label = f"Team {team} captured ({view.points} points, {view.sweeps} sweeps)"
        piles.append(pile("won", label, _codes(captured)))
    if state.stock:
        piles.append(pile("stock", "Still to deal", _codes(state.stock), face_down=True))
    return {
        "phase": state.phase,
        "hands": [_codes(hand) for hand in state.hands],
        "piles": piles,
        "facts": [
            ["Dealer", f"seat {state.dealer}"],
            ["Bid", "none yet" if state.bid is None else f"{state.bid} by seat {state.bidder}"],
            ["Deal", f"{state.deal_number} (play {state.play_number} of 48)"],
            ["Difference", f"{state.difference:+d} (team 0 minus team 1, bazzi at 100)"],
        ],
        "scores_are": "bazzis won per team",
    }


def _codes(cards: Iterable[int]) -> list[str]:
    return [CARDS[c] for c in cards]
