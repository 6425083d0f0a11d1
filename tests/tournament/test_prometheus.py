"""A real Prometheus (Debian's) scrapes a referee and a worker during a tournament, and
the Elo series come back through its HTTP query API."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.local_redis import free_port
from arena.processes import Service
from arena.v1 import arena_pb2
from tests.support.arena import Arena
from tests.support.referee import start_metered_referee


@pytest.fixture
def metered_referee(tmp_path: Path) -> Iterator[tuple[Service, int]]:
    referee, port = start_metered_referee(tmp_path / "replays")
    yield referee, port
    referee.stop()


def start_prometheus(
    tmp_path: Path, targets: dict[str, int]
) -> tuple[subprocess.Popen[bytes], str]:
    binary = shutil.which("prometheus")
    assert binary, "prometheus is missing: run `make promtool` (Debian's prometheus package)"
    config = {
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
        "scrape_configs": [
            {"job_name": job, "static_configs": [{"targets": [f"127.0.0.1:{port}"]}]}
            for job, port in targets.items()
        ],
    }
    (tmp_path / "prometheus.yml").write_text(json.dumps(config))  # JSON is YAML
    port = free_port()
    process = subprocess.Popen(
        [
            binary,
            f"--config.file={tmp_path / 'prometheus.yml'}",
            f"--storage.tsdb.path={tmp_path / 'tsdb'}",
            f"--web.listen-address=127.0.0.1:{port}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=(tmp_path / "prometheus.log").open("wb"),
    )
    return process, f"http://127.0.0.1:{port}"


def query(base: str, promql: str) -> list[dict[str, Any]]:
    url = f"{base}/api/v1/query?" + urllib.parse.urlencode({"query": promql})
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            body = json.load(response)
    except OSError:
        return []  # not up yet
    assert body["status"] == "success", body
    result: list[dict[str, Any]] = body["data"]["result"]
    return result


def poll(base: str, promql: str, want: int, timeout: float = 60) -> list[dict[str, Any]]:
    """The first answer with ``want`` series: the first scrapes take a few seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = query(base, promql)
        if len(result) == want:
            return result
        time.sleep(0.5)
    raise AssertionError(f"{promql!r} never gave {want} series; last answer {result}")


def test_prometheus_scrapes_the_arena_and_serves_the_elo_series(
    arena: Arena, metered_referee: tuple[Service, int], tmp_path: Path
) -> None:
    referee, referee_metrics = metered_referee
    worker_metrics = free_port()
    arena.start_worker(
        "scraped", referees=[referee.address], extra=["--metrics-port", str(worker_metrics)]
    )
    prometheus, base = start_prometheus(
        tmp_path, {"arena-referee": referee_metrics, "arena-workers": worker_metrics}
    )
    try:
        arena.start_bot("house", "house")
        arena.start_bot("rand", "random", "--seed", "8")
        tournament = arena.submit(["house", "rand"], deals=1, games=["bid-euchre", "baloot"])
        arena.wait_until(tournament.id)
        board = arena.stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest())

        series = poll(base, 'arena_rating_elo{game="all"}', want=2)
        elo = {s["metric"]["bot"]: float(s["value"][1]) for s in series}
        assert elo == pytest.approx({row.bot: row.elo for row in board.rows})
        assert {s["metric"]["job"] for s in series} == {"arena-workers"}

        ups = poll(base, "up == 1", want=2)
        assert {s["metric"]["job"] for s in ups} == {"arena-referee", "arena-workers"}
        played = poll(base, "sum(arena_worker_matches_played_total) == 4", want=1)
        assert float(played[0]["value"][1]) == 4
        decided = poll(base, "sum(arena_referee_decisions_total)", want=1)
        assert float(decided[0]["value"][1]) > 0
    finally:
        prometheus.terminate()
        prometheus.wait(timeout=30)
