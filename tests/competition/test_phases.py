"""The phase a competition's timeline gives, over a fake clock: a pure function."""

from __future__ import annotations

import pytest

from arena.competition.phases import (
    CANCELLED,
    CLOSED,
    FINAL,
    FINISHED,
    OPEN,
    SCHEDULED,
    Timeline,
    due,
    phase_at,
)

TIMELINE = Timeline(opens_at=100.0, submissions_close_at=200.0, final_ends_at=300.0)


@pytest.mark.parametrize(
    ("now", "phase"),
    [
        (0.0, SCHEDULED),
        (99.999, SCHEDULED),
        (100.0, OPEN),
        (199.0, OPEN),
        (200.0, FINAL),  # passes through closed as the final begins
        (299.999, FINAL),
        (300.0, FINISHED),
        (10_000.0, FINISHED),
    ],
)
def test_the_phase_follows_the_clock(now: float, phase: str) -> None:
    assert phase_at(TIMELINE, now) == phase


def test_what_is_due_is_every_phase_passed_in_order_with_when_it_was_due() -> None:
    assert due(TIMELINE, SCHEDULED, 50.0) == []
    assert due(TIMELINE, SCHEDULED, 150.0) == [(OPEN, 100.0)]
    assert due(TIMELINE, OPEN, 250.0) == [(CLOSED, 200.0), (FINAL, 200.0)]
    # A clock that jumped past the whole season (every worker down): each phase, once.
    assert due(TIMELINE, SCHEDULED, 400.0) == [
        (OPEN, 100.0),
        (CLOSED, 200.0),
        (FINAL, 200.0),
        (FINISHED, 300.0),
    ]
    assert due(TIMELINE, FINAL, 299.0) == []


def test_an_ended_competition_never_advances() -> None:
    assert due(TIMELINE, CANCELLED, 400.0) == []
    assert due(TIMELINE, FINISHED, 400.0) == []


def test_a_clock_that_goes_back_records_nothing_backwards() -> None:
    assert due(TIMELINE, FINAL, 150.0) == []
