"""A competition's phases, as a pure function of its timeline and the clock.

``scheduled → open → closed → final → finished``, plus ``cancelled`` (the operator's,
at any time before finished; a cancelled competition never advances). The workers
compare the phase the clock gives with the one stored and record each phase passed
through, in order (``workers.competitions``); nothing here reads the clock itself, so
every rule is tested with a fake one.

The final begins as submissions close: the competition passes through ``closed`` into
``final`` at once, and the workers then pick each author's final version and start the
final round robin (``workers.competition_final``). ``finished`` comes at
``final_ends_at`` by the clock, or earlier, recorded by the workers, when the final's
round robin has finished and its board is frozen.
"""

from __future__ import annotations

from dataclasses import dataclass

SCHEDULED = "scheduled"
OPEN = "open"
CLOSED = "closed"
FINAL = "final"
FINISHED = "finished"
CANCELLED = "cancelled"
ORDER = (SCHEDULED, OPEN, CLOSED, FINAL, FINISHED)
"""The clock's phases, in the order a competition passes through them."""
PHASES = (*ORDER, CANCELLED)
ENDED = frozenset({FINISHED, CANCELLED})
"""Phases a competition never leaves."""
JOINABLE = frozenset({SCHEDULED, OPEN})
"""Phases in which authors may join (and invites be issued)."""


@dataclass(frozen=True)
class Timeline:
    """When each phase begins, in seconds since the epoch (UTC)."""

    opens_at: float
    submissions_close_at: float
    final_ends_at: float

    def starts(self) -> tuple[tuple[str, float], ...]:
        """Each phase after ``scheduled`` and when it begins, in order."""
        close = self.submissions_close_at
        return (
            (OPEN, self.opens_at),
            (CLOSED, close),
            (FINAL, close),
            (FINISHED, self.final_ends_at),
        )


def phase_at(timeline: Timeline, now: float) -> str:
    """The phase the clock gives at ``now`` (never ``closed``, which the competition
    passes through as the final begins, nor ``cancelled``, which is the operator's)."""
    phase = SCHEDULED
    for name, start in timeline.starts():
        if now >= start:
            phase = name
    return phase


def due(timeline: Timeline, stored: str, now: float) -> list[tuple[str, float]]:
    """The phases to record after ``stored``, in order, with when each was due: none
    for an ended competition, or one the clock has not moved past."""
    if stored in ENDED or stored not in ORDER:
        return []
    after = ORDER.index(stored)
    return [
        (name, start)
        for name, start in timeline.starts()
        if ORDER.index(name) > after and now >= start
    ]


SUBMITTING = frozenset({SCHEDULED, OPEN})
"""Phases in which a competitor may submit versions (counted against the daily limit)."""


def current(stored: str, timeline: Timeline, now: float) -> str:
    """The phase as stored, or the clock's if that is further on: the workers record a
    phase within a watchdog round of it, and a deadline must hold to the second."""
    if stored in ENDED or stored not in ORDER:
        return stored
    return max(stored, phase_at(timeline, now), key=ORDER.index)
