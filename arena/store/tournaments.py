"""Tournaments, their schedules and their results."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import redis

from arena.records import stale
from arena.store import keys
from arena.store.leases import Waiting
from arena.store.results import MatchResult
from arena.tournament.schedule import ScheduledMatch
from arena.tournament.spec import Entry, TournamentPlan

# The result, its forfeit mark, its place in the order of finishing (which the
# scheduler reads on from), its place in match id order (which pages read) and the
# version bump happen together or not at all, and so does its record (the decisions a
# replay is built from): a result without its record cannot exist. A stored result
# also ends the tournament's wait (``arena.store.leases``).
_RECORD_ONCE = """
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then
  if ARGV[4] ~= '' then redis.call('HSET', KEYS[8], ARGV[1], ARGV[4]) end
  if ARGV[3] == '1' then redis.call('SADD', KEYS[2], ARGV[1]) end
  redis.call('INCR', KEYS[3])
  redis.call('HDEL', KEYS[4], ARGV[1])
  redis.call('HDEL', KEYS[5], 'waiting_since', 'waiting_reason')
  redis.call('RPUSH', KEYS[6], ARGV[1])
  redis.call('ZADD', KEYS[7], 0, ARGV[1])
  return 1
end
return 0
"""
# A page of results in match id order (ARGV[1] 'asc' or 'desc') after ARGV[2] (a
# ZRANGEBYLEX bound), ARGV[3] of them; 0 (no page) if the index has fewer ids than the
# results: an earlier build stored them, and ``arena store migrate`` indexes them.
_PAGE = """
if redis.call('ZCARD', KEYS[2]) < redis.call('HLEN', KEYS[1]) then return 0 end
local ids
if ARGV[1] == 'asc' then
  ids = redis.call('ZRANGEBYLEX', KEYS[2], ARGV[2], '+', 'LIMIT', 0, ARGV[3])
else
  ids = redis.call('ZREVRANGEBYLEX', KEYS[2], ARGV[2], '-', 'LIMIT', 0, ARGV[3])
end
if #ids == 0 then return {} end
return redis.call('HMGET', KEYS[1], unpack(ids))
"""
RUNNING, FINISHED, CANCELLED = "running", "finished", "cancelled"
# An ended tournament keeps of the per-match bookkeeping (attempts, lease holders,
# failures: KEYS[2] to KEYS[6]) only the attempts' totals, so its keys do not grow with
# its matches beyond its schedule, results and logs.
_DROP_BOOKKEEPING = """
  local attempts, retried = 0, 0
  for _, n in ipairs(redis.call('HVALS', KEYS[2])) do
    n = tonumber(n)
    attempts = attempts + n
    if n > 1 then retried = retried + 1 end
  end
  redis.call('HSET', KEYS[1], 'attempts', attempts, 'retried', retried)
  redis.call('DEL', KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6])
"""
# Only a running tournament finishes, and only once (KEYS[7]: the running ids).
_FINISH = (
    """
if redis.call('HGET', KEYS[1], 'state') == 'running' then
  redis.call('HSET', KEYS[1], 'state', 'finished')
  redis.call('HDEL', KEYS[1], 'waiting_since', 'waiting_reason', 'stranded')
  redis.call('SREM', KEYS[7], ARGV[1])
"""
    + _DROP_BOOKKEEPING
    + """
  return 1
end
return 0
"""
)
# A cancelled tournament's bookkeeping goes once no attempt at its matches holds a lease
# any more (ARGV[2]: now; KEYS[7]: the cancelled ids left to trim): until then its seeds
# stay secret (``arena.api.common.revealed``), and a late result may still be stored.
_TRIM = (
    """
if redis.call('HGET', KEYS[1], 'state') ~= 'cancelled' then
  redis.call('SREM', KEYS[7], ARGV[1])
  return 0
end
if redis.call('ZCOUNT', KEYS[4], ARGV[2], '+inf') == 0 then
  redis.call('SREM', KEYS[7], ARGV[1])
"""
    + _DROP_BOOKKEEPING
    + """
  return 1
