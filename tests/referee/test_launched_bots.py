"""Bots the arena launches from a command get one process per seat: partners never
share a process, so they cannot share hidden cards through memory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.games import get_game
from arena.processes import arena_command
from tests.support.paths import TESTS

SPY = f"{sys.executable} {TESTS / 'bots' / 'spy_bot.py'} --port {{port}}"


@pytest.mark.parametrize("game", ["bid-euchre", "seep"])
def test_each_seat_gets_its_own_process(game: str, tmp_path: Path) -> None:
    command = f"{SPY} --out-dir {tmp_path}"
    info = get_game(game).info
    done = subprocess.run(
        arena_command(
            "match", "play", "--game", game, "--bot-command", command, "--bot-command", command,
            "--replay-dir", str(tmp_path / "replays"), "--json",
        ),
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["end"] == "MATCH_END_COMPLETED"
    logs = sorted(tmp_path.glob("*.jsonl"))
    assert len(logs) == info.num_seats  # one process per seat, even given per team
    seats_by_process = {
        log.stem: {json.loads(line).get("seat", 0) for line in log.read_text().splitlines()}
        for log in logs
    }
    assert all(len(seats) == 1 for seats in seats_by_process.values()), seats_by_process
    assert sorted(s for seats in seats_by_process.values() for s in seats) == list(
        range(info.num_seats)
    )
    for pid in seats_by_process:  # and every one of them was stopped
        with pytest.raises(ProcessLookupError):
            os.kill(int(pid), 0)


def test_a_command_that_does_not_serve_is_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        arena_command(
            "match", "play", "--game", "seep",
            "--bot-command", "false {port}", "--bot-command", "false {port}",
        ),
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr == "arena: error: bot command exited with code 1: false {port}\n"
