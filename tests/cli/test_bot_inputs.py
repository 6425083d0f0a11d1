"""How a command line names the bots it plays: ``--bot ADDR`` (a running bot) and
``--bot-command CMD`` (one process per seat, on the port put where ``{port}`` is) mix in
the order given, and a command that says nowhere where its port goes is refused at once."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from arena.bots.launch import LaunchError, launched, per_seat
from tests.support.bots import BotFactory
from tests.support.cli import arena
from tests.support.paths import TESTS

SPY = f"{sys.executable} {TESTS / 'bots' / 'spy_bot.py'} --port {{port}}"


def seats_by_process(out_dir: Path) -> list[set[int]]:
    """The seats each spy process was asked for, one set per process."""
    return [
        {json.loads(line).get("seat", 0) for line in log.read_text().splitlines()}
        for log in sorted(out_dir.glob("*.jsonl"))
    ]


@pytest.mark.parametrize("command_first", [False, True])
def test_bot_and_bot_command_mix_in_the_order_given(
    tmp_path: Path, start_bot: BotFactory, command_first: bool
) -> None:
    house = start_bot("house")
    flags = [["--bot", house.address], ["--bot-command", f"{SPY} --out-dir {tmp_path}"]]
    if command_first:
        flags.reverse()
    done = arena(
        "match", "play", "--game", "seep", *flags[0], *flags[1], "--json",
        "--replay-dir", str(tmp_path / "replays"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["end"] == "MATCH_END_COMPLETED"
    house_team, spy_team = (1, 0) if command_first else (0, 1)
    teams = {team["team"]: team for team in result["teams"]}
    assert teams[house_team]["bots"] == [house.address, house.address]
    spies = teams[spy_team]["bots"]
    assert len(set(spies)) == 2 and house.address not in spies  # a process per seat
    seats = seats_by_process(tmp_path)
    assert sorted(map(sorted, seats)) == [[spy_team], [spy_team + 2]]


def test_only_addresses_play_as_before(start_bot: BotFactory, tmp_path: Path) -> None:
    house = start_bot("house")
    done = arena(
        "match", "play", "--game", "bridgette", "--bot", house.address, "--bot", house.address,
        "--option", "deals=1", "--json", "--replay-dir", str(tmp_path),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["end"] == "MATCH_END_COMPLETED"


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ("--bot-command", "python3 bot.py"),
            "argument --bot-command: 'python3 bot.py' has no {port}: the arena starts each "
            "process on a free port of its choosing and puts the number where {port} is, as "
            "in 'python bot.py --port {port}'",
        ),
        (
            ("--bot", "127.0.0.1:1", "--bot-command", "false"),
            "argument --bot-command: 'false' has no {port}",
        ),
        (
            ("--bot", "python3 bot.py --port {port}"),
            "argument --bot: 'python3 bot.py --port {port}' is a command: --bot-command "
            "starts it; --bot takes a running bot's host:port",
        ),
    ],
)
def test_a_command_without_its_port_is_refused_before_anything_starts(
    flags: tuple[str, ...], message: str
) -> None:
    done = arena("match", "play", "--game", "seep", *flags)
    assert (done.returncode, done.stdout, done.stderr.count("\n")) == (2, "", 1)
    assert done.stderr.startswith(f"arena match play: error: {message}")


def test_launched_passes_addresses_through_and_refuses_a_command_without_its_port() -> None:
    running = ["127.0.0.1:50061", "unix:/tmp/bot.sock"]
    with launched(running) as addresses:  # nothing to start
        assert addresses == running
    refused = r"^bot command 'python3 bot\.py' has no \{port\}: "
    with pytest.raises(LaunchError, match=refused), launched(["127.0.0.1:1", "python3 bot.py"]):
        pytest.fail("nothing may start")
    assert per_seat(["a:1", "b {port}"], (0, 1, 0, 1)) == ["a:1", "b {port}", "a:1", "b {port}"]
    with pytest.raises(LaunchError, match=r"^give one bot \(--bot or --bot-command\) per seat"):
        per_seat(["a:1", "b:2", "c:3"], (0, 1, 0, 1))
