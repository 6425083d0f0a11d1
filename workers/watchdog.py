"""The watchdog: hands back to the queue the deliveries no live worker holds
(``workers.deliveries``), steps every running tournament's scheduler (which finishes the
decided ones), and queues again any match handed out that is nowhere (no result, no live
lease, no message in the broker, not a second half the scheduler holds back until its
first half has ended: that one the scheduler queues), and says Hello to the entries
running ladders have suspended (``workers.watchdog_probes``), in a thread of its own,
and records the competitions' phases as the clock moves them (``workers.competitions``),
starting, stopping and freezing their finals (``workers.competition_final``).

Every worker runs it in a thread of its main process, so it runs while any worker does;
a Redis lock lets one of them act per round. A match must be found missing in two
rounds running before it is queued again: between a worker's pop of a message and its
note of it as unacknowledged, the message is briefly in neither place. A message left
unacknowledged long after kombu should have handed it back (its restore scan stalled,
say by a lock whose holder was killed) counts as nowhere too. A match queued twice
costs a referee's time, never a result (leases and HSETNX).
"""

from __future__ import annotations

import logging
import threading

import redis

from arena.store import BotRegistry, keys
from arena.store.tournaments import RUNNING
from workers import (
    broker,
    capacity,
    competition_final,
    competitions,
    deliveries,
    metrics,
    scheduler,
    watchdog_probes,
)
from workers.app import app
from workers.settings import current
from workers.stores import client, exclusive, leases, packages, tournaments
from workers.stores import competitions as competition_store

log = logging.getLogger(__name__)
settings = current()


class Watchdog:
    def __init__(self) -> None:
        self.missing: set[tuple[str, str]] = set()
        """What the last round found nowhere."""
        self.prober = watchdog_probes.Prober()

    def round(self) -> list[tuple[str, str]]:
        """One round, if no other worker's watchdog is in one; the matches queued again."""
        with exclusive(keys.watchdog(), settings.watchdog_interval_s * 3) as held:
            return self._round() if held else []

    def _round(self) -> list[tuple[str, str]]:
        held = {tag for worker in capacity.live(client()).values() for tag in worker.held}
        if stale := deliveries.stranded(client(), held, settings.watchdog_interval_s):
            deliveries.hand_back(stale)
            metrics.DELIVERIES_HANDED_BACK.inc(len(stale))
        try:
            competitions.advance(competition_store())
            competitions.ladders(competition_store(), tournaments())
            competition_final.finals(
                competition_store(), tournaments(), BotRegistry(client()), packages()
            )
        except Exception:  # never at the cost of the tournaments below
            log.exception("watchdog: advancing the competitions' phases failed")
        store = tournaments()
        unplayed: set[tuple[str, str]] = set()
        states = store.states()
        store.note_running(states)
        store.trim_cancelled()
        running = [i for i, state in states.items() if state == RUNNING]
        for tournament_id in running:
            scheduler.advance(tournament_id)
            left = store.unplayed_ids(tournament_id) - leases().live(tournament_id)
            left -= scheduler.held_back(store.get(tournament_id))
            unplayed |= {(tournament_id, m) for m in left}
        try:
            self.prober.round(store, running)
        except Exception:  # never at the cost of the lost matches below
            log.exception("watchdog: the ladders' Hello probes failed to start")
        if not unplayed:
            self.missing = set()
            store.note_stranded({}, running)
            return []
        lost = unplayed - broker.queued_matches(client(), stranded_after=settings.stranded_after_s)
        by_tournament: dict[str, set[str]] = {}
        for tournament_id, match_id in lost:
            by_tournament.setdefault(tournament_id, set()).add(match_id)
        store.note_stranded(by_tournament, running)
        again = sorted(lost & self.missing)
        self.missing = lost - set(again)
        for tournament_id, match_id in again:
            log.warning("watchdog: match %s of %s was lost; queued again", match_id, tournament_id)
            app.send_task(broker.PLAY_MATCH, args=[tournament_id, match_id])
            metrics.MATCHES_REQUEUED.inc()
        return again


def start(hostname: str, processes: int) -> threading.Thread:
    """Run rounds in a daemon thread for as long as the process lives, announcing this
    worker's ``processes`` (``workers.capacity``) first and in every round."""
    interval = settings.watchdog_interval_s
    capacity.announce(client(), hostname, processes, interval)  # before the ready line

    def run() -> None:
        watchdog = Watchdog()
        stop = threading.Event()
        while not stop.wait(interval):
            try:
                held = deliveries.held_here()
                capacity.announce(client(), hostname, processes, interval, held)
                watchdog.round()
            except redis.RedisError as error:  # Redis away: try next round
                log.warning("watchdog round skipped: %s", error)
            except Exception:  # never let the thread die
                log.exception("watchdog round failed")

    thread = threading.Thread(target=run, name="arena-watchdog", daemon=True)
    thread.start()
    return thread
