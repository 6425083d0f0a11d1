"""Shared fixtures: a referee, bots and a Redis as real processes, on loopback."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest
from hypothesis import settings

from arena.local_redis import LocalRedis, start_redis
from arena.processes import Service, arena_command, free_port, start_service
from arena.v1 import referee_pb2, referee_pb2_grpc

TESTS = Path(__file__).resolve().parent

# The property tests that name no example count of their own, the long playout runs,
# take it from here: 200 in the default run (CI's), a thousand with
# ``pytest --hypothesis-profile=thorough``.
settings.register_profile("default", max_examples=200)
settings.register_profile("thorough", max_examples=1000)
settings.load_profile("default")
_databases = itertools.count(1)


def next_database() -> int:
    """A Redis database number no other test of this run uses (the server has 1024)."""
    return next(_databases)


@pytest.fixture(scope="session")
def local_redis() -> Iterator[LocalRedis]:
    server = start_redis()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def replay_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("replays")


def start_metered_referee(replay_dir: Path) -> tuple[Service, int]:
    """A referee process serving /metrics too; returns it and its metrics port."""
    port = free_port()
    service = start_service(
        arena_command(
            "referee", "serve", "--port", "0", "--replay-dir", str(replay_dir),
            "--metrics-port", str(port),
        )
    )  # fmt: skip
    return service, port


@pytest.fixture(scope="session")
def referee(replay_dir: Path) -> Iterator[Service]:
    service = start_service(
        arena_command("referee", "serve", "--port", "0", "--replay-dir", str(replay_dir))
    )
    yield service
    service.stop()


@pytest.fixture(scope="session")
def referee_stub(referee: Service) -> Iterator[referee_pb2_grpc.RefereeStub]:
    with grpc.insecure_channel(referee.address) as channel:
        yield referee_pb2_grpc.RefereeStub(channel)


BotFactory = Callable[..., Service]


def bot_command(name: str, *flags: str) -> list[str]:
    if name == "spy":
        return [sys.executable, str(TESTS / "bots" / "spy_bot.py"), "--port", "0", *flags]
    return arena_command("bot", "serve", name, "--port", "0", *flags)


@pytest.fixture
def start_bot() -> Iterator[BotFactory]:
    """Start a bot process for this test; ``start_bot("chaos", "--mode", "hang")``."""
    started: list[Service] = []

    def start(name: str, *flags: str) -> Service:
        service = start_service(bot_command(name, *flags))
        started.append(service)
        return service

    yield start
    for service in started:
        service.stop()


@pytest.fixture(scope="session")
def random_bot() -> Iterator[Service]:
    service = start_service(bot_command("random", "--seed", "11"))
    yield service
    service.stop()


@pytest.fixture(scope="session")
def basic_bot() -> Iterator[Service]:
    service = start_service(bot_command("bid-euchre-basic"))
    yield service
    service.stop()


def with_addresses(
    watched: referee_pb2.MatchResult, result: referee_pb2.MatchResult
) -> referee_pb2.MatchResult:
    """A watcher's copy of ``result`` (WatchMatch names bots, never their addresses, and
    never sends the record) with the addresses and record put back, to compare with what
    the PlayMatch caller got."""
    assert not watched.HasField("log"), "a watcher got the match's record"
    restored = referee_pb2.MatchResult()
    restored.CopyFrom(watched)
    restored.log.CopyFrom(result.log)
    for team, played in zip(restored.teams, result.teams, strict=True):
        assert not set(team.bots) & set(played.bots), "a watcher learned a bot's address"
        team.bots[:] = played.bots
    return restored
