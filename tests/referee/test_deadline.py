"""The seat deadline: expires a waiting decision on time, never early, never a finished
one; interrupts any await; tells its own cancellation from anyone else's; and touches
the timer heap once per deadline period rather than per decision."""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Callable
from typing import TypeVarTuple

import pytest

from arena.referee.bot_client import BotFault, SeatConversation
from arena.referee.deadline import SeatDeadline
from arena.v1 import referee_pb2

Ts = TypeVarTuple("Ts")


async def wait_out(deadline: SeatDeadline, timeout_s: float) -> tuple[float, float, bool]:
    """Start a decision that never ends by itself; returns when it was due, when it was
    cancelled, and whether the deadline claimed the cancellation."""
    loop = asyncio.get_running_loop()
    due = loop.time() + timeout_s
    deadline.start(timeout_s)
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        return due, loop.time(), deadline.claim()
    finally:
        deadline.stop()
    raise AssertionError("never woken")


def test_a_waiting_decision_is_interrupted_at_its_deadline_and_claims_it() -> None:
    async def main() -> tuple[float, float, bool]:
        return await wait_out(SeatDeadline(), 0.05)

    due, woken, claimed = asyncio.run(main())
    assert woken >= due and claimed


def test_a_decision_that_ended_never_expires() -> None:
    async def main() -> bool:
        deadline = SeatDeadline()
        deadline.start(0.02)
        deadline.stop()
        await asyncio.sleep(0.1)  # would be cancelled here if the deadline fired
        return deadline.expired

    assert asyncio.run(main()) is False


def test_a_timer_armed_for_an_earlier_decision_waits_for_the_current_one() -> None:
    async def main() -> tuple[float, float, bool]:
        deadline = SeatDeadline()
        deadline.start(0.05)  # arms the timer
        deadline.stop()
        await asyncio.sleep(0.03)
        return await wait_out(deadline, 0.05)  # due later: the armed timer is kept

    due, woken, claimed = asyncio.run(main())
    assert woken >= due and claimed


def test_an_earlier_deadline_rearms_the_timer() -> None:
    async def main() -> tuple[float, float, bool, list[float]]:
        loop = asyncio.get_running_loop()
        armed: list[float] = []
        call_at = loop.call_at

        def recording_call_at(
            when: float,
            callback: Callable[[*Ts], object],
            *args: *Ts,
            context: contextvars.Context | None = None,
        ) -> asyncio.TimerHandle:
            armed.append(when)
            return call_at(when, callback, *args, context=context)

        loop.call_at = recording_call_at  # type: ignore[method-assign]
        deadline = SeatDeadline()
        deadline.start(60)
        deadline.stop()
        return (*await wait_out(deadline, 0.02), armed)

    due, woken, claimed, armed = asyncio.run(main())
    assert woken >= due and claimed
    assert len(armed) == 2 and armed[1] < armed[0]  # a new, earlier timer, not the 60 s one


def test_an_answer_in_before_a_late_loop_saw_the_deadline_counts() -> None:
    """The referee's own lag is not the bot's: the answer arrives 1 ms before the
    deadline, but the event loop is busy and handles both on the same late turn."""

    async def main() -> tuple[str, bool]:
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[str] = loop.create_future()
        deadline = SeatDeadline()
        deadline.start(0.05)
        loop.call_at(loop.time() + 0.049, answer.set_result, "in time")
        loop.call_soon(time.sleep, 0.2)  # the loop falls behind both
        try:
            return await answer, deadline.expired
        finally:
            deadline.stop()

    assert asyncio.run(main()) == ("in time", False)


def test_someone_elses_cancellation_is_not_claimed() -> None:
    async def main() -> tuple[bool, bool]:
        deadline = SeatDeadline()
        waiting = asyncio.ensure_future(wait_out(deadline, 60))
        await asyncio.sleep(0.01)
        waiting.cancel()
        _, _, alone = await waiting
        both = asyncio.ensure_future(wait_out(deadline, 0.01))
        await asyncio.sleep(0)
        both.cancel()  # and then the deadline expires as well
        await asyncio.sleep(0.05)
        _, _, together = await both
        return alone, together

    assert asyncio.run(main()) == (False, False)


def test_quick_decisions_share_one_timer() -> None:
    async def main() -> int:
        loop = asyncio.get_running_loop()
        scheduled = 0
        call_at = loop.call_at

        def counting_call_at(
            when: float,
            callback: Callable[[*Ts], object],
            *args: *Ts,
            context: contextvars.Context | None = None,
        ) -> asyncio.TimerHandle:
            nonlocal scheduled
            scheduled += 1
            return call_at(when, callback, *args, context=context)

        loop.call_at = counting_call_at  # type: ignore[method-assign]
        deadline = SeatDeadline()
        for _ in range(1000):
            deadline.start(30)
            await asyncio.sleep(0)
            deadline.stop()
        deadline.close()
        return scheduled

    assert asyncio.run(main()) == 1


class StalledStream:
    """A stream whose first write waits for the call to start, and cancelling the call
    does not wake it: what grpcio does when a call is cancelled before it started."""

    def __init__(self) -> None:
        self.cancelled = False

    async def write(self, request: bytes) -> None:
        await asyncio.Event().wait()

    async def read(self) -> object:
        raise AssertionError("unreachable")

    def cancel(self) -> None:
        self.cancelled = True


class StalledBot:
    def __init__(self) -> None:
        self.streams: list[StalledStream] = []

    def act_stream(self, wait_for_ready: bool = False) -> StalledStream:
        self.streams.append(StalledStream())
        return self.streams[-1]

    def connected(self) -> bool:
        return True  # a bot that is there and says nothing: a timeout, not unreachable


def test_a_decision_stuck_anywhere_in_the_call_times_out() -> None:
    async def main() -> tuple[BotFault, StalledBot]:
        bot = StalledBot()
        seat = SeatConversation(bot, use_stream=True)  # type: ignore[arg-type]
        with pytest.raises(BotFault) as fault:
            # The guard only turns a hang into a failure; the deadline is 50 ms.
            await asyncio.wait_for(seat.act(b"", 0.05, 0), 60)
        return fault.value, bot

    fault, bot = asyncio.run(main())
    assert fault.kind == referee_pb2.FAULT_KIND_TIMEOUT
    assert bot.streams[0].cancelled  # the late stream is dropped
