"""Time control: a deadline per decision plus a per-seat time bank for the match."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arena import wire
from arena.match_rules.clock import SeatClocks
from arena.v1 import referee_pb2, referee_pb2_grpc
from tests.support.bots import BotFactory


def test_overruns_are_drawn_from_the_bank_and_a_timeout_empties_it() -> None:
    clocks = SeatClocks(2, move_deadline_s=0.1, time_bank_s=1.0)
    assert clocks.allowance(0) == pytest.approx(1.1)
    clocks.spend(0, 0.05, timed_out=False)  # inside the deadline: free
    assert clocks.bank(0) == 1.0
    clocks.spend(0, 0.35, timed_out=False)
    assert clocks.bank(0) == pytest.approx(0.75)
    assert clocks.allowance(0) == pytest.approx(0.85)
    clocks.spend(1, 0.2, timed_out=True)
    assert clocks.left() == [pytest.approx(0.75), 0.0]
    assert not SeatClocks(2, 0.1, 0.0).has_bank


def play(
    stub: referee_pb2_grpc.RefereeStub, bots: list[str], bank_s: float
) -> referee_pb2.MatchResult:
    result: referee_pb2.MatchResult = stub.PlayMatch(
        referee_pb2.PlayMatchRequest(
            game="persian-rummy",
            bots=bots,
            seed=12,
            move_deadline=wire.duration(0.1),
            time_bank=wire.duration(bank_s) if bank_s else None,
            fault_policy=referee_pb2.FaultPolicy(max_faults=3),
        ),
        timeout=120,
    )
    return result


def replay(stub: referee_pb2_grpc.RefereeStub, result: referee_pb2.MatchResult) -> dict[str, Any]:
    text = stub.GetReplay(referee_pb2.GetReplayRequest(replay_id=result.replay_id)).json
    document: dict[str, Any] = json.loads(text)
    return document


def test_a_slow_bot_lives_on_its_bank_until_it_is_spent(
    referee_stub: referee_pb2_grpc.RefereeStub, start_bot: BotFactory
) -> None:
    slow = start_bot("paced", "--delay-ms", "160")  # 60 ms over a 100 ms deadline
    fast = start_bot("house")
    bots = [slow.address, fast.address]

    without = play(referee_stub, bots, bank_s=0)
    assert without.end == referee_pb2.MATCH_END_FORFEIT and without.forfeit_team == 0
    first_fault = without.faults[0]
    assert first_fault.kind == referee_pb2.FAULT_KIND_TIMEOUT
    assert first_fault.decision_index < 4  # no bank: the slow team's first answer is late

    with_bank = play(referee_stub, bots, bank_s=1.2)
    assert with_bank.end == referee_pb2.MATCH_END_FORFEIT and with_bank.forfeit_team == 0
    assert {f.kind for f in with_bank.faults} == {referee_pb2.FAULT_KIND_TIMEOUT}
    assert {f.seat for f in with_bank.faults} <= {0, 2}  # the slow team's seats
    assert with_bank.faults[0].decision_index > 20  # it lived on credit first
    left = [d.ToTimedelta().total_seconds() for d in with_bank.time_bank_left]
    assert min(left[1], left[3]) > 0.8  # the fast seats hardly draw on theirs
    assert min(left[0], left[2]) == 0.0  # a timeout empties the bank

    document = replay(referee_stub, with_bank)
    assert document["time_bank_ms"] == 1200
    for seat in range(4):
        decisions = [
            line["decision"]
            for hand in document["hands"]
            for line in hand["log"]
            if "decision" in line and line["decision"]["seat"] == seat
        ]
        banks = [d["time_bank_ms"] for d in decisions]
        # Each decision draws exactly its overrun past the 100 ms deadline, until empty. The
        # replay is re-run from the match's record, which keeps think times to 0.1 ms:
        # its banks may stray from the referee's by half of that a decision.
        slack = 0.05 * len(decisions) + 0.01
        before = 1200.0
        for decision in decisions:
            overrun = max(0.0, decision["think_ms"] - 100)
            expected = 0.0 if decision["substituted"] else max(0.0, before - overrun)
            assert decision["time_bank_ms"] == pytest.approx(expected, abs=0.01), decision
            before = decision["time_bank_ms"]
        # The result's bank is the last one recorded, or less if the seat's final
        # decision was the fault that ended the match (that one is not recorded).
        assert left[seat] * 1000 <= before + slack
        if seat in (1, 3):
            assert before == pytest.approx(left[seat] * 1000, abs=slack)
        else:  # the paced bot takes 160 ms: 60 ms over, so some 20 decisions on credit
            assert banks[0] < 1200 - 50
            assert sum(1 for b in banks if b > 0) <= 22, banks
