"""The scheduler: the only place that hands matches to the workers.

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

A step runs after each stored result (in the worker that stored it), when a tournament
is submitted or resumed (the ``arena.advance_tournament`` task), and in every watchdog
round (for a step lost with a worker that died). Steps of one tournament never overlap:
a caller that finds another stepping marks the tournament, and the holder steps again.
A step that dies after storing new matches and before queueing them leaves them to the
watchdog, which queues any match that is nowhere.
"""

from __future__ import annotations

import logging
import math
import time

from arena.ratings.history import history_points
from arena.ratings.leaderboard import (
    duplicate_result,
    leaderboard,
    merged,
    ratings_by_game,
    tallies,
)
from arena.store import BotRegistry, MatchResult, TournamentRecord
from arena.store.suspensions import LadderProbes
from arena.store.tournaments import FINISHED, RUNNING
from arena.tournament import formats
from arena.tournament.digest import results_digest, stored_line
from arena.tournament.formats import ladder_suspension
from arena.tournament.formats.ladder import Ladder
from arena.tournament.schedule import ScheduledMatch, release
from arena.tournament.spec import LADDER, TournamentPlan, ladder_lineup
from workers import capacity, failpoints
from workers.app import app, settings
from workers.broker import PLAY_MATCH
from workers.stores import client, exclusive, history, leases, packages, tournaments

log = logging.getLogger(__name__)

READ_BATCH = 1000
"""Results read from Redis at a time when catching up."""
PER_PROCESS = 2
"""Matches queued or playing per live worker process, every running tournament's
together: one playing, one waiting, so no process idles between results."""
MIN_SHARE = 2
"""What a tournament may have out however many share the workers (or before any worker
has announced itself)."""
HELD = "held"
"""The scheduler state's second halves held back: match id -> its first half's id."""
_built: dict[str, formats.Format] = {}


def advance(tournament_id: str) -> None:
    """Step the tournament until no one has asked for another step."""
    redis = client()
    asked = f"arena:t:{tournament_id}:step"
    redis.set(asked, 1)
    while redis.exists(asked):
        with exclusive(f"arena:t:{tournament_id}:scheduling", settings.match_lease_s) as held:
            if not held:
                return  # the holder sees the mark and steps again
            while redis.delete(asked):
                _step(tournament_id)


@app.task(name="arena.advance_tournament")
def advance_tournament(tournament_id: str) -> None:
    advance(tournament_id)


def _format(tournament_id: str, spec: TournamentPlan) -> formats.Format:
    """Built once per process and tournament: a spec never changes."""
    if tournament_id not in _built:
        if len(_built) >= 64:
            _built.clear()
        _built[tournament_id] = formats.build(tournament_id, spec)
    return _built[tournament_id]


def _ladder(tournament_id: str, spec: TournamentPlan) -> formats.Format:
    """A ladder with its lineup as it stands: new bots and versions join, removed ones
    leave; how to seat each entry is kept for the workers."""
    entries = ladder_lineup(spec, BotRegistry(client()).all(), packages().version)
    tournaments().set_lineup(tournament_id, entries)
    return formats.build(tournament_id, spec, {e.label: e.games for e in entries})


