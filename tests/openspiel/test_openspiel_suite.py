"""OpenSpiel's own checks on the five games: the installed package's ``games_sim_test``
(``GamesSimTest.sim_game``: the game and its type pickle, states pickle and serialize
with ``pyspiel.serialize_game_and_state``, a clone keeps the history and plays on alike,
random play reaches the end with returns in range) and ``pyspiel.random_sim_test`` with
serialization at every step. CI plays the latter on short matches where the game has an
option for it; ``pytest -m slow`` plays every game at its defaults."""

from __future__ import annotations

import pickle
import zlib

import pytest

pyspiel = pytest.importorskip("pyspiel")

import numpy as np  # noqa: E402
from open_spiel.python.tests import games_sim_test  # noqa: E402  (the module: pytest would collect the class's own tests)

from arena import openspiel  # noqa: E402
from arena.envs import layouts  # noqa: E402
from arena.envs.aec import CardArenaEnv  # noqa: E402

GAMES = openspiel.modelled()
SHORT = {"seep": {"max_deals": 1}, "bid-euchre": {"max_hands": 2}, "bridgette": {"deals": 1},
         "baloot": {"max_rounds": 1}}  # fmt: skip
"""Options that keep a match to a deal or two; Persian Rummy has none (slow run only)."""


@pytest.mark.parametrize("game", GAMES)
def test_openspiels_games_sim_test_passes_at_the_default_options(game: str) -> None:
    np.random.seed(zlib.crc32(game.encode()))  # sim_game draws with numpy's global state
    games_sim_test.GamesSimTest().sim_game(openspiel.load(game))


@pytest.mark.parametrize("game", sorted(SHORT))
def test_random_sim_test_serializing_every_state(game: str) -> None:
    pyspiel.random_sim_test(openspiel.load(game, **SHORT[game]), 1, True, False)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_random_sim_test_serializing_every_state_at_the_default_options(game: str) -> None:
    pyspiel.random_sim_test(openspiel.load(game), 2, True, False)


@pytest.mark.parametrize("game", GAMES)
def test_a_clone_keeps_history_and_move_number_and_shares_the_game(game: str) -> None:
    loaded = openspiel.load(game)
    state = loaded.new_initial_state()
    state.apply_action(3)  # the seed
    for _ in range(4):
        state.apply_action(state.legal_actions()[-1])
    twin = state.clone()
    assert twin.history() == state.history() and twin.move_number() == state.move_number()
    assert twin.get_game() is state.get_game() and twin.engine is not state.engine
    twin.apply_action(twin.legal_actions()[0])
    assert len(state.history()) == 5 and len(twin.history()) == 6  # apart from now on
    again = pickle.loads(pickle.dumps(state))
    assert again.history() == state.history() and str(again) == str(state)
    _, read = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(loaded, state))
    assert read.history() == state.history() and str(read) == str(state)


@pytest.mark.parametrize("game", GAMES)
def test_the_action_space_is_the_environments(game: str) -> None:
    """One mapping for both adapters: OpenSpiel's action count is the environments' action
    space (Persian Rummy's 1,024 rather than its 2**25 ids), and an action is the same
    engine move in both."""
    loaded = openspiel.load(game)
    assert loaded.num_distinct_actions() == layouts.action_space_size(game)
    state = loaded.new_initial_state()
    state.apply_action(7)
    env = CardArenaEnv(game)
    env.reset(seed=7)
    assert env.state is not None and state.engine is not None
    assert env.state.legal_actions() == state.engine.legal_actions()
    for action in state.legal_actions():
        assert action < loaded.num_distinct_actions()
        assert state.engine_action(action) == env.action_id(action)
