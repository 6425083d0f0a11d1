"""The seat deadline: expires a waiting decision on time, never early, never a finished
one, and touches the timer heap once per deadline period rather than per decision."""

from __future__ import annotations

import asyncio
from typing import Any

from arena.referee.deadline import SeatDeadline


class Expiries:
    def __init__(self) -> None:
        self.times: list[float] = []

    def __call__(self) -> None:
        self.times.append(asyncio.get_running_loop().time())


def test_a_waiting_decision_expires_at_its_deadline() -> None:
    async def main() -> tuple[float, list[float], bool]:
        expiries = Expiries()
        deadline = SeatDeadline(expiries)
        due = asyncio.get_running_loop().time() + 0.05
        deadline.start(0.05)
        while not expiries.times:
            await asyncio.sleep(0.01)
        return due, expiries.times, deadline.expired

    due, times, expired = asyncio.run(main())
    assert len(times) == 1 and times[0] >= due
    assert expired


def test_a_decision_that_ended_never_expires() -> None:
    async def main() -> tuple[list[float], bool]:
        expiries = Expiries()
        deadline = SeatDeadline(expiries)
        deadline.start(0.02)
        deadline.stop()
        await asyncio.sleep(0.1)
        return expiries.times, deadline.expired

    assert asyncio.run(main()) == ([], False)


def test_a_timer_armed_for_an_earlier_decision_waits_for_the_current_one() -> None:
    async def main() -> tuple[float, list[float]]:
        loop = asyncio.get_running_loop()
        expiries = Expiries()
        deadline = SeatDeadline(expiries)
        deadline.start(0.05)  # arms the timer
        deadline.stop()
        await asyncio.sleep(0.03)
        due = loop.time() + 0.05
        deadline.start(0.05)  # due later than the armed timer: keeps it
        while not expiries.times:
            await asyncio.sleep(0.01)
        return due, expiries.times

    due, times = asyncio.run(main())
    assert len(times) == 1 and times[0] >= due


def test_an_earlier_deadline_rearms_the_timer() -> None:
    async def main() -> tuple[float, list[float]]:
        loop = asyncio.get_running_loop()
        expiries = Expiries()
        deadline = SeatDeadline(expiries)
        deadline.start(60)
        deadline.stop()
        due = loop.time() + 0.02
        deadline.start(0.02)
        while not expiries.times:
            await asyncio.sleep(0.01)
        deadline.close()
        return due, expiries.times

    due, times = asyncio.run(main())
    assert len(times) == 1 and due <= times[0] < due + 30


def test_quick_decisions_share_one_timer() -> None:
    async def main() -> int:
        loop = asyncio.get_running_loop()
        scheduled = 0
        call_at = loop.call_at

        def counting_call_at(when: float, callback: Any) -> asyncio.TimerHandle:
            nonlocal scheduled
            scheduled += 1
            return call_at(when, callback)

        loop.call_at = counting_call_at  # type: ignore[method-assign]
        deadline = SeatDeadline(lambda: None)
        for _ in range(1000):
            deadline.start(30)
            await asyncio.sleep(0)
            deadline.stop()
        deadline.close()
        return scheduled

    assert asyncio.run(main()) == 1
