"""The scheduler: the only place that decides which matches a tournament plays, and the
one that hands each new match to the workers. The others queue again only matches it
has already handed out that have no result: a failed attempt retries itself
(``workers.tasks``), the watchdog (``workers.watchdog``) queues again a match that is
nowhere, and ``workers.dispatch`` queues those of a tournament the API resumes.

For each running tournament it keeps the format's state (``arena.tournament.formats``)
in the tournament's record, feeds the format every stored result once, in the order the
results were stored, and keeps at most a window of matches handed out without a result
(``ARENA_SCHEDULE_WINDOW``). So a tournament of 200,000 matches costs the broker and
Redis a window's worth of messages, not 200,000, and asking for the next match costs the
same at its end as at its start. Within that window the running tournaments share the
workers: each may have queued or playing an equal part of two matches per live worker
process (``fair_share``, ``workers.capacity``), so the queue is never long and a newcomer
is not stuck behind a big tournament's backlog, and a format that may decide while
matches are out (an SPRT) leaves little to play for nothing. Once the format is decided
and every match it handed out has a result, the scheduler rates the tournament and marks
it finished.

In ``sealed`` and ``trusted`` tournaments the second half of a duplicate pair is held
back (stored in the schedule, not queued) until its first half has ended: its result is
stored and no attempt at it still holds a lease (``arena.tournament.schedule.release``).
The held halves are kept in the scheduler's state, saved with the matches it hands out;
the step that sees a first half ended queues its second half, once. Held halves count
in the window, so a window holds about half as many playable matches.

A ladder's step also keeps its suspensions (``arena.tournament.formats.ladder_suspension``):
it counts each stored result against the entries' latest matches, suspends an entry whose
latest ones were all forfeited or faulted by it, and pairs it again once the watchdog's
Hello to it has answered (``workers.watchdog_probes``).

The rules of a step (the window, the fair share, held halves, a ladder's refits, when to
finish) are one pure function, ``workers.schedule_step.step``; this module reads what it
needs from Redis and does what it decides: stores the matches and the state, queues
``arena.play_match``, refits the ratings, finalises.

A step runs after each stored result (in the worker that stored it), when a tournament
is submitted or resumed (the ``arena.advance_tournament`` task), and in every watchdog
round (for a step lost with a worker that died). Steps of one tournament never overlap:
a caller that finds another stepping marks the tournament, and the holder steps again.
A step that dies after storing new matches and before queueing them leaves them to the
watchdog, which queues any match that is nowhere.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field

from arena.ratings.history import history_points
from arena.ratings.leaderboard import leaderboard, merged, ratings_by_game, tallies
from arena.store import BotRegistry, MatchResult, TournamentRecord, keys
from arena.store.competitions import RedisRoster
from arena.store.suspensions import LadderProbes
from arena.store.tournaments import FINISHED, RUNNING
from arena.tournament import formats
from arena.tournament.digest import results_digest, stored_line
from arena.tournament.formats import ladder_suspension
from arena.tournament.spec import TournamentPlan
from workers import capacity, failpoints, schedule_step
from workers.app import app
from workers.broker import PLAY_MATCH
from workers.dispatch import ADVANCE
from workers.schedule_step import HELD
from workers.settings import current
from workers.stores import (
    client,
    exclusive,
    history,
    leases,
    packages,
    tournaments,
)

log = logging.getLogger(__name__)
settings = current()

READ_BATCH = 1000
"""Results read from Redis at a time when catching up."""
FORMATS_KEPT = 64
"""Tournaments whose format a process keeps built, the most recently stepped."""


def advance(tournament_id: str) -> None:
    """Step the tournament until no one has asked for another step."""
    redis = client()
    asked = keys.step(tournament_id)
    redis.set(asked, 1)
    while redis.exists(asked):
        with exclusive(keys.scheduling(tournament_id), settings.match_lease_s) as held:
            if not held:
                return  # the holder sees the mark and steps again
            while redis.delete(asked):
                _step(tournament_id)


@app.task(name=ADVANCE)
def advance_tournament(tournament_id: str) -> None:
    advance(tournament_id)


@dataclass(frozen=True)
class _Planned:
    """A tournament as its format depends on it: named by its id alone, since its spec
    never changes."""

    tournament_id: str
    spec: TournamentPlan = field(compare=False)


@functools.lru_cache(maxsize=FORMATS_KEPT)
def _built(planned: _Planned) -> formats.Format:
    return formats.build(planned.tournament_id, planned.spec)


def _format(tournament_id: str, spec: TournamentPlan) -> formats.Format:
    """Built once per process and tournament (``FORMATS_KEPT`` at most): a spec never
    changes."""
    return _built(_Planned(tournament_id, spec))


def _open_lineup(tournament_id: str, spec: TournamentPlan) -> formats.Format:
    """A format with an open lineup (a ladder) with its lineup as it stands: new bots and
    versions join, removed ones leave; how to seat each entry is kept for the workers."""
    lineup = formats.get(spec.format).lineup
    entries = lineup(spec, BotRegistry(client()).all(), packages().version, RedisRoster(client()))
    tournaments().set_lineup(tournament_id, entries)
    games = {e.label: e.games for e in entries}
    return formats.build(tournament_id, spec, games, {e.label: e.author for e in entries})


def _step(tournament_id: str) -> None:
    """Read what the step needs, let ``schedule_step.step`` decide, and do it."""
    store = tournaments()
    record = store.get(tournament_id)
    if record is None or record.state != RUNNING:
        return  # cancelled: nothing more is handed out
    tournament = schedule_step.Tournament(
        tournament_id, record.scheduler, issued=record.issued, done=record.done
    )
    if record.scheduler is None and record.issued:
        # Scheduled whole at submission, before formats: no format, no results to feed.
        nothing = schedule_step.Capacity(settings.schedule_window, processes=0, running=0)
        actions = schedule_step.step(
            tournament, None, (), nothing, _ladder(), time.time, _Lookups(tournament_id)
        )
    else:
        if formats.get(record.spec.format).open_lineup:
            fmt = _open_lineup(tournament_id, record.spec)
        else:
            fmt = _format(tournament_id, record.spec)
        cursor = record.scheduler["cursor"] if record.scheduler else 0
        actions = schedule_step.step(
            tournament,
            fmt,
            _results(tournament_id, cursor),
            _capacity(store.running_count()),
            _ladder(),
            time.time,
            _Lookups(tournament_id),
        )
    _apply(tournament_id, actions)


def _results(tournament_id: str, cursor: int) -> Iterator[list[MatchResult]]:
    """The results stored from ``cursor`` on, ``READ_BATCH`` at a time, read as the step
    asks for them."""
    store = tournaments()
    while batch := store.finished_since(tournament_id, cursor, READ_BATCH):
        yield batch
        cursor += len(batch)


def _capacity(running: int) -> schedule_step.Capacity:
    """The window, and the live worker processes shared by ``running`` tournaments."""
    processes = capacity.live_processes(client())
    return schedule_step.Capacity(settings.schedule_window, processes, running)


def _ladder() -> schedule_step.Ladder:
    return schedule_step.Ladder(settings.ladder_ratings_every, suspension_rules())


class _Lookups:
    """What the step asks midway, answered from Redis."""

    def __init__(self, tournament_id: str) -> None:
        self.tournament_id = tournament_id

    def answered(self, suspended: Mapping[str, int]) -> Collection[str]:
        return LadderProbes(client()).answered(self.tournament_id, dict(suspended))

    def ended(self, firsts: set[str]) -> Collection[str]:
        return ended(self.tournament_id, firsts)


def _apply(tournament_id: str, actions: schedule_step.Actions) -> None:
    """Do what the step decided: refit, store, queue, finalise."""
    for entry, reason in actions.suspended:
        log.warning("ladder %s suspends %s: %s", tournament_id, entry, reason)
    if actions.resumed:
        log.warning(
            "ladder %s pairs %s again: Hello answered", tournament_id, list(actions.resumed)
        )
    if actions.refit is not None:
        _refit_arena_ratings(actions.refit)
    if actions.state is not None:
        tournaments().issue(tournament_id, actions.state, list(actions.new))
    if actions.queue:
        with app.producer_or_acquire() as producer:  # one connection for the window
            for match_id in actions.queue:
                app.send_task(PLAY_MATCH, args=[tournament_id, match_id], producer=producer)
    if actions.finish and finalize(tournament_id):
        log.info("tournament %s finished", tournament_id)


def suspension_rules() -> ladder_suspension.Rules:
    """A ladder's suspension thresholds, as the workers' settings have them."""
    return ladder_suspension.Rules(
        suspend_after=settings.ladder_suspend_after,
        first_hold_s=settings.ladder_probe_hold_s,
        probe_every_s=settings.ladder_probe_every_s,
    )


def fair_share(running: int) -> int:
    """The matches one of ``running`` tournaments may have queued or playing: an equal
    part of ``PER_PROCESS`` per live worker process. The queue then never holds more than
    about one match per process beyond those playing, so a tournament submitted behind a
    big one, or beside a ladder that never ends, waits only for the matches already out
    (about one round of the others' matches) and then gets its part of the workers."""
    return schedule_step.fair_share(running, capacity.live_processes(client()))


def ended(tournament_id: str, matches: set[str]) -> set[str]:
    """Those of ``matches`` that have ended: a result is stored and no attempt holds a
    lease (a copy whose lease had lapsed, say its worker was stopped, may still be
    playing one; it takes the lease again when it renews it). What a duplicate pair's
    second half waits for."""
    if not matches:
        return set()
    return tournaments().with_results(tournament_id, matches) - leases().live(tournament_id)


def held_back(record: TournamentRecord | None) -> set[str]:
    """The second halves the scheduler holds back until their first half has ended:
    neither lost (for the watchdog) nor to be queued again (on resume)."""
    if record is None or record.scheduler is None:
        return set()
    return set(record.scheduler.get(HELD, {}))


def finalize(tournament_id: str) -> bool:
    """Rate a decided tournament whose every match handed out has a result, and mark it
    finished; True if this call finished it. Called under the tournament's scheduling
    lock; a worker killed in here lets the lock lapse, and the watchdog steps again."""
    store = tournaments()
    record = store.get(tournament_id)
    if record is None or record.state != RUNNING or record.done < record.issued:
        return False
    failpoints.reach(failpoints.FINALIZE)
    results = store.results(tournament_id)
    records = store.match_logs(tournament_id, [r.match_id for r in results])
    lines = map(stored_line, results, records)
    store.save_results_digest(tournament_id, results_digest(lines))
    store.save_leaderboard(tournament_id, leaderboard(results).to_json())
    store.save_tallies(tournament_id, tallies(results))  # what the arena's refits read
    # First: whoever sees the tournament finished sees it rated.
    _refit_arena_ratings(f"tournament {tournament_id} finished")
    return store.finish(tournament_id)


def _refit_arena_ratings(event: str) -> None:
    """The arena-wide boards (metrics, knockout seeding) from every stored result, and a
    point of every bot's rating history for each board, marked with the ``event`` that
    caused the refit. A refit that dies between the two leaves the boards saved and
    that point missing; the next refit records the ratings as they then are.

    A finished tournament counts through its tallies (its pairings' counts, kept when
    it finished, or now for one finished before they were kept), summed once into a
    kept total, so a refit costs what the arena's pairings do and not what its history
    does; unfinished ones (running, cancelled, a ladder) count through their results."""
    store = tournaments()
    as_of = time.time()  # before reading: the points are the ratings as of then
    states, tallied = store.states(), store.tallied()
    for tournament_id, state in states.items():
        if state == FINISHED and tournament_id not in tallied:
            store.save_tallies(tournament_id, tallies(store.results(tournament_id)))
            tallied.add(tournament_id)
    summed, total = store.tally_sum()
    if new := (tallied & states.keys()) - summed:
        total = merged([total, *store.tallies(sorted(new))])
        summed |= new
        store.save_tally_sum(summed, total)
    raw = [r for t in states if t not in summed for r in store.results(t)]
    boards = ratings_by_game(raw, [total])
    store.save_ratings({game: board.to_json() for game, board in boards.items()})
    history().record(event, history_points(boards, as_of, event))
