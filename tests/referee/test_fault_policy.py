"""The fault policy against misbehaving bot processes: every fault is recorded, answered
with a legal move chosen from the seed, and enough of them forfeit the match."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from arena import wire
from arena.games import get_game
from arena.processes import Service, free_port
from arena.referee.feed import MatchFeed
from arena.referee.match import MatchRunner, MatchSpec
from arena.replay import ReplayStore
from arena.v1 import referee_pb2, referee_pb2_grpc
from tests.support.bots import BotFactory

FAULTY_TEAM = 1


def play(
    stub: referee_pb2_grpc.RefereeStub,
    bots: list[str],
    *,
    seed: int = 3,
    deadline_s: float = 1.0,
    max_faults: int = 0,
) -> referee_pb2.MatchResult:
    result: referee_pb2.MatchResult = stub.PlayMatch(
        referee_pb2.PlayMatchRequest(
            game="bid-euchre",
            bots=bots,
            seed=seed,
            move_deadline=wire.duration(deadline_s),
            fault_policy=referee_pb2.FaultPolicy(max_faults=max_faults),
        ),
        timeout=120,
    )
    return result


def replay(stub: referee_pb2_grpc.RefereeStub, result: referee_pb2.MatchResult) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(
        stub.GetReplay(referee_pb2.GetReplayRequest(replay_id=result.replay_id)).json
    )
    return doc


def assert_forfeited_by_faulty_team(
    stub: referee_pb2_grpc.RefereeStub, result: referee_pb2.MatchResult, kinds: set[int]
) -> None:
    assert result.end == referee_pb2.MATCH_END_FORFEIT
    assert result.forfeit_team == FAULTY_TEAM
    assert result.winner_team == 1 - FAULTY_TEAM
    assert len(result.faults) == 3
    assert {f.kind for f in result.faults} <= kinds
    assert all(f.seat % 2 == FAULTY_TEAM for f in result.faults)
    assert result.teams[1 - FAULTY_TEAM].faults == 0
    assert result.teams[FAULTY_TEAM].faults == 3
    assert sum(result.seat_faults) == 3
    doc = replay(stub, result)
    assert [f["kind"] for f in doc["faults"]] == [
        referee_pb2.FaultKind.Name(f.kind).removeprefix("FAULT_KIND_").lower()
        for f in result.faults
    ]
    logged = [e["fault"] for h in doc["hands"] for e in h["log"] if "fault" in e]
    assert logged == doc["faults"]
    assert doc["result"]["end"] == "forfeit"


@pytest.mark.parametrize(
    ("mode", "kinds"),
    [
        ("hang", {referee_pb2.FAULT_KIND_TIMEOUT}),
        ("illegal", {referee_pb2.FAULT_KIND_ILLEGAL_ACTION}),
        ("error", {referee_pb2.FAULT_KIND_RPC_ERROR}),
        ("wrong-match", {referee_pb2.FAULT_KIND_WRONG_MATCH}),
    ],
)
def test_three_faults_forfeit_the_match_for_the_faulty_team(
    referee_stub: referee_pb2_grpc.RefereeStub,
    start_bot: BotFactory,
    basic_bot: Service,
    mode: str,
    kinds: set[int],
) -> None:
    chaos = start_bot("chaos", "--mode", mode, "--after", "2")
    result = play(referee_stub, [basic_bot.address, chaos.address])
    assert_forfeited_by_faulty_team(referee_stub, result, kinds)


def test_unary_bot_that_hangs_times_out_too(
    referee_stub: referee_pb2_grpc.RefereeStub, start_bot: BotFactory, basic_bot: Service
) -> None:
    chaos = start_bot("chaos", "--mode", "hang", "--no-stream")
    result = play(referee_stub, [basic_bot.address, chaos.address])
    assert_forfeited_by_faulty_team(referee_stub, result, {referee_pb2.FAULT_KIND_TIMEOUT})


def test_bot_that_crashes_mid_match_forfeits_and_the_referee_keeps_serving(
    referee_stub: referee_pb2_grpc.RefereeStub,
    start_bot: BotFactory,
    basic_bot: Service,
    random_bot: Service,
) -> None:
    chaos = start_bot("chaos", "--mode", "crash", "--after", "10")
    result = play(referee_stub, [basic_bot.address, chaos.address], deadline_s=1.0)
    assert chaos.process.wait(5) == 3
    # A dead bot is unreachable, whichever of its seats' streams notices first.
    assert_forfeited_by_faulty_team(referee_stub, result, {referee_pb2.FAULT_KIND_UNREACHABLE})
    assert result.decisions >= 10
    after = play(referee_stub, [basic_bot.address, random_bot.address])
    assert after.end == referee_pb2.MATCH_END_COMPLETED


def test_bot_unreachable_at_the_start_forfeits_before_any_move(
    referee_stub: referee_pb2_grpc.RefereeStub, basic_bot: Service
) -> None:
    dead = f"127.0.0.1:{free_port()}"
    result = play(referee_stub, [dead, basic_bot.address])
    assert result.end == referee_pb2.MATCH_END_FORFEIT
    assert result.forfeit_team == 0
    assert result.winner_team == 1
    assert result.decisions == 0
    assert {f.kind for f in result.faults} == {referee_pb2.FAULT_KIND_UNREACHABLE}
    assert {f.seat for f in result.faults} == {0, 2}
    # One bounded wait, for the Hello (max(2 s, deadline)), not a deadline per seat too.
    # and why, as gRPC says it: nothing listens there.
    assert {f.detail for f in result.faults} == {
        "no answer to Hello within 2 s (Connection refused)"
    }


def test_bot_that_does_not_play_the_game_forfeits(
    referee_stub: referee_pb2_grpc.RefereeStub, start_bot: BotFactory, basic_bot: Service
) -> None:
    # The spy bot claims every game; a bot claiming none is the chaos bot's cousin below.
    nongamer = start_bot("spy", "--out", "/dev/null", "--games", "")
    result = play(referee_stub, [basic_bot.address, nongamer.address])
    assert result.end == referee_pb2.MATCH_END_FORFEIT
    assert result.forfeit_team == 1
    assert "does not play bid-euchre" in result.faults[0].detail


def test_substituted_moves_are_legal_and_fixed_by_the_seed(
    referee_stub: referee_pb2_grpc.RefereeStub, start_bot: BotFactory, basic_bot: Service
) -> None:
    chaos = start_bot("chaos", "--mode", "illegal")
    runs = [
        play(referee_stub, [basic_bot.address, chaos.address], seed=77, max_faults=1000)
        for _ in range(2)
    ]
    docs = [replay(referee_stub, r) for r in runs]
    for result in runs:
        assert result.end == referee_pb2.MATCH_END_COMPLETED
        assert result.teams[0].faults == 0
        assert result.teams[1].faults == len(result.faults) > 10

    def moves(doc: dict[str, Any]) -> list[tuple[int, str, bool]]:
        return [
            (d["seat"], d["text"], d["substituted"])
            for h in doc["hands"]
            for e in h["log"]
            if (d := e.get("decision"))
        ]

    assert moves(docs[0]) == moves(docs[1])
    assert all(sub == (seat % 2 == 1) for seat, _, sub in moves(docs[0]))
    state = get_game("bid-euchre").new_state(77, docs[0]["options"])
    for seat, text, _ in moves(docs[0]):
        assert seat == state.current_seat()
        legal = {state.action_text(a): a for a in state.legal_actions()}
        state.apply(legal[text])
    assert state.is_terminal()


def test_a_match_past_the_decision_cap_ends_without_a_result(
    tmp_path: Path, basic_bot: Service
) -> None:
    game = get_game("bid-euchre")
    spec = MatchSpec(
        match_id="capped",
        game=game,
        seat_bots=(basic_bot.address,) * 4,
        seed=1,
        options=game.info.resolve_options(),
        move_deadline_s=2.0,
        max_decisions=30,
    )
    replays = ReplayStore(tmp_path)

    async def run() -> referee_pb2.MatchResult:
        return await MatchRunner(spec, MatchFeed("capped"), replays).run()

    result = asyncio.run(run())
    assert result.end == referee_pb2.MATCH_END_NO_CONTEST
    assert result.decisions == 30
    assert not result.HasField("winner_team")
    assert replays.load("capped")["result"]["end"] == "no_contest"
