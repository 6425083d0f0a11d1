"""The table as a spectator sees it while a match is played: the replay viewer's table
(``arena.replay.tables``) with everything hidden taken out.

The referee sends it on live events (``MatchEvent.table_json``) so that the live page
draws what the engine holds rather than working the rules out again from the log. What
is taken out:

- every hand, leaving how many cards each seat holds (``held``);
- the faces of face-down piles (the stock, discards, a floor before the bid), leaving
  their ``count``;
- facts that name hidden cards: the game's table part's ``HIDDEN_FACTS``, fact label ->
  what is shown instead;
- phases a spectator cannot see: its ``HIDDEN_PHASES``, engine phase -> (the phase
  shown, whether the seat to act is shown). A question asked in private, or asked only
  of a seat whose hand allows it, would tell what a hand holds.

``tests/replay/test_public_table.py`` plays random matches of every game and checks that
no card shows face up, in a pile or a fact, before a public event has named it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from arena.games import State
from arena.replay.tables import has_table, table, table_part

View = dict[str, Any]


def public_view(state: State) -> View:
    """``{"seat", "table"}``: whose turn it is (None when the public cannot tell, or
    the match is over) and the table, in the shape of a replay frame's."""
    whole = table(state)
    found = table_part(state.game_info.name)
    hidden_phases: Mapping[str, tuple[str, bool]] = getattr(found, "HIDDEN_PHASES", {})
    hidden_facts: Mapping[str, str] = getattr(found, "HIDDEN_FACTS", {})
    phase, seat_shown = hidden_phases.get(whole["phase"], (whole["phase"], True))
    piles = [_public_pile(p) for p in whole["piles"]]
    trick = next((p for p in piles if p["kind"] == "trick"), None)
    last = _last_trick(state)
    if trick is not None and not trick["cards"] and last is not None:
        piles[piles.index(trick)] = last
    out = {
        "phase": phase,
        "hands": [None] * len(whole["hands"]),
        "held": [len(hand) for hand in whole["hands"]],
        "piles": piles,
        "facts": [[label, hidden_facts.get(label, text)] for label, text in whole["facts"]],
        "scores_are": whole["scores_are"],
    }
    seat = None if state.is_terminal() or not seat_shown else state.current_seat()
    return {"seat": seat, "table": out}


def public_json(state: State) -> str:
    """``public_view`` as compact JSON, as ``MatchEvent.table_json`` carries it; empty
    for a game the viewer has no table for (a game registered by a test)."""
    if not has_table(state.game_info.name):
        return ""
    return json.dumps(public_view(state), separators=(",", ":"))


def _public_pile(pile: dict[str, Any]) -> dict[str, Any]:
    if not pile.get("face_down"):
        return pile
    out = {k: v for k, v in pile.items() if k not in ("cards", "seats")}
    out["cards"] = []
    out["count"] = len(pile["cards"])
    return out


def _last_trick(state: State) -> dict[str, Any] | None:
    """The trick just taken, while the next is not yet led: otherwise its last card
    would be on the table for no time at all."""
    tricks = getattr(state, "tricks", None)
    if not tricks:
        return None
    last = tricks[-1]
    return {
        "kind": "last_trick",
        "label": f"Last trick, taken by seat {last.winner}",
        "cards": [p.card for p in last.cards],
        "seats": [p.seat for p in last.cards],
    }
