"""The daily submission limit of a competition's authors: a rolling window of 24 hours.

A competitor's SubmitBot counts the versions they submitted in the 24 hours before now
(UTC, rolling: not per calendar day, so no burst at midnight) against the competition's
``daily_submissions``. The store checks the count and records the new submission in one
transaction (``arena.store.bots.BotRegistry.publish``), so two submissions racing for
the last slot cannot both win; a refusal stores nothing and says when the next is
allowed: when the oldest submission in the window turns a day old.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

WINDOW_S = 86400.0
"""The window the limit counts over: a day, rolling."""


@dataclass(frozen=True)
class DailyLimit:
    """What one submission is held to: ``limit`` versions in the day before ``now``."""

    competition: str
    limit: int
    now: float

    @property
    def since(self) -> float:
        """Where the window starts: submissions at or after it count."""
        return self.now - WINDOW_S

    def next_allowed(self, times: Sequence[float]) -> float | None:
        """When the next submission is allowed, given the times of those in the window;
        None: now."""
        counted = sorted(t for t in times if t >= self.since)
        if len(counted) < self.limit:
            return None
        return counted[len(counted) - self.limit] + WINDOW_S

    def refusal(self, author: str, times: Sequence[float]) -> str | None:
        """Why ``author`` may not submit now, or None."""
        when = self.next_allowed(times)
        if when is None:
            return None
        return (
            f"daily submission limit reached: competition {self.competition!r} allows "
            f"{self.limit} {'version' if self.limit == 1 else 'versions'} per author in any 24 "
            f"hours (rolling, UTC), and author {author!r} submitted "
            f"{sum(t >= self.since for t in times)} since {utc(self.since)}; the next is "
            f"allowed at {utc(when)}"
        )


def utc(when: float) -> str:
    """A time as the refusal shows it: ``2027-03-01T12:00:00Z``."""
    return datetime.fromtimestamp(when, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
