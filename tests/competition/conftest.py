"""One API with an operator token for the module's tests, on a database of its own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arena.local_redis import LocalRedis
from tests.competition.helpers import Api, start_api


@pytest.fixture(scope="module")
def api(local_redis: LocalRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    # Joins are limited per address, and every test joins from 127.0.0.1: a budget no
    # test reaches but the rate limit's own, which starts an API of its own.
    started = start_api(
        local_redis,
        tmp_path_factory.mktemp("api"),
        "--join-burst",
        "10000",
        "--joins-per-minute",
        "60000",
    )
    yield started
    started.stop()
