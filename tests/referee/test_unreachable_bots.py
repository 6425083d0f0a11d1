"""A bot that cannot be reached mid-match is waited for like a slow one, until its time
(deadline plus bank) is up: a bot back on its port in time plays on as if nothing had
happened, and one that stays away makes one fault per decision it was waited for, not
one per refused connection (which fails in a millisecond)."""

from __future__ import annotations

import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import pytest

from arena import wire
from arena.bots.examples.chaos import EXIT_STATUS
from arena.processes import Service, free_port
from arena.referee.bot_client import NOT_REACHED, RETRY_PAUSE_S, BotFault, SeatConversation
from arena.v1 import bot_pb2, referee_pb2, referee_pb2_grpc
from tests.support.bots import BotFactory

UNREACHABLE = referee_pb2.FAULT_KIND_UNREACHABLE
CHAOS_SEATS = {1, 3}
GOOD_ANSWERS = 10
"""Decisions the chaos bot answers before its process exits (``--mode crash``)."""
TRANSPORTS = pytest.mark.parametrize("flags", [(), ("--no-stream",)], ids=["stream", "unary"])


def play(
    stub: referee_pb2_grpc.RefereeStub,
    bots: list[str],
    *,
    deadline_s: float,
    max_faults: int = 0,
    time_bank_s: float = 0.0,
) -> referee_pb2.MatchResult:
    result: referee_pb2.MatchResult = stub.PlayMatch(
        referee_pb2.PlayMatchRequest(
            game="bid-euchre",
            bots=bots,
            seed=5,
            move_deadline=wire.duration(deadline_s),
            time_bank=wire.duration(time_bank_s) if time_bank_s else None,
            fault_policy=referee_pb2.FaultPolicy(max_faults=max_faults),
        ),
        timeout=300,
    )
    return result


def chaos_decisions(
    stub: referee_pb2_grpc.RefereeStub, result: referee_pb2.MatchResult
) -> list[dict[str, Any]]:
    """The decisions of the chaos bot's seats, as the replay records them."""
    doc = json.loads(stub.GetReplay(referee_pb2.GetReplayRequest(replay_id=result.replay_id)).json)
    return [
        line["decision"]
        for hand in doc["hands"]
        for line in hand["log"]
        if "decision" in line and line["decision"]["seat"] in CHAOS_SEATS
    ]


def waited_out(decision: dict[str, Any], allowance_s: float) -> bool:
    """Whether the referee waited ``allowance_s`` for it (to within the replay's rounding)."""
    return bool(decision["think_ms"] >= allowance_s * 1000 - 1)


@TRANSPORTS
def test_a_bot_restarted_on_its_port_mid_match_plays_on(
    referee_stub: referee_pb2_grpc.RefereeStub,
    basic_bot: Service,
    start_bot: BotFactory,
    flags: tuple[str, ...],
) -> None:
    deadline_s = 2.0
    port = str(free_port())
    crashing = start_bot(
        "chaos", "--mode", "crash", "--after", str(GOOD_ANSWERS), "--port", port, *flags
    )
    bots = [basic_bot.address, crashing.address]
    with ThreadPoolExecutor(1) as pool:
        match = pool.submit(play, referee_stub, bots, deadline_s=deadline_s, max_faults=1000)
        assert crashing.process.wait(120) == EXIT_STATUS  # mid-match, asked for a move
        down = time.monotonic()
        restarted = start_bot("random", "--port", port, *flags)
        downtime_s = time.monotonic() - down
        result = match.result()
    assert restarted.address == crashing.address
    assert result.end == referee_pb2.MATCH_END_COMPLETED, result
    # The restarted bot's answers count: its seats played their own moves to the end.
    decisions = chaos_decisions(referee_stub, result)
    after = [d for d in decisions if d["index"] >= GOOD_ANSWERS]
    assert sum(not d["substituted"] for d in after) > 10
    # Back within the deadline, no fault; else one per deadline the downtime spanned
    # (the referee reconnects within about half a second of the bot's return), never
    # one per refused connection.
    assert len(result.faults) <= downtime_s / deadline_s + 2, (downtime_s, result.faults)
    assert {f.kind for f in result.faults} <= {UNREACHABLE}
    assert {f.seat for f in result.faults} <= CHAOS_SEATS
    assert all(waited_out(d, deadline_s) for d in decisions if d["substituted"])


