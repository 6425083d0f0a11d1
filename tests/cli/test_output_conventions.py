"""The output conventions of docs/cli.md, held as exact text: exit codes (0 done, 1 a failed
check or result, 2 bad usage), one line per error, games by any spelling, snake_case
JSON with numbers as numbers, units and plurals, card symbols, notes that do not wrap."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arena.cli.parsers import GAME_HELP
from arena.cli.tournament import print_leaderboard
from arena.processes import Service, free_port
from arena.v1 import arena_pb2
from arena.wording import count, plural
from tests.support.bots import BotFactory
from tests.support.cli import arena

UNKNOWN = (
    "argument --game: unknown game 'euchre' (did you mean 'bid-euchre'?); "
    "available games: baloot, bid-euchre, bridgette, persian-rummy, seep"
)


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("match play", ("--bot", "127.0.0.1:1")),
        ("play", ()),
        ("tournament run", ("--entry", "a", "--entry", "b")),
        ("leaderboard", ()),
        ("test", ("new", "--vs", "old")),
        ("bot check", ("127.0.0.1:1",)),
    ],
)
def test_every_game_flag_says_the_same_line_before_calling_anything(
    command: str, args: tuple[str, ...]
) -> None:
    # Nothing listens at --api's default or at the addresses: usage is checked first.
    done = arena(*command.split(), *args, "--game", "euchre")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == f"arena {command}: error: {UNKNOWN} (see arena {command} --help)\n"


def test_match_play_help_lists_the_games() -> None:
    done = arena("match", "play", "--help")
    assert done.returncode == 0
    assert " ".join(GAME_HELP.split()) in " ".join(done.stdout.split())


def test_a_match_as_text_with_units_and_the_replay_command_that_works(
    tmp_path: Path, start_bot: BotFactory
) -> None:
    house = start_bot("house")
    played = arena(
        "match", "play", "--game", "Seep", "--bot", house.address, "--bot", house.address,
        "--seed", "4", "--match-id", "snap", "--replay-dir", str(tmp_path),
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    assert played.stdout == (
        "match snap: seep, seed 4, 49 decisions\n"
        f"  team 0 (seats 0, 2; {house.address}): 0 bazzis, 0 faults\n"
        f"  team 1 (seats 1, 3; {house.address}): 1 bazzi, 0 faults\n"
        "team 1 wins\n"
        f"replay: snap  (arena replay show snap --replay-dir {tmp_path})\n"
    )
    command = played.stdout.splitlines()[-1].split("(", 1)[1].rstrip(")").split()
    shown = arena(*command[1:])  # the very command printed, which finds the replay
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[-1] == "Result: team 1 wins, scores 0 : 1 bazzis, 49 decisions, 0 faults"
    decisions = [line for line in lines if re.match(r"  seat \d: ", line)]
    assert "  seat 2: throw J♣" in [line[:19].rstrip() for line in decisions]
    # Cards read as the tables show them (Q♥ 10♠), never as wire codes (QH TS).
    assert not [line for line in decisions if re.search(r"\b[2-9TJQKA][CDHS]\b", line)]


def test_json_is_snake_case_with_scores_as_numbers_and_seeds_as_strings(
    tmp_path: Path, start_bot: BotFactory
) -> None:
    house = start_bot("house")
    played = arena(
        "match", "play", "--game", "seep", "--bot", house.address, "--bot", house.address,
        "--seed", "4", "--replay-dir", str(tmp_path), "--json",
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    result = json.loads(played.stdout)
    assert {"match_id", "replay_id", "winner_team", "seat_faults"} <= set(result)
    assert not [key for key in result if re.search("[A-Z]", key)]
    assert [team["score"] for team in result["teams"]] == [0, 1]
    assert result["seed"] == "4"  # uint64: a string in proto3 JSON, exact past 2^53


def test_a_seat_never_reached_is_one_line_and_exit_1(tmp_path: Path, start_bot: BotFactory) -> None:
    house = start_bot("house")
    nowhere = f"127.0.0.1:{free_port()}"
    played = arena(
        "match", "play", "--game", "seep", "--bot", nowhere, "--bot", house.address,
        "--replay-dir", str(tmp_path),
    )  # fmt: skip
    assert played.returncode == 1
    assert played.stdout == ""
    assert played.stderr == (
        f"arena: error: could not reach the bot of seats 0, 2 at {nowhere}: "
        "no answer to Hello within 2 s (Connection refused)\n"
    )


def test_a_match_lost_on_faults_is_a_result_exit_0(
    tmp_path: Path, start_bot: BotFactory, basic_bot: Service
) -> None:
    chaos = start_bot("chaos", "--mode", "illegal", "--after", "3")
    played = arena(
        "match", "play", "--game", "bid-euchre", "--bot", basic_bot.address,
        "--bot", chaos.address, "--max-faults", "1", "--replay-dir", str(tmp_path),
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    assert "team 1 forfeits; team 0 wins" in played.stdout.splitlines()


def test_leaderboard_notes_are_one_line_each_however_long(
    capsys: pytest.CaptureFixture[str],
) -> None:
    caveat = "a caveat long enough to pass the table's width of 120 columns " * 3
    board = arena_pb2.Leaderboard(
        matches=12,
        min_pairs=6,
        caveats=[caveat.strip()],
        rows=[
            arena_pb2.LeaderboardRow(
                rank=1, bot="b", status=arena_pb2.RATING_STATUS_PROVISIONAL, pairs=2, note="n"
            )
        ],
    )
    print_leaderboard(board)
    lines = capsys.readouterr().out.splitlines()
    assert lines[-3:] == [
        "b: n.",
        "Ranked by Elo: established ratings (6 pairs or more, in every game) first, then "
        "provisional ones, marked ?, whose estimates run ahead of the truth with fewer pairs "
        "(their 95% intervals stay honest).",
        f"Note: {caveat.strip()}.",
    ]


def test_counts_read_as_people_say_them() -> None:
    assert [count(n, "trick") for n in (0, 1, 2)] == ["0 tricks", "1 trick", "2 tricks"]
    assert (count(1, "bazzi"), count(3, "bazzi")) == ("1 bazzi", "3 bazzis")
    assert (plural("match", 2), plural("seat", 1)) == ("matches", "seat")
