"""The Node.js example bot (examples/node-bot) as a real process.

Its npm packages come from ``make node`` (a dependency of ``make test``); without them,
or without ``node``, every test here fails and says so rather than being skipped."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arena.processes import Service, arena_command, start_service
from tests.support.node import node_command


@pytest.fixture
def node_bot() -> Iterator[Service]:
    """The Node bot as it starts by default: ActStream announced."""
    bot = start_service(node_command())
    yield bot
    bot.stop()


@pytest.fixture
def node_bot_unary() -> Iterator[Service]:
    """The Node bot with ``--no-stream``: the referee calls unary Act."""
    bot = start_service(node_command("--no-stream"))
    yield bot
    bot.stop()


@pytest.fixture(scope="module")
def house_bot() -> Iterator[Service]:
    service = start_service(arena_command("bot", "serve", "house", "--port", "0"))
    yield service
    service.stop()