end
return 0
"""
)

STRANDED_NAMED = 3
"""Stranded matches a tournament names (it counts them all)."""


def _stranded(raw: bytes | None) -> Stranded | None:
    if raw is None:
        return None
    mark = json.loads(raw)
    return Stranded(float(mark["since"]), int(mark["count"]), tuple(mark["matches"]))


@dataclass(frozen=True)
class TournamentRecord:
    id: str
    spec: TournamentPlan
    """The spec as stored (of the current version: ``arena.records``)."""
    games: tuple[str, ...]
    state: str
    created_at: float
    total: int
    """Matches the format will play, or 0 when it decides as it goes."""
    done: int
    forfeits: int
    playing: int = 0
    """Matches a worker is playing right now (whose lease has not run out)."""
    waiting: Waiting | None = None
    """Set while matches fail and none has succeeded since."""
    issued: int = 0
    """Matches handed to the workers so far (the schedule as it stands)."""
    scheduler: dict[str, Any] | None = None
    """The scheduler's state (``workers.scheduler``): None before its first step."""
    attempts: int | None = None
    """Once finished: attempts at its matches, and matches tried more than once."""
    retried: int | None = None
    stranded: Stranded | None = None
    """Set while matches it handed out are neither queued nor played (the watchdog's
    last round saw them so, and queues them again)."""
    results_digest: str = ""
    """Once finished: the digest of its results and records (``arena.tournament.digest``)."""


@dataclass(frozen=True)
class Stranded:
    since: float
    """When the watchdog first saw a match of it stranded (the current spell)."""
    count: int
    matches: tuple[str, ...]
    """The first few of them, by id."""


