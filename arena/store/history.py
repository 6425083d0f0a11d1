"""Each bot's rating history (``arena.ratings.history``): a capped Redis list per bot.

A refit appends a point per board the bot is on; the list keeps the newest
``KEEP_POINTS``, so a ladder that never ends keeps a bounded history. Each refit's points
are written once, whoever records them and however often: a tournament finalised twice
(a holder of its lock stopped past the lock's life, say) adds its points once.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import redis

from arena.ratings.history import Point
from arena.store import keys

KEEP_POINTS = 2000
"""Points kept per bot, all boards together: at about 100 bytes each, 200 kB a bot. A bot
rated on the overall board and four games (five points a refit) keeps its last 400
refits: with a ladder refitting every 200 results, its last 80,000 results."""

_RECORD = """
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return 0 end
for i = 2, #KEYS do
  local points = cjson.decode(ARGV[i])
  for _, point in ipairs(points) do redis.call('RPUSH', KEYS[i], point) end
  redis.call('LTRIM', KEYS[i], -tonumber(ARGV[#KEYS + 1]), -1)
end
return 1
"""


class RatingHistoryStore:
    def __init__(self, client: redis.Redis, keep: int = KEEP_POINTS) -> None:
        self.redis = client
        self.keep = keep
        self._record = client.register_script(_RECORD)

    def record(self, event: str, points: Mapping[str, Sequence[Point]]) -> bool:
        """Append each bot's points of ``event`` and trim its list, all at once and only
        if that event's points were never recorded; whether they were recorded now."""
        bots = [bot for bot, bot_points in points.items() if bot_points]
        values = [json.dumps([json.dumps(p.to_json()) for p in points[bot]]) for bot in bots]
        written = [keys.history_events(), *(keys.history(bot) for bot in bots)]
        return bool(self._record(keys=written, args=[event, *values, self.keep]))

    def points(self, bot: str) -> list[Point]:
        """The bot's points as stored, oldest first; none for a bot never rated."""
        raw: list[bytes] = self.redis.lrange(keys.history(bot), 0, -1)  # type: ignore[assignment]
        return [Point.from_json(json.loads(item)) for item in raw]
