"""Leaving a match is a fault of its own kind, on which the team forfeits at once: what
``arena play`` answers for a person who quits, as the referee and replay verify see it."""

from __future__ import annotations

from arena.match_rules.faults import (
    KIND_NAMES,
    KINDS_BY_NAME,
    LEAVE,
    Fault,
    FaultLedger,
    FaultPolicy,
    answer_fault,
)
from arena.v1 import bot_pb2, referee_pb2

FOUR_SEATS = (0, 1, 0, 1)


def test_the_leave_id_is_a_left_fault_not_an_illegal_action() -> None:
    answer = bot_pb2.ActResponse(action_id=LEAVE, match_id="m", decision_index=4)
    kind, detail = answer_fault(answer, match_id="m", decision_index=4, legal=[0, 7]) or (0, "")
    assert (kind, detail) == (referee_pb2.FAULT_KIND_LEFT, "the seat's player left the match")
    assert KIND_NAMES[referee_pb2.FAULT_KIND_LEFT] == "left" and KINDS_BY_NAME["left"] == kind
    other = bot_pb2.ActResponse(action_id=LEAVE - 1)
    assert answer_fault(other, match_id="m", decision_index=4, legal=[0, 7]) == (
        referee_pb2.FAULT_KIND_ILLEGAL_ACTION,
        f"action id {LEAVE - 1} is not one of the 2 legal ids",
    )
    # An answer for another match or decision is that, whatever its id.
    stray = bot_pb2.ActResponse(action_id=LEAVE, match_id="other")
    fault = answer_fault(stray, match_id="m", decision_index=4, legal=[0, 7])
    assert fault is not None and fault[0] == referee_pb2.FAULT_KIND_WRONG_MATCH


def test_a_team_forfeits_on_leaving_whatever_max_faults() -> None:
    ledger = FaultLedger(FaultPolicy(max_faults=10), FOUR_SEATS)
    assert ledger.record(Fault(1, 3, referee_pb2.FAULT_KIND_TIMEOUT, "late")) is None
    assert ledger.record(Fault(2, 5, referee_pb2.FAULT_KIND_LEFT, "left")) == 0
    assert Fault(2, 5, referee_pb2.FAULT_KIND_LEFT, "left").to_json()["kind"] == "left"
