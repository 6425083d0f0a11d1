"""tests/support/waiting.py: a wait ends as soon as its condition holds, and fails saying
what it waited for when the condition never does."""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.support.waiting import wait_until, wait_until_async


def test_a_wait_ends_when_its_condition_holds() -> None:
    calls: list[float] = []

    def third_time() -> bool:
        calls.append(time.monotonic())
        return len(calls) == 3

    wait_until(third_time, timeout=10, what="the third call")
    assert len(calls) == 3 and calls[-1] - calls[0] < 5


def test_a_wait_that_times_out_says_what_it_waited_for() -> None:
    start = time.monotonic()
    with pytest.raises(AssertionError, match=r"waited 0.2 s for the moon"):
        wait_until(lambda: False, timeout=0.2, what="the moon")
    assert time.monotonic() - start >= 0.2


def test_an_async_wait_lets_other_tasks_run() -> None:
    async def main() -> list[str]:
        seen: list[str] = []

        async def other() -> None:
            seen.append("ran")

        task = asyncio.ensure_future(other())
        await wait_until_async(lambda: seen == ["ran"], timeout=10, what="the other task")
        await task
        with pytest.raises(AssertionError, match=r"waited 0.1 s for nothing"):
            await wait_until_async(lambda: False, timeout=0.1, what="nothing")
        return seen

    assert asyncio.run(main()) == ["ran"]
