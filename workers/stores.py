"""The workers' Redis: one client per process, and the stores and locks built on it.
Independent of the Celery app: importing this module neither builds it nor loads Celery."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from functools import cache

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from arena.store import TournamentStore
from arena.store.bot_logs import BotLogStore
from arena.store.competitions import CompetitionStore
from arena.store.history import RatingHistoryStore
from arena.store.leases import MatchLeases
from arena.store.live import LiveMatches
from arena.store.packages import PackageStore
from arena.store.referee_load import RefereeLoad
from workers.settings import current

REDIS_RETRIES = 30
"""With backoff capped at 5 s, about two minutes."""


@cache
def client() -> redis.Redis:
    # Every command waits out a Redis restart (about two minutes of retries): a worker
    # that gave up while Redis was away would lose the match it had just played, its
    # failed task being acknowledged once Redis is back.
    retry = Retry(ExponentialBackoff(cap=5.0, base=0.2), REDIS_RETRIES)
    return redis.Redis.from_url(current().redis_url, retry=retry)


@contextmanager
def exclusive(name: str, timeout_s: float) -> Iterator[bool]:
    """Whether this caller holds the lock ``name`` for the block (no one else did). The
    lock is renewed every third of ``timeout_s`` for as long as the block runs (a
    finalisation that refits a large arena's ratings may take minutes); a holder that
    dies or stops lets it lapse after ``timeout_s``."""
    lock = client().lock(name, timeout=timeout_s, blocking=False, thread_local=False)
    held = bool(lock.acquire())
    stop = threading.Event()

    def renew() -> None:
        while not stop.wait(timeout_s / 3):
            try:
                lock.reacquire()
            except (redis.exceptions.LockError, redis.RedisError):
                return  # lapsed (another may hold it now): nothing left to renew

    renewing = threading.Thread(target=renew, name=f"lock-{name}", daemon=True)
    if held:
        renewing.start()
    try:
        yield held
    finally:
        if held:
            stop.set()
            renewing.join()
            with suppress(redis.exceptions.LockError):  # it lapsed meanwhile
                lock.release()


@cache
def tournaments() -> TournamentStore:
    return TournamentStore(client())


@cache
def leases() -> MatchLeases:
    return MatchLeases(client())


@cache
def live() -> LiveMatches:
    return LiveMatches(client())


@cache
def packages() -> PackageStore:
    return PackageStore(client())


@cache
def logs() -> BotLogStore:
    return BotLogStore(client())


@cache
def history() -> RatingHistoryStore:
    return RatingHistoryStore(client())


@cache
def referee_load() -> RefereeLoad:
    return RefereeLoad(client())


@cache
def competitions() -> CompetitionStore:
    return CompetitionStore(client())
