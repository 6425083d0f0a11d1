"""Bridgette's table for the replay viewer and the live page (``arena.replay.tables``):
the trick, each seat's tricks, each seat's discards and the stock."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games.bridgette.game import BridgetteState
from arena.replay.tables import Table, calls, pile, trick_piles

DECK_SIZE = 55

PLAY_DIRECTION = "facing"
"""Two seats, across the table."""


def deck_size(options: Mapping[str, Any]) -> int:
    return DECK_SIZE


def table(state: BridgetteState) -> Table:
    obs = state.observation(0)
    contract = "none yet" if obs.contract is None else _contract(obs.contract)
    piles = trick_piles(state.trick, state.tricks, lambda seat: seat, "Seat")
    for seat, discards in enumerate(state.discards):
        piles.append(pile("discard", f"Seat {seat} discarded", discards, face_down=True))
    piles.append(pile("stock", f"Stock ({len(state.stock)})", state.stock, face_down=True))
    return {
        "phase": state.phase,
        "hands": [list(hand) for hand in state.hands],
        "piles": piles,
        "facts": [
            ["Dealer", f"seat {state.dealer}"],
            ["Deal", f"{state.deal_number} of {state.deals}"],
            [
                "Up-card",
                f"{state.up_card} (the non-dealer took it; the dealer draws {state.dealer_draws})",
            ],
            ["Auction", calls(state.calls)],
            ["Contract", contract],
            ["Trump", state.trump or "none yet"],
        ],
        "scores_are": "points per seat",
    }


def _contract(contract: Any) -> str:
    return (
        f"{contract.level} {contract.strain} by seat {contract.declarer}, {contract.doubling}, "
        f"{contract.tricks_needed} tricks needed"
    )
