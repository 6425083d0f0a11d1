"""Which referee plays each match right now, and the id to watch it by.

A worker notes the attempt it hands to a referee (``start``) and forgets it when the
attempt ends (``end``), so the API can point watchers at the referee's ``WatchMatch``.
An entry outlives a killed worker, so readers keep only the matches whose lease
(``arena.store.leases``) is still live.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

import redis

from arena.store import keys

# KEYS: live hash. ARGV: match, watch id. Only the attempt that wrote it removes it: a
# later attempt of the same match may have replaced it.
_END = """
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if raw and cjson.decode(raw)['watch_id'] == ARGV[2] then
  redis.call('HDEL', KEYS[1], ARGV[1])
  return 1
end
return 0
"""


@dataclass(frozen=True)
class LiveAttempt:
    """One attempt at a match on a referee. ``paired``: its deal is shared with another
    match (a duplicate half), so it is not shown while its tournament runs."""

    match_id: str
    game: str
    entries: tuple[str, ...]
    referee: str
    watch_id: str
    started_at: float
    paired: bool


class LiveMatches:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._end = client.register_script(_END)

    def start(self, tournament_id: str, attempt: LiveAttempt) -> None:
        self.redis.hset(keys.live(tournament_id), attempt.match_id, json.dumps(asdict(attempt)))

    def end(self, tournament_id: str, match_id: str, watch_id: str) -> None:
        self._end(keys=[keys.live(tournament_id)], args=[match_id, watch_id])

    def attempts(self, tournament_id: str) -> list[LiveAttempt]:
        """Every noted attempt of the tournament, oldest first (some may be a dead
        worker's: check the leases)."""
        raw: dict[bytes, bytes] = self.redis.hgetall(keys.live(tournament_id))  # type: ignore[assignment]
        found = []
        for value in raw.values():
            data = json.loads(value)
            found.append(LiveAttempt(**{**data, "entries": tuple(data["entries"])}))
        return sorted(found, key=lambda a: (a.started_at, a.match_id))