class TournamentStore:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._record_once = client.register_script(_RECORD_ONCE)
        self._page = client.register_script(_PAGE)
        self._finish = client.register_script(_FINISH)
        self._trim = client.register_script(_TRIM)

    def create(
        self,
        tournament_id: str,
        spec: TournamentPlan,
        games: Sequence[str],
        matches: Sequence[ScheduledMatch] = (),
        total: int | None = None,
        only_new: bool = False,
    ) -> bool:
        """Store a tournament; the scheduler hands out its matches. ``matches`` issues
        some at once (tests use it to skip the scheduler). Raises ``RecordError`` (and
        stores nothing) if the spec is not valid. With ``only_new``, a tournament already
        stored under the id (another worker's, made at the same moment) is left as it is
        and False returned: a tournament's secret seed is written once."""
        stored_spec = json.dumps(spec.to_json(tournament_id))
        now = time.time()
        with self.redis.pipeline(transaction=True) as pipe:
            if only_new:
                try:
                    pipe.watch(keys.tournament(tournament_id))  # type: ignore[no-untyped-call]
                    if pipe.exists(keys.tournament(tournament_id)):
                        return False
                    pipe.multi()
                except redis.WatchError:
                    return False
            pipe.hset(
                keys.tournament(tournament_id),
                mapping={
                    "spec": stored_spec,
                    "games": json.dumps(list(games)),
                    "state": RUNNING,
                    "created_at": repr(now),
                    "total": len(matches) if total is None else total,
                },
            )
            if matches:
                pipe.hset(
                    keys.schedule(tournament_id),
                    mapping={m.match_id: json.dumps(m.to_json()) for m in matches},
                )
            pipe.zadd(keys.tournaments(), {tournament_id: int(now * 1000)})
            pipe.sadd(keys.running(), tournament_id)
            try:
                pipe.execute()
            except redis.WatchError:  # only with only_new: created meanwhile
                return False
        return True

    def get(self, tournament_id: str) -> TournamentRecord | None:
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.hgetall(keys.tournament(tournament_id))
            pipe.hlen(keys.results(tournament_id))
            pipe.scard(keys.forfeits(tournament_id))
            pipe.zcount(keys.playing(tournament_id), f"({time.time()!r}", "+inf")
            pipe.hlen(keys.schedule(tournament_id))
            fields, done, forfeits, playing, issued = pipe.execute()
        if not fields:
            return None
        return TournamentRecord(
            id=tournament_id,
            spec=TournamentPlan.from_json(fields[b"spec"]),
            games=tuple(json.loads(fields[b"games"])),
            state=fields[b"state"].decode(),
            created_at=float(fields[b"created_at"]),
            total=int(fields[b"total"]),
            done=int(done),
            forfeits=int(forfeits),
            playing=int(playing),
            waiting=(
                Waiting(float(fields[b"waiting_since"]), fields[b"waiting_reason"].decode())
                if b"waiting_since" in fields
                else None
            ),
            issued=int(issued),
            scheduler=json.loads(fields[b"scheduler"]) if b"scheduler" in fields else None,
            attempts=int(fields[b"attempts"]) if b"attempts" in fields else None,
            retried=int(fields[b"retried"]) if b"retried" in fields else None,
            stranded=_stranded(fields.get(b"stranded")),
            results_digest=fields.get(b"results_digest", b"").decode(),
        )

    def note_stranded(
        self, stranded: Mapping[str, Collection[str]], running: Iterable[str]
    ) -> None:
        """Record on each running tournament the matches the watchdog found stranded
        (none: the mark goes), keeping when the current spell began."""
        running = list(running)
        with self.redis.pipeline(transaction=False) as pipe:
            for tournament_id in running:
                pipe.hget(keys.tournament(tournament_id), "stranded")
            before = pipe.execute()
            for tournament_id, was in zip(running, before, strict=True):
                matches = sorted(stranded.get(tournament_id, ()))
                if not matches:
                    if was is not None:
                        pipe.hdel(keys.tournament(tournament_id), "stranded")
                    continue
                old = _stranded(was)
                mark = {
                    "since": old.since if old else time.time(),
                    "count": len(matches),
                    "matches": matches[:STRANDED_NAMED],
                }
                pipe.hset(keys.tournament(tournament_id), "stranded", json.dumps(mark))
            pipe.execute()

    def ids(self) -> list[str]:
        raw: list[bytes] = self.redis.zrevrange(keys.tournaments(), 0, -1)  # type: ignore[assignment]
        return [i.decode() for i in raw]

    def set_state(self, tournament_id: str, state: str) -> None:
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(keys.tournament(tournament_id), "state", state)
            if state == RUNNING:
                pipe.sadd(keys.running(), tournament_id)
            else:
                pipe.srem(keys.running(), tournament_id)
            if state == CANCELLED:
                pipe.sadd(keys.to_trim(), tournament_id)
            pipe.execute()

    def trim_cancelled(self) -> int:
        """Drop the per-match bookkeeping of cancelled tournaments whose matches no
        attempt plays any more; returns how many were trimmed."""
        raw: set[bytes] = self.redis.smembers(keys.to_trim())  # type: ignore[assignment]
        now = repr(time.time())
        trimmed = 0
        for tournament_id in sorted(i.decode() for i in raw):
            held = [keys.tournament(tournament_id), *keys.per_match(tournament_id), keys.to_trim()]
            trimmed += int(self._trim(keys=held, args=[tournament_id, now]))
        return trimmed

    def finish(self, tournament_id: str) -> bool:
        """Mark a running tournament finished; False if it was not running."""
        held = [keys.tournament(tournament_id), *keys.per_match(tournament_id), keys.running()]
        return bool(self._finish(keys=held, args=[tournament_id]))

    def running_count(self) -> int:
        """How many tournaments are running (at least 1: the caller's own)."""
        return max(1, int(self.redis.scard(keys.running())))

    def note_running(self, states: dict[str, str]) -> None:
        """Bring the set of running ids in line with ``states`` (``states()``, read just
        before), for tournaments from before the set was kept: ids created since that
        read are left alone."""
        running = [i for i, state in states.items() if state == RUNNING]
        ended = [i for i, state in states.items() if state != RUNNING]
        with self.redis.pipeline(transaction=False) as pipe:
            if running:
                pipe.sadd(keys.running(), *running)
            if ended:
                pipe.srem(keys.running(), *ended)
            pipe.execute()

    def states(self) -> dict[str, str]:
        """Every tournament's state, by id."""
        ids = self.ids()
        with self.redis.pipeline(transaction=False) as pipe:
            for tournament_id in ids:
                pipe.hget(keys.tournament(tournament_id), "state")
            states = pipe.execute()
        return {i: s.decode() for i, s in zip(ids, states, strict=True) if s is not None}

    def state(self, tournament_id: str) -> str | None:
        raw = self.redis.hget(keys.tournament(tournament_id), "state")
        return None if raw is None else raw.decode()  # type: ignore[union-attr]

    def scheduled(self, tournament_id: str, match_id: str) -> ScheduledMatch | None:
        raw = self.redis.hget(keys.schedule(tournament_id), match_id)
        return None if raw is None else ScheduledMatch.from_json(json.loads(raw))

    def schedule(self, tournament_id: str) -> list[ScheduledMatch]:
        raw: dict[bytes, bytes] = self.redis.hgetall(keys.schedule(tournament_id))  # type: ignore[assignment]
        matches = [ScheduledMatch.from_json(json.loads(v)) for v in raw.values()]
        return sorted(matches, key=lambda m: m.match_id)

    def issue(
        self, tournament_id: str, scheduler: dict[str, Any], matches: Sequence[ScheduledMatch]
    ) -> None:
        """Add ``matches`` to the schedule together with the scheduler state that issued
        them: a scheduler that dies between the two leaves neither."""
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(keys.tournament(tournament_id), "scheduler", json.dumps(scheduler))
            if matches:
                pipe.hset(
                    keys.schedule(tournament_id),
                    mapping={m.match_id: json.dumps(m.to_json()) for m in matches},
                )
            pipe.execute()

    def finished_since(self, tournament_id: str, cursor: int, count: int) -> list[MatchResult]:
        """Up to ``count`` results, in the order they were stored, from the ``cursor``-th."""
        raw: list[bytes] = self.redis.lrange(  # type: ignore[assignment]
            keys.finished(tournament_id), cursor, cursor + count - 1
        )
        if not raw:
            return []
        values = self.redis.hmget(keys.results(tournament_id), raw)
        return [MatchResult.from_json(v) for v in values if v is not None]

    def set_lineup(self, tournament_id: str, lineup: Sequence[Entry]) -> None:
        """How to seat each entry of a ladder (its lineup changes as it runs); entries
        that left stay, for their matches still out."""
        if lineup:
            mapping: dict[str | bytes, str | bytes] = {
                e.label: json.dumps(e.how_to_play()) for e in lineup
            }
            self.redis.hset(keys.lineup(tournament_id), mapping=mapping)  # type: ignore[arg-type]

    def lineup(self, tournament_id: str) -> dict[str, Entry]:
        """How to seat each entry a ladder has had (its games are not kept)."""
        raw: dict[bytes, bytes] = self.redis.hgetall(keys.lineup(tournament_id))  # type: ignore[assignment]
        return {
            label.decode(): Entry.from_how(label.decode(), json.loads(how))
            for label, how in raw.items()
        }

    def result(self, tournament_id: str, match_id: str) -> MatchResult | None:
        raw = self.redis.hget(keys.results(tournament_id), match_id)
        return None if raw is None else MatchResult.from_json(raw)

    def has_result(self, tournament_id: str, match_id: str) -> bool:
        return bool(self.redis.hexists(keys.results(tournament_id), match_id))

    def with_results(self, tournament_id: str, match_ids: Collection[str]) -> set[str]:
        """Those of ``match_ids`` that have a stored result."""
        if not match_ids:
            return set()
        ids = sorted(match_ids)
        with self.redis.pipeline(transaction=False) as pipe:
            for match_id in ids:
                pipe.hexists(keys.results(tournament_id), match_id)
            found = pipe.execute()
        return {m for m, stored in zip(ids, found, strict=True) if stored}

    def unplayed_ids(self, tournament_id: str) -> set[str]:
        """Ids of scheduled matches with no result (keys only: cheap for a big schedule)."""
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.hkeys(keys.schedule(tournament_id))
            pipe.hkeys(keys.results(tournament_id))
            scheduled, done = pipe.execute()
        return {m.decode() for m in set(scheduled) - set(done)}

    def record_result(self, tournament_id: str, result: MatchResult, match_log: bytes) -> bool:
        """Store a match result and its record (``arena.v1.MatchLog``, serialized) unless
        a result is already stored; True if this one counted. Raises ``RecordError`` (and
        stores nothing) if the result is not valid. Only a test's made-up result comes
        without a record (``b""``): a referee's answer always carries one."""
        stored = json.dumps(result.to_json())
        forfeit = "1" if result.forfeit_team is not None else "0"
        written = self._record_once(
            keys=[
                keys.results(tournament_id),
                keys.forfeits(tournament_id),
                keys.results_version(),
                keys.failures(tournament_id),
                keys.tournament(tournament_id),
                keys.finished(tournament_id),
                keys.order(tournament_id),
                keys.match_logs(tournament_id),
            ],
            args=[result.match_id, stored, forfeit, match_log],
        )
        return bool(written)

    def match_logs(self, tournament_id: str, match_ids: Sequence[str]) -> list[bytes | None]:
        """The records of those matches, in their order; None where a result was stored
        without one (before the arena kept records, until ``arena replay import``)."""
        if not match_ids:
            return []
        found: list[bytes | None] = self.redis.hmget(keys.match_logs(tournament_id), match_ids)  # type: ignore[assignment]
        return found

    def import_match_logs(self, tournament_id: str, logs: Mapping[str, bytes]) -> int:
        """Store records for stored results that have none, all in one transaction (an
        import that fails stores nothing); returns how many were new."""
        key = keys.match_logs(tournament_id)
        with self.redis.pipeline(transaction=True) as pipe:
            for match_id, data in logs.items():
                pipe.hsetnx(key, match_id, data)
            added = pipe.execute()
        return sum(1 for n in added if n)

    def results_version(self) -> str:
        """Changes whenever a result is stored anywhere, and only then."""
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.set(keys.results_epoch(), uuid.uuid4().hex, nx=True)  # a new data set gets one
            pipe.mget(keys.results_epoch(), keys.results_version())
            _, (epoch, count) = pipe.execute()
        return f"{epoch.decode()}:{int(count or 0)}"

    def results(self, tournament_id: str) -> list[MatchResult]:
        """Every stored result of the tournament, in match id order."""
        raw: dict[bytes, bytes] = self.redis.hgetall(keys.results(tournament_id))  # type: ignore[assignment]
        return sorted((MatchResult.from_json(v) for v in raw.values()), key=lambda r: r.match_id)

    def results_page(
        self, tournament_id: str, after: str, count: int, descending: bool = False
    ) -> list[MatchResult]:
        """Up to ``count`` results whose match ids follow ``after`` in match id order (or,
        ``descending``, precede it; '' starts at the end that comes first). Reads only the
        page, from the order index; raises ``StaleRecord`` for a tournament whose results
        an earlier build stored without it (``arena store migrate`` indexes them)."""
        start = "+" if descending else "-"
        bound = "(" + after if after else start
        raw: list[bytes | None] | int = self._page(
            keys=[keys.results(tournament_id), keys.order(tournament_id)],
            args=["desc" if descending else "asc", bound, count],
        )
        if isinstance(raw, int):
            raise stale(f"tournament {tournament_id!r}", "its results have no order index")
        return [MatchResult.from_json(v) for v in raw if v is not None]

    def save_results_digest(self, tournament_id: str, digest: str) -> None:
        """Written while finishing, before the tournament is marked finished: a second
        finalisation writes the same."""
        self.redis.hset(keys.tournament(tournament_id), "results_digest", digest)

    def save_leaderboard(self, tournament_id: str, leaderboard: dict[str, Any]) -> None:
        self.redis.set(keys.leaderboard(tournament_id), json.dumps(leaderboard))

    def leaderboard(self, tournament_id: str) -> dict[str, Any] | None:
        raw = self.redis.get(keys.leaderboard(tournament_id))
        return None if raw is None else json.loads(raw)

    def save_ratings(self, boards: dict[str, dict[str, Any]]) -> None:
        """The arena-wide ratings: leaderboards by game ('' for all games together)."""
        self.redis.set(keys.ratings(), json.dumps(boards))

    def save_tallies(self, tournament_id: str, tallies: dict[str, dict[str, Any]]) -> None:
        """A finished tournament's tallies by game, whose results will not change."""
        self.redis.hset(keys.tallies(), tournament_id, json.dumps(tallies))

    def tallied(self) -> set[str]:
        """The tournaments whose tallies are kept."""
        raw: list[bytes] = self.redis.hkeys(keys.tallies())  # type: ignore[assignment]
        return {key.decode() for key in raw}

    def tallies(self, tournament_ids: Iterable[str]) -> list[dict[str, dict[str, Any]]]:
        wanted = list(tournament_ids)
        raw: list[bytes | None] = self.redis.hmget(keys.tallies(), wanted) if wanted else []  # type: ignore[assignment]
        return [json.loads(value) for value in raw if value is not None]

    def tally_sum(self) -> tuple[set[str], dict[str, dict[str, Any]]]:
        """The tournaments summed so far, and their merged tallies."""
        raw = self.redis.get(keys.tally_sum())
        if raw is None:
            return set(), {}
        found = json.loads(raw)
        return set(found["ids"]), found["tallies"]

    def save_tally_sum(self, ids: set[str], merged: dict[str, dict[str, Any]]) -> None:
        """The ids go with the sum in one value: a reader never sees one without the
        other, and concurrent writers each write a consistent pair."""
        self.redis.set(keys.tally_sum(), json.dumps({"ids": sorted(ids), "tallies": merged}))

    def ratings(self) -> dict[str, dict[str, Any]]:
        raw = self.redis.get(keys.ratings())
        return {} if raw is None else json.loads(raw)
