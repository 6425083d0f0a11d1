"""Competitions' phases, advanced by the clock in every watchdog round
(``workers.watchdog``).

For each competition that has not ended, the phases its timeline says are due after the
stored one (``arena.competition.phases.due``) are recorded in order, each by a script
that moves the stored phase only from the one this round read
(``arena.store.competitions``): a second watchdog acting at the same moment (its lock
lapsed, say) finds the phase moved and records nothing, so each transition is recorded
once, with when it was due and when it was recorded. A cancelled competition is ended:
it never advances. Watchdog rounds are seconds apart, so a phase is recorded within a
round of being due; the API reads the clock too where it matters (who may join).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from arena.competition.phases import ENDED, due
from arena.store.competitions import CompetitionStore, Transition

log = logging.getLogger(__name__)


def advance(
    store: CompetitionStore, clock: Callable[[], float] = time.time
) -> list[tuple[str, str]]:
    """Record every transition now due; (competition, phase) for each this call recorded."""
    recorded: list[tuple[str, str]] = []
    for name in store.names():
        record = store.get(name)
        if record is None or record.phase in ENDED:
            continue
        stored = record.phase
        for phase, due_at in due(record.spec.timeline, stored, clock()):
            if not store.advance(name, stored, Transition(phase, due_at, clock())):
                break  # another worker moved it (or the operator cancelled it) meanwhile
            log.info("competition %s is %s", name, phase)
            recorded.append((name, phase))
            stored = phase
    return recorded
