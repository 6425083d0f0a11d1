"""Shared fixtures: a referee, bots and a Redis as real processes, on loopback."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from subprocess import Popen

import grpc
import pytest
from hypothesis import settings
from xdist.remote import Producer

from arena.local_redis import LocalRedis, start_redis
from arena.processes import Service, arena_command, start_service
from arena.v1 import referee_pb2_grpc
from tests.support import forkserver
from tests.support.bots import POOL, BotFactory, bot_command, poolable
from tests.support.scheduling import HeavyTogether

FORK_SERVER: pytest.StashKey[Popen[bytes] | None] = pytest.StashKey()

# The property tests that name no example count of their own, the long playout runs,
# take it from here: 200 in the default run (CI's), a thousand with
# ``pytest --hypothesis-profile=thorough``.
settings.register_profile("default", max_examples=200)
settings.register_profile("thorough", max_examples=1000)
settings.load_profile("default")


def pytest_configure(config: pytest.Config) -> None:
    """A fork server for the processes of this test process (``tests/support/forkserver.py``):
    in each xdist worker, or in a run without workers; the xdist controller starts none."""
    if os.environ.get("PYTEST_XDIST_WORKER") or not getattr(config.option, "numprocesses", None):
        config.stash[FORK_SERVER] = forkserver.start()


def pytest_unconfigure(config: pytest.Config) -> None:
    server = config.stash.get(FORK_SERVER, None)
    if server is not None:
        forkserver.stop(server)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Producer) -> HeavyTogether:
    """``make test``'s scheduling (``tests/support/scheduling.py``): the heavy modules on one
    worker, a module sharing a module fixture on one."""
    return HeavyTogether(config, log)


@pytest.fixture(scope="session")
def local_redis() -> Iterator[LocalRedis]:
    server = start_redis()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def replay_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("replays")


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


@pytest.fixture
def start_bot() -> Iterator[BotFactory]:
    """Start a bot process for this test; ``start_bot("chaos", "--mode", "hang")``."""
    started: list[Service] = []
    pooled: list[str] = []

    def start(name: str, *flags: str) -> Service:
        if poolable(name, flags):  # the test's n-th such bot: the pool's n-th
            same = [f"{name} {flags}" == asked for asked in pooled]
            pooled.append(f"{name} {flags}")
            return POOL.get(f"#{sum(same)}", name, *flags)
        service = start_service(bot_command(name, *flags))
        started.append(service)
        return service

    yield start
    for service in started:
        service.stop()


@pytest.fixture(scope="session", autouse=True)
def bot_pool() -> Iterator[None]:
    """Stops the pooled bots (``tests.support.bots``) when this pytest process is done."""
    yield
    POOL.stop()


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
