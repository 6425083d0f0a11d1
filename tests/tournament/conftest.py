"""The ``arena`` fixture: a whole arena per test (tests/support/arena.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.local_redis import LocalRedis
from tests.support.arena import Arena, start_arena


@pytest.fixture
def arena(local_redis: LocalRedis, tmp_path: Path) -> Iterator[Arena]:
    stack = start_arena(local_redis, tmp_path)
    yield stack
    stack.stop()
