"""Who is playing a scheduled match right now, how often it was tried, and why it waits.

A worker takes a match's lease before it asks a referee to play it and renews it while
the match runs (a heartbeat): a match is being played exactly when its lease is live. A
second copy of the task (a redelivered message, a watchdog's re-queue) finds the lease
taken and stands down, so a match is never played twice at once however long it runs;
a worker that dies lets its lease lapse within one lease period, and the watchdog
(``workers.watchdog``) queues the match again.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

import redis

from arena.store import keys

# KEYS: playing zset, holders hash. ARGV: match, holder, expiry, now.
_CLAIM = """
local expiry = redis.call('ZSCORE', KEYS[1], ARGV[1])
if expiry and tonumber(expiry) > tonumber(ARGV[4]) then
  if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
"""
# KEYS: playing zset, holders hash. ARGV: match, holder.
_RELEASE = """
if redis.call('HGET', KEYS[2], ARGV[1]) == ARGV[2] then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
  return 1
end
return 0
"""
# KEYS: tournament hash, failures hash. ARGV: match, failure (JSON), now, reason.
_FAILED = """
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HSETNX', KEYS[1], 'waiting_since', ARGV[3])
redis.call('HSET', KEYS[1], 'waiting_reason', ARGV[4])
return 1
"""


@dataclass(frozen=True)
class Waiting:
    """Why a tournament has not moved on: since when a match could not be played, and
    the last reason a referee gave."""

    since: float
    reason: str


class MatchLeases:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._claim = client.register_script(_CLAIM)
        self._release = client.register_script(_RELEASE)
        self._failed = client.register_script(_FAILED)

    def _keys(self, tournament_id: str) -> list[str]:
        return [keys.playing(tournament_id), keys.holders(tournament_id)]

    def claim(self, tournament_id: str, match_id: str, holder: str, lease_s: float) -> bool:
        """Take (or, for its holder, renew) the match's lease; False if someone else
        holds a live one."""
        now = time.time()
        taken = self._claim(
            keys=self._keys(tournament_id),
            args=[match_id, holder, repr(now + lease_s), repr(now)],
        )
        return bool(taken)

    def release(self, tournament_id: str, match_id: str, holder: str) -> None:
        self._release(keys=self._keys(tournament_id), args=[match_id, holder])

    def live(self, tournament_id: str) -> set[str]:
        """Matches whose lease has not run out."""
        raw: list[bytes] = self.redis.zrangebyscore(  # type: ignore[assignment]
            keys.playing(tournament_id), f"({time.time()!r}", "+inf"
        )
        return {m.decode() for m in raw}

    def next_try(self, tournament_id: str, match_id: str) -> int:
        """Count one more attempt at the match: 0 for the first. Redeliveries count too,
        so the backoff grows however the attempts came (the referee is chosen by load,
        ``arena.store.referee_load``)."""
        return int(self.redis.hincrby(keys.tries(tournament_id), match_id, 1)) - 1

    def failed(self, tournament_id: str, match_id: str, reason: str, tries: int) -> None:
        """Note a failed attempt; the tournament waits from the first one until a result
        is stored."""
        now = time.time()
        failure = json.dumps({"at": now, "reason": reason, "tries": tries})
        self._failed(
            keys=[keys.tournament(tournament_id), keys.failures(tournament_id)],
            args=[match_id, failure, repr(now), reason],
        )
