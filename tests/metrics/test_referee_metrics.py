"""The referee's /metrics: the right counts after a real match, and an exposition that
promtool accepts."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from arena import wire
from arena.processes import Service
from arena.v1 import referee_pb2, referee_pb2_grpc
from tests.support.bots import BotFactory
from tests.support.metrics import samples, scrape
from tests.support.referee import start_metered_referee


@pytest.fixture
def metered_referee(tmp_path: Path) -> Iterator[tuple[Service, str]]:
    service, port = start_metered_referee(tmp_path)
    yield service, f"http://127.0.0.1:{port}/metrics"
    service.stop()


def test_decisions_latency_faults_and_matches_are_counted(
    metered_referee: tuple[Service, str], start_bot: BotFactory, basic_bot: Service
) -> None:
    referee, url = metered_referee
    chaos = start_bot("chaos", "--mode", "illegal", "--after", "4")
    with grpc.insecure_channel(referee.address) as channel:
        result = referee_pb2_grpc.RefereeStub(channel).PlayMatch(
            referee_pb2.PlayMatchRequest(
                game="bid-euchre",
                bots=[basic_bot.address, chaos.address],
                seed=3,
                move_deadline=wire.duration(2.0),
            )
        )
    assert result.end == referee_pb2.MATCH_END_FORFEIT
    text = scrape(url)
    values = samples(text)
    game = (("game", "bid-euchre"),)
    ok = values[("arena_referee_decisions_total", (*game, ("outcome", "ok")))]
    illegal = values[("arena_referee_decisions_total", (*game, ("outcome", "illegal_action")))]
    assert illegal == 3
    assert ok + illegal == result.decisions + 1  # the forfeiting decision is asked, not played
    assert (
        values[("arena_referee_faults_total", (("bot", chaos.address), ("kind", "illegal_action")))]
        == 3
    )
    asked = {
        bot: values[("arena_referee_decision_seconds_count", (("bot", bot), *game))]
        for bot in (basic_bot.address, chaos.address)
    }
    assert sum(asked.values()) == ok + illegal
    assert asked[chaos.address] >= 5  # its 2 bids among the first 4 decisions, then 3 bad
    assert values[("arena_referee_matches_running", ())] == 0
    assert values[("arena_referee_match_duration_seconds_count", (("end", "forfeit"), *game))] == 1


def test_exposition_passes_promtool(metered_referee: tuple[Service, str]) -> None:
    promtool = shutil.which("promtool")
    assert promtool is not None, "promtool is missing: make test installs Debian's prometheus"
    checked = subprocess.run(
        [promtool, "check", "metrics"],
        input=scrape(metered_referee[1]),
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
