"""Each bot's rating history (``arena.ratings.history``): a capped Redis list per bot.

A refit appends a point per board the bot is on; the list keeps the newest
``KEEP_POINTS``, so a ladder that never ends keeps a bounded history.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import redis

from arena.ratings.history import Point

HISTORY = "arena:history:{bot}"
"""List: the bot's points (compact JSON), oldest first."""
KEEP_POINTS = 2000
"""Points kept per bot, all boards together: at about 100 bytes each, 200 kB a bot. A bot
rated on the overall board and four games (five points a refit) keeps its last 400
refits: with a ladder refitting every 200 results, its last 80,000 results."""


def key(bot: str) -> str:
    return HISTORY.format(bot=bot)


class RatingHistoryStore:
    def __init__(self, client: redis.Redis, keep: int = KEEP_POINTS) -> None:
        self.redis = client
        self.keep = keep

    def record(self, points: Mapping[str, Sequence[Point]]) -> None:
        """Append each bot's points and trim its list, in one round trip for the refit."""
        if not points:
            return
        with self.redis.pipeline(transaction=False) as pipe:
            for bot, bot_points in points.items():
                if bot_points:
                    pipe.rpush(key(bot), *(json.dumps(p.to_json()) for p in bot_points))
                    pipe.ltrim(key(bot), -self.keep, -1)
            pipe.execute()

    def points(self, bot: str) -> list[Point]:
        """The bot's points as stored, oldest first; none for a bot never rated."""
        raw: list[bytes] = self.redis.lrange(key(bot), 0, -1)  # type: ignore[assignment]
        return [Point.from_json(json.loads(item)) for item in raw]
