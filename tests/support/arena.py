"""A whole arena on its own Redis database, a referee, the API, Celery workers and
bots, all real processes on loopback.

Workers run with settings shorter than the shipped ones (``WORKER_ENV``), so that the
many tests that kill, stop or cut off a part see it recovered within seconds rather than
the shipped minute or two. The soak runs with every shipped setting
(``tests/shipped.py``), and the fault tests with the shipped visibility timeout, which
recovery must not wait for."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import redis

from arena.games import game_names
from arena.local_redis import LocalRedis
from arena.processes import Service, arena_command, start_service
from arena.store import TournamentStore, keys
from arena.v1 import arena_pb2, arena_pb2_grpc
from tests.support.bots import POOL, poolable
from tests.support.database import next_database

# Short enough that a killed worker's task, a lapsed lease, a lost match and a hung
# referee are all noticed within seconds (shipped: tests/shipped.py).
WORKER_ENV = {
    "ARENA_VISIBILITY_TIMEOUT": "8",
    "ARENA_UNACKED_RESTORE_INTERVAL": "1",
    "ARENA_MATCH_LEASE": "2",
    "ARENA_WATCHDOG_INTERVAL": "1",
    "ARENA_REFEREE_KEEPALIVE": "1",
}

SHORT_BID_EUCHRE = {"bid-euchre": arena_pb2.GameOptions(options={"max_hands": "4"})}
"""Bid Euchre's options in the tournaments tests submit: at most four scored hands. Its
random bots seldom reach 32 points (a set costs the bid), so their matches run to the
100-hand safeguard, about 2,400 decisions (ten times any other game's) and two seconds of
CPU a match through a referee. Tests of scheduling, storage and faults need matches, not
long ones; a test of the game itself names its options."""
WHOLE: dict[str, arena_pb2.GameOptions] = {}
"""Every game at its defaults: for tests that need a match still in flight (a fault
while one is played, a browser following one), or the shipped game as the soak plays it."""


@dataclass
class Arena:
    redis_url: str
    replay_dir: Path
    referee: Service
    api: Service
    workers: list[Service] = field(default_factory=list)
    bots: dict[str, Service] = field(default_factory=dict)
    channel: grpc.Channel | None = None
    shared: bool = False
    """The referee and API belong to a module's ``shared_stack``: ``stop`` leaves them."""

    @property
    def stub(self) -> arena_pb2_grpc.ArenaStub:
        if self.channel is None:
            self.channel = grpc.insecure_channel(self.api.address)
        return arena_pb2_grpc.ArenaStub(self.channel)

    @property
    def redis(self) -> redis.Redis:
        return redis.Redis.from_url(self.redis_url)

    def start_worker(
        self,
        name: str,
        concurrency: int = 1,
        referees: list[str] | None = None,
        extra: Sequence[str] = (),
        env: dict[str, str] | None = None,
        settings: dict[str, str] | None = None,
    ) -> Service:
        """``settings`` replace ``WORKER_ENV`` (the shipped ones, say); ``env`` adds to
        them."""
        flags = [f for r in referees or [self.referee.address] for f in ("--referee", r)]
        flags += extra
        worker = start_service(
            arena_command(
                "worker",
                "--redis",
                self.redis_url,
                *flags,
                "--concurrency",
                str(concurrency),
                "--name",
                f"{name}@arena-test",
                "--loglevel",
                os.environ.get("ARENA_TEST_LOGLEVEL", "WARNING"),
            ),
            env={**(WORKER_ENV if settings is None else settings), **(env or {})},
        )
        self.workers.append(worker)
        return worker

    def start_bot(self, name: str, example: str, *flags: str) -> Service:
        """Registered as ``name``; the pool's process where the example is stateless."""
        if poolable(example, flags):
            bot = POOL.get(name, example, *flags)
        else:
            bot = start_service(arena_command("bot", "serve", example, "--port", "0", *flags))
        self.bots[name] = bot
        self.stub.RegisterBot(arena_pb2.RegisterBotRequest(name=name, address=bot.address))
        return bot

    def submit(self, entries: list[str], deals: int = 1, **spec: Any) -> arena_pb2.Tournament:
        """``spec``: any other TournamentSpec fields, as its constructor takes them. A
        spec that names no game options plays Bid Euchre's ``SHORT_BID_EUCHRE``."""
        if "game_options" not in spec and "bid-euchre" in (spec.get("games") or game_names()):
            spec["game_options"] = SHORT_BID_EUCHRE
        request = arena_pb2.SubmitTournamentRequest(
            spec=arena_pb2.TournamentSpec(entries=entries, deals=deals, **spec)
        )
        tournament: arena_pb2.Tournament = self.stub.SubmitTournament(request)
        return tournament

    def get(self, tournament_id: str) -> arena_pb2.Tournament:
        tournament: arena_pb2.Tournament = self.stub.GetTournament(
            arena_pb2.GetTournamentRequest(id=tournament_id)
        )
        return tournament

    def wait_until(
        self, tournament_id: str, done: int | None = None, timeout: float = 180
    ) -> arena_pb2.Tournament:
        """Until the tournament is finished (or has ``done`` results)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            t = self.get(tournament_id)
            if (done is None and t.state == arena_pb2.TOURNAMENT_STATE_FINISHED) or (
                done is not None and t.matches_done >= done
            ):
                return t
            time.sleep(0.2)
        r = self.redis
        raise AssertionError(
            f"tournament {tournament_id} stuck: {self.get(tournament_id)}; queued "
            f"{r.llen('celery')}, unacked {r.hlen('unacked')}, index {r.zrange('unacked_index', 0, -1, withscores=True)}"
        )

    def stop(self) -> None:
        if self.channel is not None:
            self.channel.close()
        for worker in self.workers:  # a warm shutdown waits for its matches: seconds a test
            worker.kill()
        bots = [bot for bot in self.bots.values() if not POOL.owns(bot)]
        for service in [*bots, *([] if self.shared else [self.api, self.referee])]:
            service.stop()


def start_arena(local_redis: LocalRedis, tmp_path: Path) -> Arena:
    """A referee and an API on a Redis database of their own; workers and bots come later."""
    url = local_redis.url(next_database())
    replay_dir = tmp_path / "replays"
    referee = start_service(
        arena_command(
            "referee",
            "serve",
            "--port",
            "0",
            "--replay-dir",
            str(replay_dir),
            "--hosting-dir",
            str(tmp_path / "hosting"),
        )
    )
    api = start_service(arena_command("api", "serve", "--port", "0", "--redis", url))
    return Arena(url, replay_dir, referee, api)


def on_clean_database(stack: Arena) -> Arena:
    """A test's view of a module's stack: the same referee and API, on their database
    emptied of everything earlier tests stored or queued, with workers and bots of its
    own, stopped when it ends (the API and referee keep no state a test reads besides
    what is in Redis and the replay directory)."""
    stack.redis.flushdb()
    return Arena(stack.redis_url, stack.replay_dir, stack.referee, stack.api, shared=True)


def assert_complete_once(arena: Arena, tournament_id: str, total: int) -> None:
    finished = arena.wait_until(tournament_id)
    results = TournamentStore(arena.redis).results(tournament_id)
    assert finished.matches_done == finished.matches_total == total
    assert len(results) == len({r.match_id for r in results}) == total
    schedule = arena.redis.hkeys(keys.schedule(tournament_id))
    assert {r.match_id.encode() for r in results} == set(schedule)
    board = arena.stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(tournament_id=tournament_id))
    assert board.matches == total
