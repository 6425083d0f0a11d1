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

The open phase's ladder (``arena.competition.ladder``) follows the recorded phase:
``ladders`` starts it once the competition is open, records its id on the competition
(``ladder``, set once) and stores the tournament under that id if it is not stored yet
(only if: two rounds at once store one, with one secret seed), so a worker that dies
between the two leaves the next round to finish the job; the same
round's scheduler steps then hand out its first units. Once the competition is past
open (closed, final, finished or cancelled) the ladder is cancelled, the only end a
format that never decides has: its results stay, and so does its board.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from arena.competition.ladder import ladder_id, ladder_plan
from arena.competition.phases import ENDED, OPEN, SCHEDULED, due
from arena.store.competitions import CompetitionStore, Transition
from arena.store.tournaments import CANCELLED, RUNNING, TournamentStore

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


def ladders(store: CompetitionStore, tournaments: TournamentStore) -> list[tuple[str, str]]:
    """Start the ladder of each open competition that has none, and cancel the running
    ladder of each past open; (competition, "started" or "stopped") for each."""
    done: list[tuple[str, str]] = []
    for name in store.names():
        record = store.get(name)
        if record is None:
            continue
        if record.phase == OPEN:
            tournament_id = record.ladder or store.set_ladder(
                name, ladder_id(record.spec, record.created_at)
            )
            if tournaments.get(tournament_id) is None:
                plan = ladder_plan(record.spec)
                games = sorted(plan.played_games())
                if tournaments.create(tournament_id, plan, games, only_new=True):
                    log.info("competition %s: ladder %s started", name, tournament_id)
                    done.append((name, "started"))
        elif record.phase != SCHEDULED and record.ladder:
            ladder = tournaments.get(record.ladder)
            if ladder is not None and ladder.state == RUNNING:
                tournaments.set_state(record.ladder, CANCELLED)
                log.info("competition %s is %s: ladder %s stopped", name, record.phase, ladder.id)
                done.append((name, "stopped"))
    return done
