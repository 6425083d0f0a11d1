"""How many matches each referee is playing, kept in Redis so that every worker sends
the next match to the least loaded referee.

A hash of the match id spreads matches evenly only while they all cost the same; one
referee that drew the long matches (or runs fewer processes) then gets as many new ones
as an idle one. So each referee address has a sorted set of the matches in flight on
it, scored by when the entry lapses: the worker that plays a match renews its entry
with the match's lease (``arena.store.leases``), so a killed worker's matches stop
counting within one lease period, and entries that lapsed are pruned as referees are
chosen.

A failed attempt's entry is left to lapse rather than removed: a referee that just
failed (down, hung, full) looks busy for one lease period instead of idle, which would
otherwise draw every new match to it. The retry itself avoids the referees the match
failed on, as long as another one exists.
"""

from __future__ import annotations

import json
import time
import zlib
from collections.abc import Mapping, Sequence

import redis

from arena.store import keys


def choose(load: Mapping[str, int], failed: Sequence[str] = (), start: int = 0) -> str:
    """The referee of ``load`` (address -> matches in flight) with the fewest matches.

    Referees in ``failed`` (where this match failed, most recent last) are left out while
    another exists; if the match failed on every one, only the most recent is. Ties go
    to the first in ``load``'s order counting from position ``start`` (a hash of the
    match id), so idle referees share matches evenly rather than all going to the first.
    """
    names = list(load)
    if not names:
        raise ValueError("no referees to choose from")
    fresh = [name for name in names if name not in failed]
    candidates = fresh or [name for name in names if name != failed[-1]] or names
    place = {name: (i - start) % len(names) for i, name in enumerate(names)}
    return min(candidates, key=lambda name: (load[name], place[name]))


def _member(tournament_id: str, match_id: str) -> str:
    return f"{tournament_id}:{match_id}"


class RefereeLoad:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client

    def counts(self, referees: Sequence[str]) -> dict[str, int]:
        """Matches in flight on each referee: entries that have not lapsed."""
        now = repr(time.time())
        with self.redis.pipeline(transaction=False) as pipe:
            for referee in referees:
                pipe.zcount(keys.referee_playing(referee), f"({now}", "+inf")
            return dict(zip(referees, (int(n) for n in pipe.execute()), strict=True))

    def failed_on(self, tournament_id: str, match_id: str) -> list[str]:
        """The referees this match failed on, most recent last."""
        raw = self.redis.hget(keys.failed_on(tournament_id), match_id)
        return list(json.loads(raw)) if raw else []

    def claim(
        self, referees: Sequence[str], tournament_id: str, match_id: str, lease_s: float
    ) -> str:
        """Choose the referee for the match (``choose``) and count the match on it for
        ``lease_s``, in one transaction: claims at the same moment see each other's
        counts, so a burst of matches is spread rather than sent to the same idle one."""
        loads = [keys.referee_playing(r) for r in referees]  # tournament:match -> lapses at
        failed = self.failed_on(tournament_id, match_id)  # only this match's worker writes it
        start = zlib.crc32(match_id.encode())
        chosen = ""

        def attempt(pipe: redis.client.Pipeline) -> None:
            nonlocal chosen
            now = time.time()
            counts = [int(pipe.zcount(key, f"({now!r}", "+inf")) for key in loads]
            chosen = choose(dict(zip(referees, counts, strict=True)), failed, start)
            pipe.multi()
            for key in loads:
                pipe.zremrangebyscore(key, "-inf", now)
            pipe.zadd(
                keys.referee_playing(chosen), {_member(tournament_id, match_id): now + lease_s}
            )

        self.redis.transaction(attempt, *loads)  # again from the start if a key changed
        return chosen

    def renew(self, referee: str, tournament_id: str, match_id: str, lease_s: float) -> None:
        """Keep counting the match on ``referee`` for another ``lease_s`` (the heartbeat)."""
        self.redis.zadd(
            keys.referee_playing(referee),
            {_member(tournament_id, match_id): time.time() + lease_s},
        )

    def release(self, referee: str, tournament_id: str, match_id: str) -> None:
        """The referee finished the match: stop counting it."""
        self.redis.zrem(keys.referee_playing(referee), _member(tournament_id, match_id))

    def failed(self, referee: str, tournament_id: str, match_id: str) -> None:
        """Note that the match failed on ``referee``, so its retry goes elsewhere; its
        entry there lapses with the lease."""
        earlier = [r for r in self.failed_on(tournament_id, match_id) if r != referee]
        self.redis.hset(keys.failed_on(tournament_id), match_id, json.dumps([*earlier, referee]))
