"""Decision deadlines on one lazily re-armed timer per seat.

``asyncio.timeout`` schedules a timer and cancels it again for every decision, and a
referee makes thousands of decisions a second, nearly all of which end long before
their deadline. A seat instead keeps one timer. A new decision leaves it armed when it
is due no later than the decision's deadline; when the timer fires it either expires
the decision still waiting past its deadline or re-arms for that deadline. So a seat
touches the event loop's timer heap about once per deadline period, not per decision,
and a deadline still expires on time.

Expiry cancels the waiting task, as ``asyncio.timeout`` does, so it interrupts any await
(cancelling only the gRPC call would not wake a write still waiting for the call to
start); ``claim`` then tells the deadline's cancellation from anyone else's.
"""

from __future__ import annotations

import asyncio


class SeatDeadline:
    """The deadline of one seat's current decision."""

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._timer: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[object] | None = None
        self._due: float | None = None  # None while no decision waits
        self.expired = False
        """Whether the current (or last) decision ran out of time."""

    def start(self, timeout_s: float) -> None:
        """The current task begins a decision that must end within ``timeout_s``."""
        due = self._loop.time() + timeout_s
        self._due = due
        self._task = asyncio.current_task()
        self.expired = False
        timer = self._timer
        if timer is None or timer.when() > due:
            if timer is not None:
                timer.cancel()
            self._timer = self._loop.call_at(due, self._fire)

    def stop(self) -> None:
        """The decision ended; the timer stays armed for the next one."""
        self._due = None

    def claim(self) -> bool:
        """With a ``CancelledError`` in hand: True if this deadline caused it and nobody
        else wants the task cancelled too; the cancellation is then withdrawn."""
        if not self.expired or self._task is None:
            return False
        return self._task.uncancel() == 0

    def close(self) -> None:
        self._due = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _fire(self) -> None:
        self._timer = None
        due = self._due
        if due is None:
            return
        if self._loop.time() < due:  # armed for an earlier decision: wait on
            self._timer = self._loop.call_at(due, self._fire)
            return
        # An answer the event loop took in on this same turn is in time: its task is
        # already queued to run, so look again once it has.
        self._loop.call_soon(self._expire, due)

    def _expire(self, due: float) -> None:
        if self._due != due:  # that decision ended meanwhile
            return
        self._due = None
        self.expired = True
        if self._task is not None:
            self._task.cancel()