@TRANSPORTS
def test_a_bot_that_stays_down_makes_one_fault_per_decision_waited_out(
    referee_stub: referee_pb2_grpc.RefereeStub,
    basic_bot: Service,
    start_bot: BotFactory,
    flags: tuple[str, ...],
) -> None:
    deadline_s, bank_s = 0.5, 1.0
    crashing = start_bot("chaos", "--mode", "crash", "--after", str(GOOD_ANSWERS), *flags)
    bots = [basic_bot.address, crashing.address]
    result = play(referee_stub, bots, deadline_s=deadline_s, time_bank_s=bank_s)
    assert crashing.process.wait(10) == EXIT_STATUS
    assert result.end == referee_pb2.MATCH_END_FORFEIT and result.forfeit_team == 1
    assert [f.kind for f in result.faults] == [UNREACHABLE] * 3
    assert all(f.detail.startswith(NOT_REACHED) for f in result.faults)
    decisions = chaos_decisions(referee_stub, result)
    answered = [d for d in decisions if not d["substituted"]]
    substituted = [d for d in decisions if d["substituted"]]
    # It crashed at the match's decision GOOD_ANSWERS (the chaos bot's --after).
    assert answered == [d for d in decisions if d["index"] < GOOD_ANSWERS]
    assert answered and decisions[: len(answered)] == answered
    # One fault for each of the team's decisions after the crash, the last unplayed.
    faulted = [d["index"] for d in substituted] + [result.decisions]
    assert [f.decision_index for f in result.faults] == faulted
    # Each waited the seat's whole allowance: its deadline plus the bank, then the
    # deadline alone, as the bank of a bot that ran out of time is spent.
    first_of_seat = {d["seat"]: d for d in reversed(substituted)}
    for decision in substituted:
        allowance_s = deadline_s + (bank_s if first_of_seat[decision["seat"]] is decision else 0)
        assert waited_out(decision, allowance_s), decision
        assert decision["time_bank_ms"] == 0, decision
    left = [d.ToTimedelta().total_seconds() for d in result.time_bank_left]
    assert [left[s] for s in sorted(CHAOS_SEATS)] == [0.0, 0.0]


def rpc_error(code: grpc.StatusCode, details: str) -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details, None)


class RefusingBot:
    """A stand-in connection whose bot refuses (UNAVAILABLE) the first ``refusals`` calls
    at once, then answers; or, when ``refusals`` is None, refuses every call."""

    def __init__(self, refusals: int | None, connected: bool = False) -> None:
        self.refusals = refusals
        self.calls = 0
        self.is_connected = connected

    async def act_unary(self, request: bytes, **_: Any) -> bot_pb2.ActResponse:
        self.calls += 1
        if self.refusals is None or self.calls <= self.refusals:
            raise rpc_error(grpc.StatusCode.UNAVAILABLE, "refused")
        return bot_pb2.ActResponse(action_id=7, decision_index=0)

    def connected(self) -> bool:
        return self.is_connected


def ask(bot: RefusingBot, timeout_s: float) -> bot_pb2.ActResponse:
    async def main() -> bot_pb2.ActResponse:
        seat = SeatConversation(bot, use_stream=False)  # type: ignore[arg-type]
        return await seat.act(b"", timeout_s, 0)

    return asyncio.run(main())


def test_refusals_within_the_allowance_are_no_fault() -> None:
    bot = RefusingBot(refusals=3)
    assert ask(bot, 30.0).action_id == 7
    assert bot.calls == 4


def test_a_bot_that_refuses_until_its_time_is_up_is_one_unreachable_fault() -> None:
    bot = RefusingBot(refusals=None)
    with pytest.raises(BotFault) as caught:
        ask(bot, 0.2)
    assert caught.value.kind == UNREACHABLE
    assert caught.value.detail == f"{NOT_REACHED} 0.2 s (last error UNAVAILABLE: refused)"
    # Asked again after a pause each time, not in a tight loop.
    assert 2 <= bot.calls <= 0.2 / RETRY_PAUSE_S + 1


class SilentBot(RefusingBot):
    """A call that waits for a connection (or an answer) until its deadline."""

    async def act_unary(self, request: bytes, **_: Any) -> bot_pb2.ActResponse:
        self.calls += 1
        raise rpc_error(grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded")


def test_a_deadline_without_a_connection_is_unreachable_and_with_one_a_timeout() -> None:
    with pytest.raises(BotFault) as caught:
        ask(SilentBot(refusals=None, connected=False), 0.2)
    assert (caught.value.kind, caught.value.detail) == (UNREACHABLE, f"{NOT_REACHED} 0.2 s")
    with pytest.raises(BotFault) as caught:
        ask(SilentBot(refusals=None, connected=True), 0.2)
    assert caught.value.kind == referee_pb2.FAULT_KIND_TIMEOUT
