"""A real arena with the leaderboard web server in front of its API, and one small tournament it played."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from arena.local_redis import LocalRedis
from arena.processes import Service, arena_command, start_service
from arena.v1 import arena_pb2
from tests.support.arena import Arena
from tests.support.database import next_database

BOTS = {
    "house": ("house",),
    "rand-a": ("random", "--seed", "1"),
    "rand-b": ("random", "--seed", "2"),
}


GAMES = ["bid-euchre", "baloot"]


@dataclass
class Played:
    arena: Arena
    tournament: arena_pb2.Tournament
    web: Service

    @property
    def url(self) -> str:
        """The web server's base URL, from its ready line ``leaderboard listening on URL``."""
        return self.web.address


class RealArena:
    """A real arena on its own Redis database (a referee, the API, and the workers and
    bots a test starts), and the leaderboard web server in front of it once ``serve``d."""

    def __init__(self, arena: Arena) -> None:
        self.arena = arena
        self.web: Service | None = None

    def serve(self) -> Service:
        self.web = start_service(
            arena_command("leaderboard", "serve", "--port", "0", "--api", self.arena.api.address)
        )
        return self.web


@contextlib.contextmanager
def real_arena(local_redis: LocalRedis, replay_dir: Path) -> Iterator[RealArena]:
    """Everything it started is stopped on the way out, the web server first."""
    url = local_redis.url(next_database())
    referee = start_service(
        arena_command("referee", "serve", "--port", "0", "--replay-dir", str(replay_dir))
    )
    try:
        api = start_service(arena_command("api", "serve", "--port", "0", "--redis", url))
    except BaseException:
        referee.stop()
        raise
    stack = RealArena(Arena(url, replay_dir, referee, api))
    try:
        yield stack
    finally:
        if stack.web is not None:
            stack.web.stop()
        stack.arena.stop()
