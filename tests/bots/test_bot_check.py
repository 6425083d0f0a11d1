"""``arena bot check``: the bot author's test run against the house bot."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from arena.games import game_names
from arena.processes import arena_command, start_service
from arena.wording import printable
from tests.support.bots import BotFactory
from tests.support.paths import TESTS


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
    malformed = check("127.0.0.1:")
    assert malformed.returncode == 1 and "malformed bot address" in malformed.stderr
    unknown = check("no-port")  # a name, not an address: no such bot to start here
    assert (unknown.returncode, unknown.stderr.count("\n")) == (2, 1)
    assert unknown.stderr.startswith("arena: error: unknown bot 'no-port': give an example")
    assert unknown.stderr.endswith(" (or a running bot's HOST:PORT)\n")


GREEDY = """
from arena.bots import Bot, serve


class Greedy(Bot):
    name = "greedy"
    version = "2"
    games = ("seep",)

    def act(self, request):
        captures = [a for a in request.legal_actions if a.seep.WhichOneof("kind") == "capture"]
        return (captures or request.legal_actions)[0].id


if __name__ == "__main__":
    serve(Greedy(), port=50070)  # never reached: the check loads it as a module
"""


def test_a_bot_file_is_started_and_checked_without_a_server(tmp_path: Path) -> None:
    (tmp_path / "greedy.py").write_text(GREEDY)
    done = subprocess.run(
        arena_command("bot", "check", "greedy.py", "--matches", "2", "--json"),
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["name"], report["version"], report["address"]) == ("greedy", "2", "greedy.py")
    (game,) = report["games"]
    assert game["game"] == "seep" and game["matches"] == 2 and game["faults"] == {}
    text = check(f"{tmp_path / 'greedy.py'}:Greedy", "--matches", "1")
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines()[0] == f"bot greedy 2 at {tmp_path / 'greedy.py'}:Greedy"
    example = check("seep-basic", "--matches", "1", "--json")  # an example bot, by name
    assert example.returncode == 0, example.stderr
    assert json.loads(example.stdout)["games"][0]["game"] == "seep"


def test_a_bot_command_starts_one_process_per_seat_of_its_team(tmp_path: Path) -> None:
    command = (
        f"{sys.executable} {TESTS / 'bots' / 'spy_bot.py'} --port {{port}} --out-dir {tmp_path}"
    )
    done = check("--bot-command", command, "--game", "bid-euchre", "--matches", "2", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["games"][0]["faults"] == {}
    logs = sorted(tmp_path.glob("*.jsonl"))
    assert len(logs) == 2  # a team of two seats: two processes
    seats = [
        {json.loads(line).get("seat", 0) for line in log.read_text().splitlines()} for log in logs
    ]
    # The bot was team 0 (seats 0 and 2), then team 1 (1 and 3): a process a seat each time.
    assert sorted(map(sorted, seats)) == [[0, 1], [2, 3]]


def test_a_bot_command_without_its_port_and_a_missing_bot_are_refused_at_once() -> None:
    done = check("--bot-command", "python3 bot.py")
    assert (done.returncode, done.stdout, done.stderr.count("\n")) == (2, "", 1)
    assert done.stderr.startswith(
        "arena bot check: error: argument --bot-command: 'python3 bot.py' has no {port}: "
        "the arena starts each process on a free port of its choosing and puts the number "
        "where {port} is, as in 'python bot.py --port {port}'"
    )
    for args in ((), ("house", "--bot-command", "x --port {port}")):
        done = check(*args)
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr == (
            "arena: error: give the bot to check: a running bot's HOST:PORT, FILE.py[:CLASS], "
            "MODULE:CLASS or an example bot, or --bot-command CMD\n"
        )


HOSTILE_HELLO = """
import sys
from arena.bots.examples import RandomBot
from arena.bots.sdk import serve

class Loud(RandomBot):
    name = "\\x1b]0;owned\\x07loud\\x1b[2J\\u202egnp"
    version = "1\\x1b[31m"
    games = ("seep",)

serve(Loud(seed=1), port=0)
"""


def test_a_bots_hello_name_reaches_the_terminal_with_its_control_characters_escaped(
    tmp_path: Path,
) -> None:
    script = tmp_path / "loud.py"
    script.write_text(HOSTILE_HELLO)
    bot = start_service([sys.executable, str(script)])
    try:
        done = check(bot.address, "--matches", "1", "--game", "seep")
    finally:
        bot.stop()
    first = done.stdout.splitlines()[0]
    assert first.startswith("bot \\x1b]0;owned\\x07loud\\x1b[2J\\u202egnp 1\\x1b[31m at ")
    assert not any(c in done.stdout for c in "\x1b\x07\u202e")


def test_printable_escapes_controls_and_bidi_overrides_and_keeps_the_rest() -> None:
    assert printable("plain, ünïcode ♠") == "plain, ünïcode ♠"
    assert printable("a\x1b[2Jb\x9b\x7f\u2066") == "a\\x1b[2Jb\\x9b\\x7f\\u2066"
    assert printable("one\n\ttwo\r") == "one\\x0a\\x09two\\x0d"
    assert printable("one\n\ttwo\r", lines=True) == "one\n\ttwo\\x0d"
