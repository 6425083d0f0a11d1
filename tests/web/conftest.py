"""Fixtures shared by this directory's tests: one small tournament played by a real arena,
with the leaderboard web server in front of its API (``played``, for a module), and the
replay viewer served in process from recorded replays (``served``, for the session)."""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn

from arena.local_redis import LocalRedis
from arena.throttle import Throttle
from arena.web.app import create_app
from arena.web.server import listen, url_of
from tests.replay.matches import play_all, play_games
from tests.support.real_arena import BOTS, GAMES, Played, real_arena
from tests.support.viewer import (
    THROWN_IN,
    ReplaySource,
    Served,
    noting,
)


@pytest.fixture(scope="module")
def played(local_redis: LocalRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    with real_arena(local_redis, tmp_path_factory.mktemp("web-replays")) as stack:
        arena = stack.arena
        arena.start_worker("web1", concurrency=2)
        for name, flags in BOTS.items():
            arena.start_bot(name, *flags)
        tournament = arena.submit(list(BOTS), deals=1, master_seed=3, games=GAMES, name="web")
        finished = arena.wait_until(tournament.id, timeout=60)
        yield Played(arena, finished, stack.serve())


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    # Playing the matches is most of its cost, and no test changes them: played once
    # for both modules that read them (test_viewer, test_browser). Idle, the server is a
    # thread asleep in this process; ``played``, a real arena of several processes, stays
    # per module rather than idle for the rest of the session.
    played = play_all(Path(tmp_path_factory.mktemp("viewer")))
    replays = dict(played.replays)
    newer = copy.deepcopy(replays["seep"])
    newer["version"] = 2
    replays["newer"] = newer
    whole = play_games(Path(tmp_path_factory.mktemp("viewer-seep")), {"seep": {}})
    replays[THROWN_IN] = whole.replays["seep"]
    sock = listen("127.0.0.1", 0)
    # These tests read every frame and sent request of five matches, far faster than a
    # person steps through them: the per-client budget (test_throttle.py) is lifted.
    seen: list[tuple[str, int]] = []
    app = noting(
        create_app("api:1", ReplaySource(replays), costly=Throttle(rate_per_s=1e6, burst=10**6)),
        seen,
    )
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]})
    thread.start()
    while not server.started and thread.is_alive():
        time.sleep(0.01)
    try:
        yield Served(played, url_of(sock), seen)
    finally:
        server.should_exit = True
        thread.join()
        sock.close()
