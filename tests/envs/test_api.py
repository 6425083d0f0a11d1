"""The environments pass PettingZoo's own API and seed tests, for every game, and keep
their promises on observations, masks and rewards."""

from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test  # type: ignore[import-untyped]

from arena import wire
from arena.envs import CardArenaEnv, env, layout, raw_env, tensor_size
from arena.envs.layouts import games, pack
from arena.games import game_names, get_game

GAMES = games()

SHORT = {
    "baloot": {"max_rounds": 2},
    "bid-euchre": {"max_hands": 2},
    "bridgette": {"deals": 2},
    "persian-rummy": {},
    "seep": {"max_deals": 2},
}


def test_every_game_has_an_environment() -> None:
    assert sorted(GAMES) == game_names() == sorted(SHORT)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("game", sorted(GAMES))
def test_pettingzoo_api_test(game: str) -> None:
    api_test(env(game, SHORT[game]), num_cycles=60)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_pettingzoo_seed_test(game: str) -> None:
    seed_test(lambda: env(game, SHORT[game]), num_cycles=60)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_whole_match_pays_hand_and_match_rewards_by_team(game: str) -> None:
    e = raw_env(game, SHORT[game])
    e.reset(seed=3)
    choose = random.Random(3)
    info = get_game(game).info
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        observation, reward, terminated, truncated, infos = e.last()
        totals[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        mask = observation["action_mask"]
        assert observation["observation"].shape == (tensor_size(game),)
        assert e.observe_dict(agent) == wire_dict(e, agent)
        legal = np.flatnonzero(mask).tolist()
        ids = [e.action_id(a) for a in legal]
        assert ids == infos["legal_action_ids"] == e.legal_action_ids()
        e.step(choose.choice(legal))
    state = e.state
    assert state is not None and state.is_terminal()
    winner = state.winner()
    for agent, total in totals.items():
        team = info.seat_teams[int(agent.removeprefix("seat_"))]
        match = 0 if winner is None else 1 if team == winner else -1
        assert total == pytest.approx(state.scores()[team] + match)


def wire_dict(e: CardArenaEnv, agent: str) -> dict[str, object]:
    request = e.act_request()
    field = getattr(request, wire.field_name(e.game_name))
    from google.protobuf import json_format

    return json_format.MessageToDict(field, preserving_proto_field_name=True)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_layout_covers_the_tensor_and_the_hand_is_one_hot(game: str) -> None:
    blocks = layout(game)
    assert blocks[0] == ("seat_one_hot", 0, get_game(game).info.num_seats)
    assert sum(size for _, _, size in blocks) == tensor_size(game)
    assert [offset for _, offset, _ in blocks] == [
        sum(size for _, _, size in blocks[:k]) for k in range(len(blocks))
    ]
    e = raw_env(game)
    e.reset(seed=1)
    agent = e.agent_selection
    tensor = e.observe(agent)["observation"]
    _, offset, size = next(b for b in blocks if b[0] == "hand")
    held = [pack(game)[i] for i in np.flatnonzero(tensor[offset : offset + size])]
    hand = [c["code"] for c in e.observe_dict(agent).get("hand", [])]
    assert sorted(held) == sorted(hand)


def test_importing_arena_games_does_not_load_pettingzoo() -> None:
    import subprocess
    import sys

    code = "import sys, arena, arena.games; print('pettingzoo' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
