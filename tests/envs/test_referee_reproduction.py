"""An episode of the environment from a seed, with the actions of a match the real referee
played from that seed, gives the seat to act exactly the observation, legal actions and
final scores the referee gave: the environment trains bots on what they will be sent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena import wire
from arena.envs import raw_env
from arena.envs.layouts import uses_ids
from arena.games import get_game
from arena.processes import Service, start_service
from arena.replay.record import seat_token
from arena.v1 import bot_pb2, referee_pb2, referee_pb2_grpc
from tests.support.bots import bot_command

SHORT: dict[str, dict[str, str]] = {
    "baloot": {"max_rounds": "2"},
    "bid-euchre": {"max_hands": "2"},
    "bridgette": {"deals": "2"},
    "persian-rummy": {},
    "seep": {"max_deals": "2"},
}


@pytest.fixture(scope="module")
def spy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Service, Path]]:
    """A random bot that writes down every ActRequest it receives."""
    out = tmp_path_factory.mktemp("spy") / "requests.jsonl"
    service = start_service(bot_command("spy", "--out", str(out)))
    yield service, out
    service.stop()


def check_reproduced(
    stub: referee_pb2_grpc.RefereeStub, spy: tuple[Service, Path], game: str, seed: int
) -> None:
    service, out = spy
    info = get_game(game).info
    result = stub.PlayMatch(
        referee_pb2.PlayMatchRequest(
            game=game,
            bots=[service.address] * info.num_seats,
            seed=seed,
            options=SHORT[game],
            move_deadline=wire.duration(5.0),
        ),
        timeout=120,
    )
    assert result.end == referee_pb2.MATCH_END_COMPLETED
    replay: dict[str, Any] = json.loads(
        stub.GetReplay(referee_pb2.GetReplayRequest(replay_id=result.replay_id)).json
    )
    decisions = [e["decision"] for h in replay["hands"] for e in h["log"] if "decision" in e]
    tokens = {seat_token(replay, s) for s in range(info.num_seats)}  # what the bots are told
    requests = [
        json_format.Parse(line, bot_pb2.ActRequest())
        for line in out.read_text().splitlines()
        if json.loads(line)["matchId"] in tokens
    ]
    requests.sort(key=lambda r: r.decision_index)
    assert [r.decision_index for r in requests] == list(range(len(decisions)))

    env = raw_env(game, SHORT[game])
    env.reset(seed=seed)
    field = wire.field_name(game)
    for request, decision in zip(requests, decisions, strict=True):
        agent = env.agent_selection
        assert agent == f"seat_{request.seat}"
        sent = json_format.MessageToDict(getattr(request, field), preserving_proto_field_name=True)
        assert env.observe_dict(agent) == sent
        ours = env.act_request(match_id=request.match_id, deadline_s=5.0)
        assert list(ours.legal_actions) == list(request.legal_actions)
        assert (ours.seat, ours.team, ours.decision_index) == (
            request.seat,
            request.team,
            request.decision_index,
        )
        legal = env.legal_action_ids()
        assert legal == [a.id for a in request.legal_actions]
        mask = env.observe(agent)["action_mask"]
        action = decision["action"]
        chosen = action if uses_ids(game) else legal.index(action)
        assert mask[chosen] == 1
        assert env.action_id(chosen) == action
        env.step(chosen)
    assert env.state is not None and env.state.is_terminal()
    assert env.scores() == [t.score for t in result.teams]
    winner = result.winner_team if result.HasField("winner_team") else None
    assert env.state.winner() == winner


GAMES = sorted(SHORT)
SEEDS = st.integers(min_value=0, max_value=2**32)


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS)
def test_an_episode_reproduces_the_referee(
    referee_stub: referee_pb2_grpc.RefereeStub, spy: tuple[Service, Path], game: str, seed: int
) -> None:
    check_reproduced(referee_stub, spy, game, seed)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS)
def test_many_episodes_reproduce_the_referee(
    referee_stub: referee_pb2_grpc.RefereeStub, spy: tuple[Service, Path], game: str, seed: int
) -> None:
    check_reproduced(referee_stub, spy, game, seed)
