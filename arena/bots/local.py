"""Play bots against each other in one process, without gRPC.

Each bot still receives exactly the ``ActRequest`` the referee would send (built by
``arena.wire``), so this is how a bot author tests quickly, and how the suite checks
that example bots are stronger than random. Faults are not handled here: a bad answer
raises.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arena import wire
from arena.bots.sdk import Bot
from arena.games import IllegalActionError, State, get_game


def play_in_process(
    game_name: str,
    bots: Sequence[Bot],
    seed: int,
    options: Mapping[str, object] | None = None,
    match_id: str = "local",
) -> State:
    """Play one match to the end; ``bots`` has one bot per seat or one per team."""
    info = get_game(game_name).info
    if len(bots) == info.num_teams and info.num_teams != info.num_seats:
        bots = [bots[team] for team in info.seat_teams]
    if len(bots) != info.num_seats:
        raise ValueError(f"{game_name} takes {info.num_teams} or {info.num_seats} bots")
    state = get_game(game_name).new_state(seed, options)
    decision = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        request = wire.act_request(
            state, match_id=match_id, decision_index=decision, deadline_s=1.0, legal=legal
        )
        action = bots[state.current_seat()].act(request)
        if action not in legal:
            raise IllegalActionError(f"bot {bots[state.current_seat()].name} chose {action}")
        state.apply(action)
        decision += 1
    return state
