"""The tournament commands as a user runs them, and a cluster with a dead referee."""

from __future__ import annotations

import csv
import io
import json
import random

import pytest

from arena.local_redis import free_port
from arena.ratings.leaderboard import leaderboard
from arena.ratings.texts import elo_text
from arena.store import TournamentStore
from tests.support.arena import Arena
from tests.support.cli import arena_cli

SHARED = True  # one referee and API for the module (tests/tournament/conftest.py)


def test_run_wait_shows_progress_then_the_leaderboard_and_exports(arena: Arena) -> None:
    arena.start_worker("w1", concurrency=2)
    api = arena.api.address
    house = arena.start_bot("spare", "house")  # started and registered through the API...
    registered = arena_cli(api, "bot", "register", "house", house.address)
    assert registered.returncode == 0, registered.stderr
    assert registered.stdout.startswith(f"registered house at {house.address}: house 1, plays ")
    arena.start_bot("rand", "random", "--seed", "4")
    assert arena_cli(api, "bot", "list").stdout.splitlines()[0].startswith("house ")

    done = arena_cli(
        api,
        "tournament",
        "run",
        "--entry",
        "house",
        "--entry",
        "rand",
        "--game",
        "bid-euchre",
        "--deals",
        "3",
        "--seed",
        "8",
        "--wait",
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    tournament_id = lines[0].split()[1]
    assert lines[0].startswith(f"tournament {tournament_id} (running, round robin): 0/6 matches")
    assert lines[1].startswith(
        f"tournament {tournament_id} (finished, round robin): 6/6 matches, 0 forfeits"
    )
    assert "Leaderboard, all games, tournament" in done.stdout
    assert "6/6" in done.stderr  # the progress bar's last state
    rows = [
        [cell.strip() for cell in line.split("│")[1:-1]] for line in lines if line.startswith("│")
    ]
    # Six pairs each: provisional, marked ?, and ranked; a clean sweep each way is shown
    # by its one-sided bound, and the loser's is never called a perfect record.
    assert [row[:2] for row in rows] == [["1", "house"], ["2", "rand"]]
    assert rows[0][2].startswith("≥ +") and rows[1][2].startswith("≤ -")
    assert rows[0][2].endswith("?") and rows[1][2].endswith("?")
    assert (
        "house: provisional in bid-euchre (6 of 20 pairs); won every pair in bid-euchre (at least "
        in done.stdout
    )
    assert (
        "rand: provisional in bid-euchre (6 of 20 pairs); lost every pair in bid-euchre (at most "
        in done.stdout
    )
    assert "perfect" not in done.stdout
    assert "Ranked by Elo: established ratings (20 pairs or more, in every game) first, " in (
        done.stdout
    )
    # An open tournament rates every match on its own deal: 6 rated matches each.
    assert rows[0][5] == "6-0-0" and rows[1][5] == "0-0-6"
    assert "fair play open, operator's seed, commitment " in lines[0]
    assert "fair play open, operator's seed 8 revealed" in lines[1]
    assert "Note: 6 of these results were dealt from an operator's master seed" in done.stdout

    status = arena_cli(api, "tournament", "status", tournament_id)
    assert status.stdout.startswith(
        f"tournament {tournament_id} (finished, round robin): 6/6 matches"
    )

    as_json = json.loads(
        arena_cli(api, "leaderboard", "--tournament", tournament_id, "--json").stdout
    )
    assert [row["bot"] for row in as_json["rows"]] == ["house", "rand"]
    assert as_json["rows"][0]["wins"] == 6
    assert [rows[i][2] for i in (0, 1)] == [
        f"≥ {elo_text(as_json['rows'][0]['elo_bound'])}?",
        f"≤ {elo_text(as_json['rows'][1]['elo_bound'])}?",
    ]
    compared = arena_cli(
        api, "leaderboard", "--tournament", tournament_id, "--compare", "house", "rand", "--json"
    )
    comparison = json.loads(compared.stdout)
    difference = as_json["rows"][0]["elo"] - as_json["rows"][1]["elo"]
    assert comparison["elo_difference"] == pytest.approx(difference)
    assert comparison["ci95"] > 0 and comparison["los"] > 0.5  # six wins of six
    said = arena_cli(api, "leaderboard", "--compare", "rand", "house").stdout.splitlines()
    assert said[0].startswith(
        f"rand - house: {-difference:+.0f} ± {comparison['ci95']:.0f} Elo (95%), LOS "
    )
    # Where each stands, as the board shows it.
    assert said[1:3] == [
        f"rand: rank 2, {rows[1][2]}, provisional",
        f"house: rank 1, {rows[0][2]}, provisional",
    ]
    assert said[3].startswith("A provisional rating has fewer than 20 pairs")
    refused = arena_cli(api, "leaderboard", "--compare", "house", "ghost")
    assert refused.returncode == 1
    assert (
        refused.stderr
        == "arena: error: INVALID_ARGUMENT: no rating for ghost on this board; ranked: house, rand\n"
    )
    matrix = arena_cli(api, "leaderboard", "--los").stdout
    assert "Likelihood of superiority" in matrix
    assert f"{100 * comparison['los']:.0f}" in matrix
    as_csv = list(csv.DictReader(io.StringIO(arena_cli(api, "leaderboard", "--csv").stdout)))
    assert [row["bot"] for row in as_csv] == ["house", "rand"]
    assert float(as_csv[0]["elo"]) == round(as_json["rows"][0]["elo"], 1)

    results = json.loads(arena_cli(api, "tournament", "results", tournament_id).stdout)
    assert len(results) == 6 and {r["end"] for r in results} == {"RESULT_END_COMPLETED"}
    exported = arena_cli(api, "tournament", "results", tournament_id, "--csv").stdout
    table = list(csv.DictReader(io.StringIO(exported)))
    assert [r["match_id"] for r in table] == [r["match_id"] for r in results]
    assert {r["entry_0"] for r in table} == {"house", "rand"}

    # The same stored results, read back in any order, rate the same.
    stored = TournamentStore(arena.redis).results(tournament_id)
    shuffled = stored[:]
    random.Random(1).shuffle(shuffled)
    assert leaderboard(stored) == leaderboard(shuffled) == leaderboard(list(reversed(stored)))


def test_bad_command_lines_are_one_line_errors(arena: Arena) -> None:
    api = arena.api.address
    unknown = arena_cli(api, "tournament", "status", "t-nope")
    assert unknown.returncode == 1
    assert unknown.stderr == "arena: error: NOT_FOUND: no tournament 't-nope'\n"
    too_few = arena_cli(api, "tournament", "run", "--entry", "solo")
    assert too_few.stderr == (
        "arena: error: INVALID_ARGUMENT: a tournament needs at least 2 entries, got 1\n"
    )
    dead = arena_cli(f"127.0.0.1:{free_port()}", "bot", "list")
    assert dead.returncode == 1 and dead.stderr.startswith(
        "arena: error: cannot reach the arena API"
    )


def test_matches_sent_to_a_dead_referee_are_retried_on_a_live_one(arena: Arena) -> None:
    dead = f"127.0.0.1:{free_port()}"
    arena.start_worker("w", concurrency=2, referees=[dead, arena.referee.address])
    arena.start_bot("a", "random", "--seed", "1")
    arena.start_bot("b", "random", "--seed", "2")
    tournament = arena.submit(["a", "b"], deals=5, games=["bid-euchre"])
    arena.wait_until(tournament.id)
    results = TournamentStore(arena.redis).results(tournament.id)
    assert len(results) == 10
    assert {r.referee for r in results} == {arena.referee.address}
