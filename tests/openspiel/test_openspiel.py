"""The OpenSpiel adapter: the games load in pyspiel, play as the engines do, and
OpenSpiel's MCTS and ISMCTS bots move legally in them (ISMCTS resampling every game's
hidden cards); the generic ISMCTS bot plays a match of every game."""

from __future__ import annotations

import dataclasses
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel")

import numpy as np  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from arena import openspiel  # noqa: E402
from arena.bots.examples import RandomBot  # noqa: E402
from arena.bots.ismcts import IsmctsBot  # noqa: E402
from arena.bots.local import play_in_process  # noqa: E402
from arena.envs import infostate, layouts  # noqa: E402
from arena.games import game_names, get_game  # noqa: E402
from arena.games.api import InconsistentView  # noqa: E402
from arena.games.bid_euchre.openspiel_bot import OpenSpielBot  # noqa: E402
from arena.processes import arena_command  # noqa: E402

GAMES = game_names()
SHORT: dict[str, dict[str, int]] = {
    "baloot": {"max_rounds": 1},
    "bid-euchre": {"max_hands": 1},
    "bridgette": {"deals": 1},
    "persian-rummy": {},
    "seep": {"max_deals": 1},
}
"""Options that keep a match to a hand or two (Persian Rummy's two deals are short)."""


def test_every_game_registers_and_loads() -> None:
    names = openspiel.register()
    assert names == [openspiel.short_name(name) for name in GAMES]
    for name in names:
        assert name in pyspiel.registered_names()
        game = pyspiel.load_game(name)
        assert game.get_type().short_name == name
        assert game.get_type().provides_information_state_string
        assert game.get_type().provides_observation_tensor
        assert game.new_initial_state().is_chance_node()


@pytest.mark.parametrize("name", GAMES)
def test_random_play_through_pyspiel_matches_the_engine(name: str) -> None:
    game = openspiel.load(name, seeds=20)
    for seed in (3, 11):
        state = game.new_initial_state()
        assert [o for o, _ in state.chance_outcomes()] == list(range(20))
        state.apply_action(seed)
        engine = get_game(name).new_state(seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            action = rng.choice(state.legal_actions())
            assert state.action_to_string(state.current_player(), action).strip()
            engine.apply(state.engine_action(action))
            state.apply_action(action)
        assert engine.is_terminal()
        assert state.engine is not None
        assert state.engine.scores() == engine.scores()
        winner = engine.winner()
        teams = get_game(name).info.seat_teams
        expected = [0.0 if winner is None else (1.0 if t == winner else -1.0) for t in teams]
        assert state.returns() == expected


@pytest.mark.parametrize("name", GAMES)
def test_observation_tensors_are_the_environments(name: str) -> None:
    """OpenSpiel's observation tensor of every seat, at every decision of a playout, is
    the PettingZoo environment's for the same seed and moves, block names included."""
    raw_env = pytest.importorskip("arena.envs").raw_env
    game = openspiel.load(name, seeds=10)
    shape = game.observation_tensor_shape()
    env = raw_env(name, information_state=True)
    env.reset(seed=7)
    state = game.new_initial_state()
    assert game.information_state_tensor_shape() == [infostate.information_state_tensor_size(name)]
    before = np.array(state.observation_tensor(0))
    assert before.shape == tuple(shape) and not before.any()
    state.apply_action(7)
    rng = random.Random(7)
    for _ in range(40):
        if state.is_terminal():
            break
        for seat in range(game.num_players()):
            ours = np.array(state.observation_tensor(seat), dtype=np.float32)
            assert np.array_equal(ours, env.observe(f"seat_{seat}")["observation"])
            if seat == state.current_player():  # the env folds a seat's memory at its turns
                remembered = env.observe(f"seat_{seat}")["information_state"]
                assert np.array_equal(state.information_state_tensor(seat), remembered)
        action = rng.choice(state.legal_actions())
        move = state.engine_action(action)
        uses_ids = layouts.uses_ids(name)
        env.step(move if uses_ids else env.legal_action_ids().index(move))
        state.apply_action(action)
    assert state.engine is not None and env.state is not None
    assert state.engine.scores() == env.state.scores()
    observer = game.make_py_observer()
    assert [n for n, _, _ in layouts.layout(name)] == list(observer.dict)


@pytest.mark.parametrize("name", GAMES)
def test_mcts_picks_legal_moves(name: str) -> None:
    """Plain MCTS searches the true state (hidden cards too): a demonstration only."""
    game = openspiel.load(name, seeds=10)
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, 2.0, 3, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    state = game.new_initial_state()
    state.apply_action(1)
    for _ in range(3):
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)


