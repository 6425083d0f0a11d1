"""Waiting on a condition, never for a fixed time: a test that sleeps a fixed time is slow
where it is generous and flaky where it is not."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

POLL_S = 0.05


def wait_until(predicate: Callable[[], object], timeout: float, what: str) -> None:
    """Poll ``predicate`` until it is true; fail saying ``what`` was awaited if it is still
    false after ``timeout`` seconds (it is checked once more at the deadline)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() >= deadline:
            raise AssertionError(f"waited {timeout} s for {what}")
        time.sleep(POLL_S)


async def wait_until_async(predicate: Callable[[], object], timeout: float, what: str) -> None:
    """``wait_until`` inside an event loop: the loop runs other tasks while this waits."""
    deadline = time.monotonic() + timeout
    pause = 0.0  # first just let the tasks that are ready run
    while not predicate():
        if time.monotonic() >= deadline:
            raise AssertionError(f"waited {timeout} s for {what}")
        await asyncio.sleep(pause)
        pause = POLL_S
