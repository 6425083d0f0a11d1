"""Baloot's table for the replay viewer and the live page (``arena.replay.tables``): the
up-card and the rest of the deal until the buyer takes it, the trick and each team's
tricks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games.baloot.game import BalootState
from arena.replay.tables import Table, calls, pile, trick_piles

DECK_SIZE = 32

PLAY_DIRECTION = "counter-clockwise"
"""``arena.games.baloot.game``: everything counter-clockwise."""

HIDDEN_PHASES = {"declaring": ("playing", True)}
"""Only a seat holding a project is asked to declare it, so the live table shows play
going on instead (``arena.replay.public_table``): that phase would tell what a hand
holds."""


def deck_size(options: Mapping[str, Any]) -> int:
    return DECK_SIZE


def table(state: BalootState) -> Table:
    piles = []
    if state.face_down:  # until the buyer takes it with the rest of the deal
        piles.append(pile("up_card", "Up-card", [state.up_card]))
        piles.append(pile("stock", "Still to deal", state.face_down, face_down=True))
    piles += trick_piles(state.trick, state.tricks, lambda seat: seat % 2, "Team")
    facts = [
        ["Dealer", f"seat {state.dealer}"],
        ["Round", str(state.round_number)],
        ["Bids", calls(state.bids)],
        [
            "Contract",
            "none yet"
            if state.contract is None
            else f"{state.contract} bought by seat {state.buyer}, x{state.multiplier}"
            + (" (gahwa)" if state.gahwa else ""),
        ],
        ["Trump", state.trump or "none"],
        ["Abnat", " : ".join(map(str, state.abnat))],
    ]
    if state.doublings:
        facts.append(["Doublings", calls(state.doublings)])
    if state.declared_projects and state.projects_public:
        facts.append(
            [
                "Projects",
                ", ".join(
                    f"seat {p.seat} {p.kind} ({' '.join(p.cards)}, {p.points})"
                    for p in state.declared_projects
                ),
            ]
        )
    return {
        "scores_are": "game points per team, game to 152",
        "phase": state.phase,
        "hands": [list(hand) for hand in state.hands],
        "piles": piles,
        "facts": facts,
    }
