"""End to end: a referee process plays Bid Euchre between bot processes over loopback."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import grpc
import jsonschema
import pytest

from arena.games import get_game
from arena.games.bid_euchre.game import GAME_TARGET
from arena.processes import Service
from arena.v1 import referee_pb2, referee_pb2_grpc
from tests.support.bots import BotFactory
from tests.support.referee import play

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "arena/replay/replay.schema.json").read_text()
)


def replay_of(
    stub: referee_pb2_grpc.RefereeStub, result: referee_pb2.MatchResult
) -> dict[str, Any]:
    text = stub.GetReplay(referee_pb2.GetReplayRequest(replay_id=result.replay_id)).json
    document: dict[str, Any] = json.loads(text)
    return document


def test_match_between_two_bot_processes_completes_with_a_winner(
    referee_stub: referee_pb2_grpc.RefereeStub, basic_bot: Service, random_bot: Service
) -> None:
    result = play(referee_stub, [basic_bot.address, random_bot.address], seed=4)
    assert result.end == referee_pb2.MATCH_END_COMPLETED
    assert result.HasField("winner_team")
    assert [t.bots for t in result.teams] == [
        [basic_bot.address] * 2,
        [random_bot.address] * 2,
    ]
    # Played out (seed 4 does not need the max_hands safeguard): the winner passed 32,
    # and ahead of the losers.
    winner, loser = result.teams[result.winner_team], result.teams[1 - result.winner_team]
    assert winner.score >= GAME_TARGET and winner.score > loser.score
    assert list(result.seat_faults) == [0, 0, 0, 0]
    assert result.decisions > 20


def test_replay_follows_the_schema_and_replays_to_the_same_scores(
    referee_stub: referee_pb2_grpc.RefereeStub, basic_bot: Service, random_bot: Service
) -> None:
    result = play(referee_stub, [random_bot.address, basic_bot.address], seed=9)
    document = replay_of(referee_stub, result)
    jsonschema.validate(document, SCHEMA)
    decisions = [e["decision"] for h in document["hands"] for e in h["log"] if "decision" in e]
    assert len(decisions) == result.decisions
    assert all(d["think_ms"] > 0 for d in decisions)
    # The replay is complete: seed, options and decisions re-create the match exactly.
    state = get_game("bid-euchre").new_state(document["seed"], document["options"])
    for d in decisions:
        assert state.current_seat() == d["seat"]
        assert state.action_text(d["action"]) == d["text"]
        state.apply(d["action"])
    assert state.is_terminal()
    assert state.scores() == [t.score for t in result.teams] == document["result"]["scores"]
    packs = [sorted(c for hand in h["deal"] for c in hand) for h in document["hands"]]
    assert all(len(pack) == 24 and pack == packs[0] for pack in packs)
    assert all(h["scores"] for h in document["hands"])


def test_same_seed_and_same_bots_give_the_same_match(
    referee_stub: referee_pb2_grpc.RefereeStub, basic_bot: Service
) -> None:
    # The random bot draws from the match id; the rule-based one depends on the cards only.
    bots = [basic_bot.address, basic_bot.address]
    first = replay_of(referee_stub, play(referee_stub, bots, seed=21))
    second = replay_of(referee_stub, play(referee_stub, bots, seed=21))

    def moves(doc: dict[str, Any]) -> list[str]:
        return [e["decision"]["text"] for h in doc["hands"] for e in h["log"] if "decision" in e]

    assert moves(first) == moves(second)
    assert first["result"]["scores"] == second["result"]["scores"]


def test_one_bot_per_seat_is_accepted(
    referee_stub: referee_pb2_grpc.RefereeStub, basic_bot: Service, random_bot: Service
) -> None:
    seats = [basic_bot.address, random_bot.address, random_bot.address, basic_bot.address]
    result = play(referee_stub, seats, seed=2)
    assert result.end == referee_pb2.MATCH_END_COMPLETED
    assert list(result.teams[0].bots) == [basic_bot.address, random_bot.address]


def test_unary_only_bot_is_asked_with_act_calls(
    referee_stub: referee_pb2_grpc.RefereeStub, start_bot: BotFactory, random_bot: Service
) -> None:
    unary = start_bot("random", "--no-stream", "--seed", "3")
    result = play(referee_stub, [unary.address, random_bot.address], seed=5)
    assert result.end == referee_pb2.MATCH_END_COMPLETED
    assert sum(result.seat_faults) == 0


def test_many_matches_run_at_once_on_one_referee(
    referee_stub: referee_pb2_grpc.RefereeStub, basic_bot: Service, random_bot: Service
) -> None:
    results: dict[int, referee_pb2.MatchResult] = {}

    def run(seed: int) -> None:
        results[seed] = play(referee_stub, [basic_bot.address, random_bot.address], seed=seed)

    threads = [threading.Thread(target=run, args=(seed,)) for seed in range(100, 108)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == list(range(100, 108))
    assert len({r.match_id for r in results.values()}) == 8
    assert all(r.end == referee_pb2.MATCH_END_COMPLETED for r in results.values())


def test_match_id_given_by_the_caller_names_result_and_replay(
    referee_stub: referee_pb2_grpc.RefereeStub, basic_bot: Service, random_bot: Service
) -> None:
    result = play(referee_stub, [basic_bot.address, random_bot.address], match_id="my-match_1")
    assert result.match_id == result.replay_id == "my-match_1"
    assert replay_of(referee_stub, result)["match_id"] == "my-match_1"


def test_missing_replay_is_not_found(referee_stub: referee_pb2_grpc.RefereeStub) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        referee_stub.GetReplay(referee_pb2.GetReplayRequest(replay_id="nope"))
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    assert "nope" in (caught.value.details() or "")


def test_a_used_match_id_is_refused_and_the_first_replay_kept(
    referee_stub: referee_pb2_grpc.RefereeStub, basic_bot: Service, random_bot: Service
) -> None:
    first = play(referee_stub, [basic_bot.address, random_bot.address], match_id="once-only")
    kept = replay_of(referee_stub, first)
    with pytest.raises(grpc.RpcError) as caught:
        play(referee_stub, [random_bot.address, basic_bot.address], match_id="once-only")
    assert caught.value.code() == grpc.StatusCode.ALREADY_EXISTS
    assert "match id 'once-only' was already used" in (caught.value.details() or "")
    assert replay_of(referee_stub, first) == kept
