"""Stream answers name their decision: a second answer to one request, or an old answer
sent again, is dropped and logged, never taken for the answer to the next request."""

from __future__ import annotations

import pytest

from arena import wire
from arena.bots.examples.chaos import ABSORBED
from arena.processes import Service
from arena.v1 import referee_pb2, referee_pb2_grpc
from tests.support.bots import BotFactory


@pytest.mark.parametrize("mode", ABSORBED)
def test_stray_answers_on_a_stream_are_dropped_not_applied(
    referee: Service,
    referee_stub: referee_pb2_grpc.RefereeStub,
    basic_bot: Service,
    start_bot: BotFactory,
    mode: str,
) -> None:
    chaos = start_bot("chaos", "--mode", mode, "--after", "1")
    match_id = f"stray-{mode}"
    result: referee_pb2.MatchResult = referee_stub.PlayMatch(
        referee_pb2.PlayMatchRequest(
            game="bid-euchre",
            bots=[basic_bot.address, chaos.address],
            seed=12,
            move_deadline=wire.duration(2.0),
            match_id=match_id,
        ),
        timeout=120,
    )
    # Taken in order, each stray answer would have been played at the next decision:
    # an old card again, an illegal move, a fault; numbered, none of them counts.
    assert result.end == referee_pb2.MATCH_END_COMPLETED, result
    assert list(result.faults) == []
    assert result.decisions > 20
    assert any(
        f"bot {chaos.address} answered decision" in line and "dropped" in line
        for line in referee.output
    )
