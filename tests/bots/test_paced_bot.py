"""The paced example bot takes its time over each decision, and with a pace file only
while that file exists (how a watcher lets a match finish at full speed)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from arena import wire
from arena.bots.examples.paced import PacedBot
from arena.games import get_game
from arena.v1 import bot_pb2


def _request() -> bot_pb2.ActRequest:
    state = get_game("bid-euchre").new_state(3, {})
    return wire.act_request(
        state, match_id="m", decision_index=0, deadline_s=1.0, legal=state.legal_actions()
    )


def test_it_waits_only_while_its_pace_file_exists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(asyncio, "sleep", sleep)
    pace = tmp_path / "pace"
    bot = PacedBot(delay_ms=120, pace_file=str(pace))
    request = _request()
    legal = {a.id for a in request.legal_actions}
    pace.touch()
    assert asyncio.run(bot.act(request)) in legal
    assert waits == [0.12]
    pace.unlink()
    assert asyncio.run(bot.act(request)) in legal
    assert waits == [0.12]  # no wait once the file is gone
    assert asyncio.run(PacedBot(delay_ms=30).act(request)) in legal
    assert waits == [0.12, 0.03]  # without a pace file: always