@pytest.mark.parametrize("name", GAMES)
def test_ismcts_picks_legal_moves(name: str) -> None:
    """ISMCTS resamples the hidden cards of every game (``resample_from_infostate``)."""
    game = openspiel.load(name, seeds=10, **SHORT[name])
    rng = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, 5, random_state=rng)
    state = game.new_initial_state()
    state.apply_action(4)
    decisions = 0
    while not state.is_terminal() and decisions < 8:
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        decisions += 1
    assert decisions == 8


@pytest.mark.parametrize("name", GAMES)
def test_resampling_keeps_the_information_state(name: str) -> None:
    """At points along a playout, every seat's resampled state has its information
    state (and, on its turn, its legal actions), and some differ from the real one."""
    game = openspiel.load(name, seeds=10, **SHORT[name])
    state = game.new_initial_state()
    state.apply_action(2)
    rng = random.Random(2)
    differs = 0
    for step in range(1, 60):
        state.apply_action(rng.choice(state.legal_actions()))
        if state.is_terminal():
            break
        if step % 5:
            continue
        for seat in range(game.num_players()):
            sample = state.resample_from_infostate(seat, None)
            assert sample.information_state_string(seat) == state.information_state_string(seat)
            assert sample.information_state_tensor(seat) == state.information_state_tensor(seat)
            if seat == state.current_player():
                assert sample.legal_actions() == state.legal_actions()
            assert sample.engine is not None and state.engine is not None
            differs += sample.engine.snapshot() != state.engine.snapshot()
    assert differs


def test_a_view_no_world_fits_is_a_typed_error() -> None:
    game = openspiel.load("bid-euchre", seeds=1)
    state = game.new_initial_state()
    state.apply_action(0)
    assert state.engine is not None
    observation = state.engine.observation(0)
    with pytest.raises(InconsistentView, match="information state"):
        openspiel.determinize(
            "bid-euchre", observation, game.options, random.Random(0), target="not this one"
        )
    other = state.engine.observation(1)
    corrupted = dataclasses.replace(observation, hand=(*observation.hand, other.hand[0]))
    with pytest.raises(InconsistentView, match=f"{other.hand[0]}"):
        openspiel.determinize("bid-euchre", corrupted, game.options, random.Random(0))


@pytest.mark.parametrize("name", GAMES)
def test_the_ismcts_bot_plays_a_match_through_the_sdk(name: str) -> None:
    bot = IsmctsBot(name, simulations=3, seed=1, options=SHORT[name])
    others = [RandomBot(seed=2)] * (len(get_game(name).info.seat_teams) - 1)
    state = play_in_process(name, [bot, *others], seed=5, options=SHORT[name])
    assert state.is_terminal()
    assert bot.fallbacks == 0


def test_the_bid_euchre_bot_keeps_its_name() -> None:
    bot = OpenSpielBot(simulations=2)
    assert bot.games == ("bid-euchre",) and bot.simulations == 2


@pytest.mark.parametrize("name", GAMES)
def test_the_ismcts_bot_plays_through_a_real_referee(name: str, tmp_path: Path) -> None:
    """The bot as its own process per seat, against the example random bot, one short
    match of every game."""
    options = [f"{key}={value}" for key, value in SHORT[name].items()]
    ours = f"{sys.executable} -m arena.bots.ismcts --game {name} --port {{port}} --simulations 3"
    ours += "".join(f" --option {option}" for option in options)
    theirs = f"{sys.executable} -m arena.cli bot serve random --port {{port}}"
    match_options = [word for option in options for word in ("--option", option)]
    done = subprocess.run(
        arena_command(
            "match", "play", "--game", name, *match_options,
            "--deadline-ms", "5000", "--bot-command", ours, "--bot-command", theirs,
            "--replay-dir", str(tmp_path), "--json",
        ),
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["end"] == "MATCH_END_COMPLETED"
    assert result["seat_faults"] == [0] * len(get_game(name).info.seat_teams)
    assert result["faults"] == []
