"""Celery tasks: play one scheduled match through a referee; finalise a tournament.

``play_match`` may run more than once for the same match (a worker died after the
referee finished, a message was redelivered): the result is stored with HSETNX, so only
the first one counts. Each attempt gets its own referee match id, so attempts never
collide on a referee.
"""

from __future__ import annotations

import time
import uuid
import zlib
from datetime import timedelta
from functools import cache
from typing import Any

import grpc
import redis
from celery import Task
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from arena import wire
from arena.ratings.leaderboard import leaderboard, ratings_by_game
from arena.store import TournamentRecord, TournamentStore
from arena.store.tournaments import CANCELLED, FINISHED
from arena.tls import channel_credentials
from arena.tournament.fair_play import disclosure, stored_mode, stored_operator_seed
from arena.tournament.schedule import ScheduledMatch
from arena.v1 import referee_pb2, referee_pb2_grpc
from workers import metrics
from workers.app import app, settings

MAX_RETRIES = 8
REDIS_RETRIES = 30
"""With backoff capped at 5 s, about two minutes."""
RETRY_CODES = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED}


@cache
def store() -> TournamentStore:
    # Every command waits out a Redis restart (about two minutes of retries): a worker
    # that gave up while Redis was away would lose the match it had just played, its
    # failed task being acknowledged once Redis is back.
    retry = Retry(ExponentialBackoff(cap=5.0, base=0.2), REDIS_RETRIES)
    return TournamentStore(redis.Redis.from_url(settings.redis_url, retry=retry))


def pick_referee(match_id: str, attempt: int) -> str:
    """Spread matches over the referees; each retry moves to the next one."""
    referees = settings.referees
    return referees[(zlib.crc32(match_id.encode()) + attempt) % len(referees)]


@cache
def _referee_credentials() -> grpc.ChannelCredentials | None:
    return channel_credentials(settings.referee_ca) if settings.referee_ca else None


def _play(referee: str, request: referee_pb2.PlayMatchRequest) -> referee_pb2.MatchResult:
    credentials = _referee_credentials()
    opened = (
        grpc.insecure_channel(referee)
        if credentials is None
        else grpc.secure_channel(referee, credentials)
    )
    with opened as channel:
        result: referee_pb2.MatchResult = referee_pb2_grpc.RefereeStub(channel).PlayMatch(request)
        return result


def _to_play(
    tournaments: TournamentStore, tournament_id: str, match_id: str
) -> tuple[TournamentRecord, ScheduledMatch] | str:
    """The tournament and the scheduled match, or why the task has nothing to do."""
    record = tournaments.get(tournament_id)
    if record is None or record.state == CANCELLED:
        return "cancelled or unknown tournament"
    if tournaments.has_result(tournament_id, match_id):
        return "already played"
    match = tournaments.scheduled(tournament_id, match_id)
    if match is None:
        return "not in the schedule"
    return record, match


@app.task(bind=True, max_retries=MAX_RETRIES, name="arena.play_match")
def play_match(self: Task, tournament_id: str, match_id: str) -> dict[str, Any]:
    tournaments = store()
    found = _to_play(tournaments, tournament_id, match_id)
    if isinstance(found, str):
        return {"match_id": match_id, "skipped": found}
    record, match = found
    spec = record.spec
    mode = stored_mode(spec)
    attempt = self.request.retries
    referee = pick_referee(match_id, attempt)
    request = referee_pb2.PlayMatchRequest(
        game=match.game,
        bots=[spec["addresses"][e] for e in match.entries],
        seed=match.seed,
        move_deadline=wire.duration(spec["move_deadline_ms"] / 1000),
        time_bank=(
            wire.duration(spec["time_bank_ms"] / 1000) if spec.get("time_bank_ms") else None
        ),
        fault_policy=referee_pb2.FaultPolicy(max_faults=spec["max_faults"]),
        match_id=f"{match_id}-{uuid.uuid4().hex[:8]}",
        disclosure=disclosure(mode),
    )
    started = time.monotonic()
    tournaments.playing(tournament_id, request.match_id, settings.visibility_timeout_s)
    try:
        result = _play(referee, request)
    except grpc.RpcError as error:
        tournaments.played(tournament_id, request.match_id)
        if error.code() in RETRY_CODES and attempt < MAX_RETRIES:
            metrics.MATCHES_RETRIED.labels(match.game).inc()
            raise self.retry(countdown=min(2**attempt * 0.5, 30), exc=error) from None
        metrics.MATCHES_FAILED.labels(match.game).inc()
        raise
    end = referee_pb2.MatchEnd.Name(result.end).removeprefix("MATCH_END_").lower()
    metrics.MATCHES_PLAYED.labels(match.game, end).inc()
    metrics.MATCH_SECONDS.labels(match.game).observe(time.monotonic() - started)
    outcome = {
        "match_id": match_id,
        "tournament_id": tournament_id,
        "game": match.game,
        "pair_key": match.pair_key,
        "deal": match.deal,
        "seed": match.seed,
        "entries": list(match.entries),
        "scores": [t.score for t in result.teams],
        "winner_team": result.winner_team if result.HasField("winner_team") else None,
        "end": end,
        "forfeit_team": result.forfeit_team if result.HasField("forfeit_team") else None,
        "team_faults": [t.faults for t in result.teams],
        "decisions": result.decisions,
        "duration_ms": round(result.duration.ToTimedelta() / timedelta(milliseconds=1), 3),
        "replay_id": result.replay_id,
        "referee": referee,
        "finished_at": time.time(),
        "deal_key": match.deal_key,
        "paired": match.paired,
        "deal_commitment": result.deal_commitment,
        "deal_salt": result.deal_salt,
        "referee_match_id": result.match_id,
        "fair_play": mode,
        "operator_seed": stored_operator_seed(spec),
    }
    stored = tournaments.record_result(tournament_id, outcome)
    tournaments.played(tournament_id, request.match_id)
    if stored:
        now = tournaments.get(tournament_id)
        if now is not None and now.done >= now.total:
            # The chord callback normally does this; a redelivered task can make a chord
            # count wrong, so the match that completes the schedule asks as well.
            finalize_tournament.delay(tournament_id)
    return {"match_id": match_id, "stored": stored}


@app.task(name="arena.finalize_tournament")
def finalize_tournament(tournament_id: str) -> dict[str, Any]:
    """Chord callback: rate the tournament and mark it finished if nothing is missing."""
    tournaments = store()
    results = tournaments.results(tournament_id)
    board = leaderboard(results)
    tournaments.save_leaderboard(tournament_id, board.to_json())
    record = tournaments.get(tournament_id)
    finished = record is not None and record.done >= record.total and record.state != CANCELLED
    if finished:
        # Ratings first: whoever sees the tournament finished sees it rated.
        everything = [r for t in tournaments.ids() for r in tournaments.results(t)]
        boards = ratings_by_game(everything)
        tournaments.save_ratings({game: board.to_json() for game, board in boards.items()})
        tournaments.set_state(tournament_id, FINISHED)
    return {"tournament_id": tournament_id, "finished": finished, "results": len(results)}