def _step(tournament_id: str) -> None:
    store = tournaments()
    record = store.get(tournament_id)
    if record is None or record.state != RUNNING:
        return  # cancelled: nothing more is handed out
    if record.scheduler is None and record.issued:
        # Scheduled whole at submission, before formats: nothing more to hand out.
        decided, issued = True, record.issued
    else:
        if record.spec.format == LADDER:
            fmt = _ladder(tournament_id, record.spec)
        else:
            fmt = _format(tournament_id, record.spec)
        state = record.scheduler or {"cursor": 0, "format": fmt.start()}
        cursor, format_state = state["cursor"], state["format"]
        while batch := store.finished_since(tournament_id, cursor, READ_BATCH):
            played = [formats.Played(r.match_id, duplicate_result(r)) for r in batch]
            format_state = fmt.absorb(format_state, played)
            if isinstance(fmt, Ladder):
                format_state = _suspend(tournament_id, fmt, format_state, batch)
            cursor += len(batch)
        if isinstance(fmt, Ladder):
            format_state = _resume(tournament_id, fmt, format_state)
        every = settings.ladder_ratings_every
        if record.spec.format == LADDER and cursor // every > state["cursor"] // every:
            # A ladder never finishes; its results count as they come.
            _refit_arena_ratings(f"ladder {tournament_id} at {cursor} results")
        out = record.issued - record.done
        # Held second halves are not queued; a format that decides early counts them,
        # so a decision leaves at most its share to play for nothing.
        in_flight = out if fmt.decides_early else out - len(state.get(HELD, {}))
        room = min(settings.schedule_window - out, fair_share(store.running_count()) - in_flight)
        new: list[ScheduledMatch] = []
        if room > 0:
            format_state, new = fmt.next(format_state, room)
        # Only a pair's two halves wait for each other: the first halves of every pair
        # in the window are queued at once, so many pairs still keep every worker busy.
        held: dict[str, str] = state.get(HELD, {})
        queue, held = release(held, new, _ended(tournament_id, held, new))
        updated = {"cursor": cursor, "format": format_state}
        if held:
            updated[HELD] = held
        if new or updated != state or record.scheduler is None:
            store.issue(tournament_id, updated, new)
        with app.producer_or_acquire() as producer:  # one connection for the window
            for match_id in queue:
                app.send_task(PLAY_MATCH, args=[tournament_id, match_id], producer=producer)
        decided, issued = fmt.decided(format_state), record.issued + len(new)
    if decided and record.done >= issued and finalize(tournament_id):
        log.info("tournament %s finished", tournament_id)


def suspension_rules() -> ladder_suspension.Rules:
    """A ladder's suspension thresholds, as the workers' settings have them."""
    return ladder_suspension.Rules(
        suspend_after=settings.ladder_suspend_after,
        first_hold_s=settings.ladder_probe_hold_s,
        probe_every_s=settings.ladder_probe_every_s,
    )


def _suspend(
    tournament_id: str, fmt: Ladder, state: formats.State, batch: list[MatchResult]
) -> formats.State:
    """The ladder's state once ``batch`` counts against its entries' latest matches."""
    before = set(ladder_suspension.suspended(state))
    conducts = [ladder_suspension.conduct(r) for r in batch]
    state = ladder_suspension.note(
        state, conducts, fmt.unit_number, suspension_rules(), time.time()
    )
    for entry, held in ladder_suspension.suspended(state).items():
        if entry not in before:
            log.warning("ladder %s suspends %s: %s", tournament_id, entry, held["reason"])
    return state


def _resume(tournament_id: str, fmt: Ladder, state: formats.State) -> formats.State:
    """The ladder's state without the suspensions of entries that left it, and with
    those whose Hello answered the watchdog resumed."""
    state = ladder_suspension.keep_only(state, set(fmt.field.entries))
    held = ladder_suspension.suspended(state)
    if not held:
        return state
    current = {entry: int(h["times"]) for entry, h in held.items()}
    if answered := LadderProbes(client()).answered(tournament_id, current):
        log.warning("ladder %s pairs %s again: Hello answered", tournament_id, sorted(answered))
        state = ladder_suspension.resume(state, answered, int(state["units"]))
    return state


def fair_share(running: int) -> int:
    """The matches one of ``running`` tournaments may have queued or playing: an equal
    part of ``PER_PROCESS`` per live worker process. The queue then never holds more than
    about one match per process beyond those playing, so a tournament submitted behind a
    big one, or beside a ladder that never ends, waits only for the matches already out
    (about one round of the others' matches) and then gets its part of the workers."""
    processes = capacity.live_processes(client())
    return max(MIN_SHARE, math.ceil(PER_PROCESS * processes / max(1, running)))


def _ended(tournament_id: str, held: dict[str, str], new: list[ScheduledMatch]) -> set[str]:
    """The first halves, of the held and the new second halves, that have ended."""
    firsts = set(held.values()) | {m.first_half for m in new if m.first_half is not None}
    return ended(tournament_id, firsts)


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
