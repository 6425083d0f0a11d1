"""The ``arena`` command as a user meets it: help everywhere, one-line errors, real runs."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from arena.cli import parser as cli_parser
from arena.games import game_names
from arena.processes import Service, free_port
from tests.support.cli import arena


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [path]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += _commands(sub, (*path, name))
    return found


@pytest.mark.parametrize("command", _commands(cli_parser()), ids=" ".join)
def test_every_command_has_help(command: tuple[str, ...]) -> None:
    done = arena(*command, "--help")
    assert done.returncode == 0
    assert done.stdout.startswith("usage: arena")


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (("match", "play", "--bot", "x:1"), 2, "the following arguments are required: --game"),
        (
            ("match", "play", "--game", "bid-euchre", "--bot", "a:1", "--seed", "many"),
            2,
            "invalid int value: 'many'",
        ),
        (
            ("bot", "serve", "alphazero"),
            2,
            "unknown bot 'alphazero'; example bots: baloot-basic, bid-euchre-basic, bridgette-basic, chaos, house, paced, persian-rummy-basic, random, seep-basic",
        ),
        (("bot", "serve", "chaos", "--mode", "sulk"), 2, "unknown chaos mode 'sulk'"),
        (
            ("match", "play", "--game", "go", "--bot", "127.0.0.1:1", "--bot", "127.0.0.1:2"),
            2,
            "argument --game: unknown game 'go'; available games: baloot, bid-euchre,",
        ),
        (
            (
                "match",
                "play",
                "--game",
                "bid-euchre",
                "--bot",
                "a:1",
                "--bot",
                "b:2",
                "--option",
                "x",
            ),
            2,
            "--option takes NAME=VALUE, got 'x'",
        ),
        (
            ("replay", "show", "no-such-replay", "--replay-dir", "/nonexistent"),
            1,
            "no replay 'no-such-replay'",
        ),
        (("replay", "show", "/nonexistent/replay.json"), 1, "cannot read /nonexistent/replay.json"),
        (
            ("tournament", "run", "--entry", "a", "--entry", "b", "--rounds", "3"),
            2,
            "--rounds is for --format swiss",
        ),
        (
            ("tournament", "run", "--format", "swiss", "--entry", "a", "--entry", "b"),
            2,
            "--format swiss needs --rounds N",
        ),
        (
            ("tournament", "run", "--format", "gauntlet", "--entry", "a", "--entry", "b"),
            2,
            "--format gauntlet needs --challenger BOT",
        ),
        (("tournament", "run", "--format", "elimination"), 2, "invalid choice: 'elimination'"),
        (("test", "new", "--game", "seep"), 2, "the following arguments are required: --vs"),
    ],
)
def test_errors_are_one_line_and_a_nonzero_exit(
    args: tuple[str, ...], code: int, message: str
) -> None:
    done = arena(*args)
    assert done.returncode == code
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("arena")
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_unreachable_referee_is_one_line() -> None:
    address = f"127.0.0.1:{free_port()}"
    done = arena("games", "--referee", address)
    assert done.returncode == 1
    assert done.stderr == f"arena: error: cannot reach a referee at {address}\n"


def test_games_lists_each_game_with_its_options() -> None:
    done = arena("games")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    headers = [line.split()[0] for line in lines if not line.startswith(" ")]
    assert headers == game_names()
    start = lines.index("bid-euchre     Bid Euchre, 4 seats, 2 teams")
    assert lines[start : start + 5] == [
        "bid-euchre     Bid Euchre, 4 seats, 2 teams",
        "    stick_the_dealer=true  After three passes the dealer must call; off: four passes throw the hand in.",
        "    ace_no_face=false  Before the calls, a hand with an ace and no K, Q or J may be thrown in.",
        "    joker=false  25 cards: the dealer gets 7 and discards one face down (seen by the dealer alone) before the calls; the joker is the highest trump, above the right bower.",
        "    max_hands=100  Arena safeguard: after this many scored hands the higher score wins (equal scores are a draw).",
    ]


def test_match_play_then_replay_show(
    tmp_path: Path, basic_bot: Service, random_bot: Service
) -> None:
    done = arena(
        "match",
        "play",
        "--game",
        "bid-euchre",
        "--bot",
        basic_bot.address,
        "--bot",
        random_bot.address,
        "--seed",
        "12",
        "--json",
        "--replay-dir",
        str(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["game"] == "bid-euchre"
    assert result["seed"] == "12"
    assert result["end"] == "MATCH_END_COMPLETED"
    assert len(result["teams"]) == 2

    shown = arena("replay", "show", result["replay_id"], "--replay-dir", str(tmp_path))
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == f"bid-euchre match {result['match_id']}  seed 12"
    assert "Hand 1, dealer seat" in shown.stdout
    assert sum(line.startswith("  seat 0 holds ") for line in lines) == len(
        [line for line in lines if line.startswith("Hand ")]
    )
    scores = " : ".join(str(t["score"]) for t in result["teams"])
    assert lines[-1].startswith(
        f"Result: team {result['winner_team']} wins, scores {scores} points, "
    )

    by_path = arena("replay", "show", str(tmp_path / f"{result['replay_id']}.json"))
    assert by_path.stdout == shown.stdout


def test_match_play_through_a_running_referee(
    referee: Service, basic_bot: Service, random_bot: Service
) -> None:
    done = arena(
        "match",
        "play",
        "--game",
        "bid-euchre",
        "--bot",
        basic_bot.address,
        "--bot",
        random_bot.address,
        "--referee",
        referee.address,
        "--seed",
        "5",
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("match ") and ": bid-euchre, seed 5, " in lines[0]
    assert lines[1].startswith(f"  team 0 (seats 0, 2; {basic_bot.address}): ")
    assert lines[2].startswith(f"  team 1 (seats 1, 3; {random_bot.address}): ")
    assert lines[-1].startswith("replay: ")
