"""A bot that answers with bytes that are not protobuf breaks nothing: each such answer
is a fault like any other, on unary calls and on streams, and the match ends with a
result, a replay and an ENDED event for its watchers."""

from __future__ import annotations

import asyncio
import json

import pytest

from arena import wire
from arena.processes import Service
from arena.referee.bot_client import BotConnection, BotFault
from arena.v1 import referee_pb2, referee_pb2_grpc
from tests.support.bots import BotFactory
from tests.support.referee import with_addresses


def play(
    stub: referee_pb2_grpc.RefereeStub, bots: list[str], match_id: str
) -> referee_pb2.MatchResult:
    result: referee_pb2.MatchResult = stub.PlayMatch(
        referee_pb2.PlayMatchRequest(
            game="bid-euchre",
            bots=bots,
            seed=3,
            move_deadline=wire.duration(2.0),
            match_id=match_id,
        ),
        timeout=120,
    )
    return result


@pytest.mark.parametrize("flags", [(), ("--no-stream",)], ids=["stream", "unary"])
def test_garbage_answers_are_faults_and_the_match_still_ends(
    referee_stub: referee_pb2_grpc.RefereeStub,
    basic_bot: Service,
    start_bot: BotFactory,
    flags: tuple[str, ...],
) -> None:
    chaos = start_bot("chaos", "--mode", "garbage", "--after", "1", *flags)
    match_id = f"garbage-{len(flags)}"
    result = play(referee_stub, [basic_bot.address, chaos.address], match_id)
    assert result.end == referee_pb2.MATCH_END_FORFEIT and result.forfeit_team == 1
    assert [f.kind for f in result.faults] == [referee_pb2.FAULT_KIND_RPC_ERROR] * 3
    assert all("is not an arena.v1.ActResponse" in f.detail for f in result.faults)
    replay = json.loads(
        referee_stub.GetReplay(referee_pb2.GetReplayRequest(replay_id=result.replay_id)).json
    )
    assert len(replay["faults"]) == 3
    events = list(referee_stub.WatchMatch(referee_pb2.WatchMatchRequest(match_id=match_id)))
    assert events[-1].kind == referee_pb2.MATCH_EVENT_KIND_ENDED
    assert with_addresses(events[-1].result, result) == result


def test_a_garbage_hello_forfeits_at_the_start_with_a_reason(
    referee_stub: referee_pb2_grpc.RefereeStub, basic_bot: Service, start_bot: BotFactory
) -> None:
    chaos = start_bot("chaos", "--mode", "garbage-hello")
    result = play(referee_stub, [chaos.address, basic_bot.address], "garbage-hello")
    assert result.end == referee_pb2.MATCH_END_FORFEIT and result.forfeit_team == 0
    assert result.decisions == 0
    assert {f.kind for f in result.faults} == {referee_pb2.FAULT_KIND_UNREACHABLE}
    assert all("Hello is not an arena.v1.HelloResponse" in f.detail for f in result.faults)


def test_a_hello_in_garbage_is_told_apart_from_a_silent_bot(start_bot: BotFactory) -> None:
    """What RegisterBot and ``arena bot check`` hear too: they ask ``say_hello``."""
    chaos = start_bot("chaos", "--mode", "garbage-hello")

    async def hello() -> None:
        connection = BotConnection.open(chaos.address)
        try:
            await connection.say_hello(5.0)
        finally:
            await connection.close()

    with pytest.raises(BotFault, match=r"not an arena\.v1\.HelloResponse") as caught:
        asyncio.run(hello())
    assert caught.value.kind == referee_pb2.FAULT_KIND_UNREACHABLE
