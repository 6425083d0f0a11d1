"""The Celery task that plays one scheduled match through a referee.

``play_match`` may run more than once for the same match (a redelivered message, a
retry, the watchdog's re-queue): the match's lease (``arena.store.leases``) lets one
copy play at a time, and the result is stored with HSETNX, so only the first counts.
A failed attempt is tried again, on another referee, for as long as the tournament is
running: a tournament waits out a referee outage however long, and says why it waits.
The second half of a duplicate pair does not start while its first half has not ended
(``_waits_for``), however its message came (a resume, the watchdog, a redelivery).
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

import grpc
import redis
from celery import Task

from arena import wire
from arena.games import get_game
from arena.match_rules.faults import KIND_NAMES
from arena.replay.match_log import encode
from arena.replay.verify import end_name
from arena.store import TournamentRecord, TournamentStore
from arena.store.bot_logs import SeatOutput, clip
from arena.store.live import LiveAttempt
from arena.store.results import MatchResult
from arena.store.tournaments import RUNNING
from arena.tournament import formats
from arena.tournament.fair_play import disclosure
from arena.tournament.schedule import ScheduledMatch
from arena.tournament.spec import Entry
from arena.v1 import referee_pb2, referee_pb2_grpc
from workers import metrics, referees, scheduler
from workers.app import app
from workers.broker import PLAY_MATCH
from workers.settings import current
from workers.stores import leases, live, logs, referee_load
from workers.stores import tournaments as store

log = logging.getLogger(__name__)
settings = current()


CHARGE_CUT_OFF_AFTER = 3
"""Failed attempts after which a referee charges the bots even for faults made while it
had lost them all (``FaultPolicy.charge_cut_off``)."""


def pick_referee(tournament_id: str, match_id: str) -> str:
    """The referee with the fewest matches in flight, as every worker counts them
    (``arena.store.referee_load``), avoiding those this match failed on; the match is
    counted there until released, or until its lease lapses."""
    return referee_load().claim(settings.referees, tournament_id, match_id, settings.match_lease_s)


def backoff_s(attempt: int) -> float:
    return float(min(0.5 * 2**attempt, settings.retry_cap_s))


def _play(
    referee: str, request: referee_pb2.PlayMatchRequest, lease: Lease
) -> referee_pb2.MatchResult:
    """Play ``request`` on ``referee``. A hosted entry's package is uploaded only when
    the referee says it has not got it, one a call, so each referee receives each
    package once (``workers.referees.with_packages``)."""
    with referees.channel(referee) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)

        def play() -> referee_pb2.MatchResult:
            # Stale once the lease may have lapsed: another worker may have played it since.
            request.start_by.CopyFrom(wire.timestamp(lease.until))
            result: referee_pb2.MatchResult = stub.PlayMatch(request, metadata=referees.metadata())
            return result

        return referees.with_packages(play, stub, len(request.hosted))


@dataclass
class Lease:
    """Until when this worker holds its lease on a match, as far as it knows."""

    until: float


@contextmanager
def _heartbeat(
    tournament_id: str, match_id: str, holder: str, referee: str, lease: Lease
) -> Iterator[None]:
    """Renew the match's lease, and its count on ``referee``, while the block runs."""
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(settings.match_lease_s / 3):
            try:
                now = time.time()
                if leases().claim(tournament_id, match_id, holder, settings.match_lease_s):
                    lease.until = now + settings.match_lease_s
                referee_load().renew(referee, tournament_id, match_id, settings.match_lease_s)
            except redis.RedisError as error:  # the lease may lapse; the result still counts once
                log.warning("cannot renew the lease of %s: %s", match_id, error)

    thread = threading.Thread(target=beat, name=f"lease-{match_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


@contextmanager
def _watchable(
    tournament_id: str, match: ScheduledMatch, referee: str, watch_id: str
) -> Iterator[None]:
    """Note where the attempt is played while the block runs, for ``ListLiveMatches``
    (watchers follow it on the referee). A note that cannot be written costs only that."""
    attempt = LiveAttempt(
        match.match_id,
        match.game,
        tuple(match.entries),
        referee,
        watch_id,
        time.time(),
        match.paired,
    )
    try:
        live().start(tournament_id, attempt)
    except redis.RedisError as error:
        log.warning("cannot note %s as live: %s", match.match_id, error)
    try:
        yield
    finally:
        try:
            live().end(tournament_id, match.match_id, watch_id)
        except redis.RedisError as error:  # its lease lapses; readers then drop it
            log.warning("cannot note the end of %s: %s", match.match_id, error)


def _to_play(
    tournaments: TournamentStore, tournament_id: str, match_id: str
) -> tuple[TournamentRecord, ScheduledMatch] | str:
    """The tournament and the scheduled match, or why the task has nothing to do."""
    record = tournaments.get(tournament_id)
    if record is None or record.state != RUNNING:
        return "tournament not running"
    if tournaments.has_result(tournament_id, match_id):
        return "already played"
    match = tournaments.scheduled(tournament_id, match_id)
    if match is None:
        return "not in the schedule"
    return record, match


def _waits_for(tournament_id: str, match: ScheduledMatch) -> str | None:
    """Why the match may not start yet, or None: a duplicate pair's second half waits
    until its first half has ended (``scheduler.ended``)."""
    first = match.first_half
    if first is None or first in scheduler.ended(tournament_id, {first}):
        return None
    return f"its first half {first} has not ended"


def _seating(record: TournamentRecord) -> dict[str, Entry]:
    """How to seat each entry: fixed in the spec, or for a format whose entries come and
    go (a ladder's), as the scheduler last saw them."""
    lineup = dict(record.spec.lineup)
    if formats.get(record.spec.format).open_lineup:
        lineup.update(store().lineup(record.id))
    return lineup


def _request(
    record: TournamentRecord, match: ScheduledMatch, lineup: Mapping[str, Entry]
) -> referee_pb2.PlayMatchRequest:
    spec = record.spec
    seated = [lineup.get(e) for e in match.entries]
    return referee_pb2.PlayMatchRequest(
        game=match.game,
        bots=["" if e is None else e.address for e in seated],
        hosted={
            i: referee_pb2.HostedBot(
                package_sha256=e.hosted.sha256, runtime=e.hosted.runtime, command=e.hosted.command
            )
            for i, e in enumerate(seated)
            if e is not None and e.hosted is not None
        },
        bot_names=list(match.entries),
        seed=match.seed,
        options=dict(match.options),
        move_deadline=wire.duration(spec.move_deadline_ms / 1000),
        time_bank=wire.duration(spec.time_bank_ms / 1000) if spec.time_bank_ms else None,
        fault_policy=referee_pb2.FaultPolicy(max_faults=spec.max_faults),
        # Each attempt has its own referee match id, so attempts never collide; it starts
        # with the public id, as the open WatchMatch and the referee's metrics show it.
        match_id=f"{spec.seed.public_id(match.match_id)}-{uuid.uuid4().hex[:8]}",
        disclosure=disclosure(spec.fair_play),
        broadcast_delay=(
            wire.duration(spec.broadcast_delay_ms / 1000) if spec.broadcast_delay_ms else None
        ),
    )


@app.task(bind=True, max_retries=None, name=PLAY_MATCH)
def play_match(self: Task, tournament_id: str, match_id: str) -> dict[str, Any]:
    tournaments = store()
    found = _to_play(tournaments, tournament_id, match_id)
    if isinstance(found, str):
        return {"match_id": match_id, "skipped": found}
    record, match = found
    if (waiting := _waits_for(tournament_id, match)) is not None:
        if match_id in scheduler.held_back(record):
            # The scheduler queues it once its first half has ended.
            return {"match_id": match_id, "skipped": f"held back: {waiting}"}
        # Queued already (a tournament scheduled before halves were held back, or a
        # stalled attempt at the first half came back): look again later.
        raise self.retry(countdown=settings.match_lease_s)
    holder = uuid.uuid4().hex
    lease = Lease(time.time() + settings.match_lease_s)
    if not leases().claim(tournament_id, match_id, holder, settings.match_lease_s):
        # Another copy is playing it. Look again once its lease could have lapsed: if
        # that worker dies, this copy plays the match.
        raise self.retry(countdown=settings.match_lease_s) from None
    attempt = leases().next_try(tournament_id, match_id)
    referee = pick_referee(tournament_id, match_id)
    lineup = _seating(record)
    request = _request(record, match, lineup)
    # A referee that lost every bot at once abandons the match (its network, most
    # likely); after a few failed attempts, bots that are all down must forfeit at last.
    request.fault_policy.charge_cut_off = attempt >= CHARGE_CUT_OFF_AFTER
    started_at, started = time.time(), time.monotonic()
    # Watchable until its result is stored: a watcher then finds the result instead.
    with _watchable(tournament_id, match, referee, request.match_id):
        try:
            with _heartbeat(tournament_id, match_id, holder, referee, lease):
                result = _play(referee, request, lease)
        except (grpc.RpcError, grpc.FutureTimeoutError) as error:
            referee_load().failed(referee, tournament_id, match_id)
            leases().release(tournament_id, match_id, holder)
            reason = referees.reason(referee, error)
            log.warning("match %s attempt %d failed: %s", match_id, attempt, reason)
            leases().failed(tournament_id, match_id, reason, attempt + 1)
            metrics.MATCHES_RETRIED.labels(match.game).inc()
            raise self.retry(countdown=backoff_s(attempt), exc=error) from None
        referee_load().release(referee, tournament_id, match_id)
        end = end_name(result.end)
        metrics.MATCHES_PLAYED.labels(match.game, end).inc()
        metrics.MATCH_SECONDS.labels(match.game).observe(time.monotonic() - started)
        outcome = _outcome(record, match, result, referee, end, started_at)
        # Both for reads: caveats on partners who shared a process, and pairs never rated.
        outcome = replace(
            outcome,
            shared_partners=_shared_partners(match, request),
            same_author=record.spec.same_author(match.entries, lineup),
        )
        stored = tournaments.record_result(tournament_id, outcome, encode(result.log))
    if stored:  # the logs of the attempt whose result counts, and only those
        logs().put(tournament_id, match_id, _seat_outputs(match, result))
    leases().release(tournament_id, match_id, holder)
    if stored or (match.paired and match.first_half is None):
        # The format may have been waiting for it, or it was the last; or it is a late
        # attempt at a first half whose second half waits for its lease to go.
        scheduler.advance(tournament_id)
    return {"match_id": match_id, "stored": stored}


def _outcome(
    record: TournamentRecord,
    match: ScheduledMatch,
    result: referee_pb2.MatchResult,
    referee: str,
    end: str,
    started_at: float,
) -> MatchResult:
    return MatchResult(
        match_id=match.match_id,
        tournament_id=record.id,
        game=match.game,
        pair_key=match.pair_key,
        deal=match.deal,
        seed=match.seed,
        entries=tuple(match.entries),
        scores=tuple(t.score for t in result.teams),
        winner_team=result.winner_team if result.HasField("winner_team") else None,
        end=end,
        forfeit_team=result.forfeit_team if result.HasField("forfeit_team") else None,
        team_faults=tuple(t.faults for t in result.teams),
        team_fault_kinds=_fault_kinds(match.game, result),
        decisions=result.decisions,
        duration_ms=round(result.duration.ToTimedelta() / timedelta(milliseconds=1), 3),
        replay_id=result.replay_id,
        referee=referee,
        finished_at=time.time(),
        deal_key=match.deal_key,
        paired=match.paired,
        deal_commitment=result.deal_commitment,
        deal_salt=result.deal_salt,
        referee_match_id=result.match_id,
        fair_play=record.spec.fair_play,
        operator_seed=record.spec.seed.operator,
        started_at=started_at,
    )


def _shared_partners(
    match: ScheduledMatch, request: referee_pb2.PlayMatchRequest
) -> tuple[str, ...] | None:
    """The entries whose one process held every seat of their team (remote ones, in a
    partnership game), which reads must caveat; None when there are none."""
    info = get_game(match.game).info
    if info.num_seats == info.num_teams:
        return None
    shared = tuple(e for i, e in enumerate(match.entries) if i not in request.hosted)
    return shared or None


def _fault_kinds(game: str, result: referee_pb2.MatchResult) -> tuple[dict[str, int], ...]:
    """Each team's faults by kind (``KIND_NAMES``): what a bot's page shows, which the
    per-team counts alone cannot tell (a timeout is not an illegal move)."""
    seat_teams = get_game(game).info.seat_teams
    kinds: list[Counter[str]] = [Counter() for _ in result.teams]
    for fault in result.faults:
        kinds[seat_teams[fault.seat]][KIND_NAMES.get(fault.kind, "unspecified")] += 1
    return tuple(dict(k) for k in kinds)


def _seat_outputs(match: ScheduledMatch, result: referee_pb2.MatchResult) -> list[SeatOutput]:
    """What each hosted seat's process wrote, with the entry that held the seat."""
    seat_teams = get_game(match.game).info.seat_teams
    outputs = []
    for log in result.seat_logs:
        text, clipped = clip(log.output.decode("utf-8", "replace"))
        entry = match.entries[seat_teams[log.seat]]
        outputs.append(SeatOutput(log.seat, entry, text, log.truncated or clipped, log.exit))
    return outputs
