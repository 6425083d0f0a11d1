"""``arena bot check``: the bot author's test run against the house bot."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from arena.games import game_names
from arena.processes import arena_command
from tests.conftest import BotFactory


def check(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        arena_command("bot", "check", *args), capture_output=True, text=True, timeout=300
    )


def test_a_sound_bot_passes_in_every_game_it_claims(start_bot: BotFactory) -> None:
    bot = start_bot("house")
    done = check(bot.address, "--matches", "2", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] and report["name"] == "house"
    assert [g["game"] for g in report["games"]] == sorted(game_names())
    for game in report["games"]:
        assert game["matches"] == 2 and game["faults"] == {}
        assert game["wins"] + game["draws"] + game["losses"] == 2
        assert game["decisions"] > 10
        latency = game["latency_ms"]
        assert 0 < latency["p50"] <= latency["p95"] <= latency["max"]
    text = check(bot.address, "--matches", "1", "--game", "seep")
    assert text.returncode == 0
    assert text.stdout.splitlines()[-1] == "ok: no faults"


def test_faults_are_reported_by_kind_and_fail_the_check(start_bot: BotFactory) -> None:
    bot = start_bot("chaos", "--mode", "illegal", "--after", "2")
    done = check(bot.address, "--game", "bid-euchre", "--matches", "2", "--json")
    assert done.returncode == 1
    (game,) = json.loads(done.stdout)["games"]
    assert game["faults"] == {"illegal_action": 6}  # 3 per match, then the forfeit
    assert game["forfeits"] == 2 and game["losses"] == 2


def test_games_the_bot_does_not_play_are_refused_in_one_line(
    start_bot: BotFactory, tmp_path: Path
) -> None:
    spy = start_bot("spy", "--out", f"{tmp_path}/log", "--games", "seep")
    only = check(spy.address, "--matches", "1", "--json")
    assert only.returncode == 0
    assert [g["game"] for g in json.loads(only.stdout)["games"]] == ["seep"]
    refused = check(spy.address, "--game", "baloot")
    assert refused.returncode == 1
    assert refused.stderr == "arena: error: bot 'spy' does not play baloot (it plays: seep)\n"
    malformed = check("no-port")
    assert malformed.returncode == 1 and "malformed bot address" in malformed.stderr
