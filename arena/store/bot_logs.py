"""What hosted bots wrote in their matches, kept per tournament for their authors.

The referee hands each hosted seat's output back with the match result; the worker
that stores the result stores the logs beside it. They are read only once the
tournament has ended (``arena.api``): a log written during one half of a duplicate pair
could show the cards of the other half.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import asdict, dataclass

import redis

from arena.store import keys

KEEP_CHARS = 8192
"""Each seat's log keeps this much of its start and of its end: where a bot says what it
is and where it says why it failed. A bot's output cannot fill Redis: a tournament of
100,000 matches keeps at most 1.6 GB of logs per hosted seat of each, and far less
compressed."""
KEEP_DAYS = 30
"""Logs are dropped this long after a tournament's last stored match."""


def clip(text: str) -> tuple[str, bool]:
    """``text``'s start and end when it is longer than twice ``KEEP_CHARS``, and whether
    anything was dropped."""
    if len(text) <= 2 * KEEP_CHARS:
        return text, False
    dropped = len(text) - 2 * KEEP_CHARS
    return f"{text[:KEEP_CHARS]}\n[arena: {dropped} characters dropped]\n{text[-KEEP_CHARS:]}", True


@dataclass(frozen=True)
class SeatOutput:
    seat: int
    entry: str
    """The tournament entry that held the seat, ``name@version``."""
    output: str
    truncated: bool
    exit: str


class BotLogStore:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client

    def put(self, tournament_id: str, match_id: str, seats: list[SeatOutput]) -> None:
        """Keep a match's logs; the first write wins, like its result."""
        if not seats:
            return
        data = zlib.compress(json.dumps([asdict(s) for s in seats]).encode())
        key = keys.logs(tournament_id)  # match id -> zlib-compressed JSON of SeatOutput
        with self.redis.pipeline() as pipe:
            pipe.hsetnx(key, match_id, data)
            pipe.expire(key, KEEP_DAYS * 86400)
            pipe.execute()

    def get(self, tournament_id: str, match_id: str) -> list[SeatOutput]:
        data = self.redis.hget(keys.logs(tournament_id), match_id)
        if data is None:
            return []
        return [SeatOutput(**s) for s in json.loads(zlib.decompress(data))]  # type: ignore[arg-type]
