"""The stacks tournament tests run on (tests/support/arena.py).

``arena`` is a whole arena of the test's own (``own_arena``): for a test that stops,
kills or starts a referee or an API, reads their logs or their replay directory, or
counts their metrics. A module whose tests need none of that sets ``arena`` to
``shared_arena`` (``SHARED`` in the module): one referee and API for the module, on a
database emptied for each test, with workers and bots of each test's own; a test of such
a module that needs its own asks for ``own_arena``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.local_redis import LocalRedis
from tests.support.arena import Arena, on_clean_database, start_arena


@pytest.fixture
def own_arena(local_redis: LocalRedis, tmp_path: Path) -> Iterator[Arena]:
    stack = start_arena(local_redis, tmp_path)
    yield stack
    stack.stop()


@pytest.fixture
def arena(request: pytest.FixtureRequest) -> Arena:
    """``own_arena``, or ``shared_arena`` in a module that says ``SHARED = True``."""
    shared = getattr(request.module, "SHARED", False)
    found: Arena = request.getfixturevalue("shared_arena" if shared else "own_arena")
    return found


@pytest.fixture(scope="module")
def shared_stack(
    local_redis: LocalRedis, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Arena]:
    stack = start_arena(local_redis, tmp_path_factory.mktemp("stack"))
    yield stack
    stack.stop()


@pytest.fixture
def shared_arena(shared_stack: Arena) -> Iterator[Arena]:
    view = on_clean_database(shared_stack)
    yield view
    view.stop()
