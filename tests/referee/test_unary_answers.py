"""Unary answers name their decision too: on an ``Act`` call, an answer that names
another decision is a wrong-match fault, and the referee plays its own substitute
rather than the move that answer carries (on a stream such an answer is dropped and the
referee waits for the right one: ``test_stream_answers.py``)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena import wire
from arena.processes import Service, start_service
from arena.v1 import referee_pb2, referee_pb2_grpc

AFTER = 2
"""Decisions of a match before the bot starts naming the wrong one."""


@pytest.fixture
def misnumbering() -> Iterator[Service]:
    script = Path(__file__).with_name("misnumbering_bot.py")
    service = start_service([sys.executable, str(script), "--port", "0", "--after", str(AFTER)])
    yield service
    service.stop()


def test_a_unary_answer_for_another_decision_is_a_wrong_match_fault(
    referee_stub: referee_pb2_grpc.RefereeStub, basic_bot: Service, misnumbering: Service
) -> None:
    result: referee_pb2.MatchResult = referee_stub.PlayMatch(
        referee_pb2.PlayMatchRequest(
            game="bid-euchre",
            bots=[basic_bot.address, misnumbering.address],
            seed=12,
            move_deadline=wire.duration(2.0),
            match_id="misnumbered-unary",
        ),
        timeout=120,
    )
    assert result.end == referee_pb2.MATCH_END_FORFEIT and result.forfeit_team == 1, result
    assert [f.kind for f in result.faults] == [referee_pb2.FAULT_KIND_WRONG_MATCH] * 3
    assert [f.detail for f in result.faults] == [
        f"answer names decision {f.decision_index - 1}; the request was {f.decision_index}"
        for f in result.faults
    ]
    assert {f.seat for f in result.faults} <= {1, 3}
    # None of the misnumbered answers was played: each was replaced by a substitute.
    replay = json.loads(
        referee_stub.GetReplay(referee_pb2.GetReplayRequest(replay_id=result.replay_id)).json
    )
    own = [
        line["decision"]
        for hand in replay["hands"]
        for line in hand["log"]
        if "decision" in line and line["decision"]["seat"] % 2 == 1
    ]
    assert [d["substituted"] for d in own] == [d["index"] >= AFTER for d in own]
    assert sum(d["substituted"] for d in own) == 2  # the third fault forfeits, unplayed
