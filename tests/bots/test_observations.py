"""A bot gets back the engine's observation from the proto it is sent
(``arena.bots.observations``, the inverse of ``arena.wire.observation``): over random
playouts of every game, every seat's observation survives the round trip exactly."""

from __future__ import annotations

import random

import pytest

from arena import wire
from arena.bots.observations import engine_observation
from arena.games import game_names, get_game


@pytest.mark.parametrize("game", game_names())
def test_the_engine_observation_comes_back_from_the_wire(game: str) -> None:
    checked = 0
    for seed in range(2):
        state = get_game(game).new_state(seed)
        rng = random.Random(seed)
        while not state.is_terminal() and checked < 80 * (seed + 1):
            seat = rng.randrange(len(state.game_info.seat_teams))
            observation = state.observation(seat)
            back = engine_observation(game, wire.observation(game, observation))
            assert back == observation
            assert type(back) is type(observation)
            checked += 1
            state.apply(rng.choice(state.legal_actions()))
    assert checked > 60


def test_an_unset_optional_field_comes_back_as_none() -> None:
    state = get_game("bid-euchre").new_state(1)
    observation = state.observation(0)
    assert observation.trump is None and observation.declarer is None
    back = engine_observation("bid-euchre", wire.observation("bid-euchre", observation))
    assert back.trump is None and back.declarer is None and back.contract is None
