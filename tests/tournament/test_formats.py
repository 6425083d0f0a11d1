"""Formats end to end: the scheduler hands out what each format asks for, a window at a
time, and the API, the CLI and the stored standings say where each stands."""

from __future__ import annotations

import json
import subprocess
import time
from typing import Any

import grpc
import pytest

from arena.games import game_names
from arena.processes import arena_command
from arena.store import BotRegistry, MatchResult, RegisteredBot, TournamentStore
from arena.store import keys as redis_keys
from arena.v1 import arena_pb2
from tests.support.arena import Arena

SHARED = True  # one referee and API for the module (tests/tournament/conftest.py)


def results_of(arena: Arena, tournament_id: str) -> list[MatchResult]:
    """The stored results in the order they finished."""
    found = TournamentStore(arena.redis).results(tournament_id)
    return sorted(found, key=lambda r: r.finished_at or 0.0)


def test_the_scheduler_keeps_at_most_a_window_out_and_plays_a_gauntlet(arena: Arena) -> None:
    arena.start_worker("w1", concurrency=2, env={"ARENA_SCHEDULE_WINDOW": "3"})
    for name in ("new", "a", "b"):
        arena.start_bot(name, "random", "--seed", str(ord(name[0])))
    tournament = arena.submit(
        ["new", "a", "b"],
        deals=3,
        games=["bid-euchre"],
        format=arena_pb2.FORMAT_GAUNTLET,
        gauntlet=arena_pb2.GauntletParams(challengers=["new"]),
    )
    assert tournament.matches_total == 2 * 3 * 2  # new-a and new-b, never a-b
    out = []
    while (t := arena.get(tournament.id)).state == arena_pb2.TOURNAMENT_STATE_RUNNING:
        out.append(t.matches_issued - t.matches_done)
        time.sleep(0.05)
    assert max(out) <= 3 and len(out) > 3, out
    results = results_of(arena, tournament.id)
    assert len(results) == len({r.match_id for r in results}) == 12
    assert {frozenset(r.entries) for r in results} == {
        frozenset({"new", "a"}),
        frozenset({"new", "b"}),
    }


def test_a_swiss_tournament_pairs_each_round_from_the_last_ones_results(arena: Arena) -> None:
    arena.start_worker("w1", concurrency=2)
    arena.start_bot("house", "house")
    arena.start_bot("r1", "random", "--seed", "1")
    arena.start_bot("r2", "random", "--seed", "2")
    tournament = arena.submit(
        ["r1", "r2", "house"],
        deals=2,
        games=["bid-euchre"],
        format=arena_pb2.FORMAT_SWISS,
        swiss=arena_pb2.SwissParams(rounds=2),
    )
    assert tournament.matches_total == 2 * 1 * 2 * 2  # rounds x tables x deals x seatings
    finished = arena.wait_until(tournament.id)
    swiss = finished.standings.swiss
    assert [r.round for r in swiss.rounds] == [1, 2] and all(r.complete for r in swiss.rounds)
    met = [frozenset((t.a, t.b)) for r in swiss.rounds for t in r.tables]
    assert len(met) == len(set(met)) == 2  # never the same pairing twice
    byes = [r.bye for r in swiss.rounds]
    assert len(set(byes)) == 2 and all(byes)  # each round one bye, never the same entry
    assert sorted(row.entry for row in swiss.table) == ["house", "r1", "r2"]
    assert sum(row.points for row in swiss.table) == 2 * 2  # a table's point and a bye each
    # Round 2 was handed out only once round 1 had every result.
    results = results_of(arena, tournament.id)
    first = [r for r in results if "-r1-" in r.match_id]
    second = [r for r in results if "-r2-" in r.match_id]
    assert len(first) == len(second) == 4
    assert max(r.finished_at or 0.0 for r in first) <= min(r.finished_at or 0.0 for r in second)


def test_a_knockout_is_seeded_by_the_arenas_ratings(arena: Arena) -> None:
    arena.start_worker("w1", concurrency=2)
    for name in ("low", "mid", "top"):
        arena.start_bot(name, "random", "--seed", str(len(name) + ord(name[0])))
    ratings = {  # one game: its own board counts, not the board of every game
        "": {"rows": [{"bot": "low", "elo": 300}, {"bot": "top", "elo": 0}]},
        "bid-euchre": {"rows": [{"bot": "top", "elo": 200}, {"bot": "mid", "elo": 0}]},
    }
    arena.redis.set(redis_keys.ratings(), json.dumps(ratings))
    tournament = arena.submit(
        ["low", "mid", "top"], games=["bid-euchre"], format=arena_pb2.FORMAT_KNOCKOUT
    )
    assert tournament.matches_total == 2 * 2  # two ties of one deal, both seatings
    bracket = arena.wait_until(tournament.id).standings.knockout
    first = bracket.rounds[0].ties
    seeds = {t.a: t.a_seed for t in first} | {t.b: t.b_seed for t in first if t.b}
    assert seeds == {"top": 1, "mid": 2, "low": 3}  # rated first, the unrated last
    assert [t.b for t in first if t.a == "top"] == [""]  # the top seed has the bye
    final = bracket.rounds[-1].ties[0]
    assert {final.a, final.b} >= {"top"} and bracket.champion == final.winner


def test_arena_test_runs_an_sprt_until_it_decides(arena: Arena) -> None:
    arena.start_worker("w1", concurrency=2)
    arena.start_bot("house", "house")
    arena.start_bot("rand", "random", "--seed", "3")
    command = arena_command(
        "test", "house", "--vs", "rand", "--game", "bid-euchre", "--elo0", "0",
        "--elo1", "50", "--option", "max_hands=4", "--api", arena.api.address,
    )  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "passed: H1 accepted, house is better than rand" in done.stdout
    tournament = arena.stub.ListTournaments(arena_pb2.ListTournamentsRequest()).tournaments[0]
    assert tournament.spec.game_options["bid-euchre"].options == {"max_hands": "4"}
    sprt = tournament.standings.sprt
    assert sprt.verdict == arena_pb2.SPRT_VERDICT_H1 and sprt.llr >= sprt.upper_in_force
    assert sprt.units == sprt.wins + sprt.draws + sprt.losses > 0
    assert tournament.matches_done == tournament.matches_issued  # the ones out finished
    # Two out per worker process, not the schedule window (256): house wins by hundreds
    # of points, so a few dozen results decide, and what is out then plays for nothing.
    assert tournament.matches_issued <= sprt.units + 2 * 2
    assert f"LLR {sprt.llr:+.2f}" in done.stdout


def test_arena_test_that_fails_exits_1(arena: Arena) -> None:
    arena.start_worker("w1", concurrency=2)
    arena.start_bot("house", "house")
    arena.start_bot("rand", "random", "--seed", "3")
    command = arena_command(
        "test", "rand", "--vs", "house", "--game", "bid-euchre", "--elo0", "0",
        "--elo1", "50", "--option", "max_hands=4", "--api", arena.api.address,
    )  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert "failed: H0 accepted, rand is not better than house" in done.stdout
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == "arena: error: rand did not pass the test against house"


def test_cancel_hands_out_nothing_more_and_keeps_what_finished(arena: Arena) -> None:
    arena.start_worker("w1", env={"ARENA_SCHEDULE_WINDOW": "2"})
    arena.start_bot("a", "random", "--seed", "1")
    arena.start_bot("b", "random", "--seed", "2")
    tournament = arena.submit(["a", "b"], deals=10, games=["bid-euchre"])
    arena.wait_until(tournament.id, done=2)
    cancelled = arena.stub.CancelTournament(arena_pb2.CancelTournamentRequest(id=tournament.id))
    issued = cancelled.matches_issued
    deadline = time.monotonic() + 120
    while arena.redis.llen("celery") or arena.redis.hlen("unacked"):
        assert time.monotonic() < deadline, "the queue never drained"
        time.sleep(0.1)
    after = arena.get(tournament.id)
    assert after.matches_issued == issued <= after.matches_done + 2 < 20
    keys = arena.redis.hkeys(redis_keys.schedule(tournament.id))
    scheduled = {m.decode() if isinstance(m, bytes) else m for m in keys}
    assert {r.match_id for r in results_of(arena, tournament.id)} <= scheduled


def test_the_largest_tournament_is_stored_as_a_spec_not_a_schedule(arena: Arena) -> None:
    registry = BotRegistry(arena.redis)
    names = [f"bot-{i:02d}" for i in range(64)]
    for name in names:  # registered directly: nothing here is played
        registry.put_remote(
            RegisteredBot(name, "127.0.0.1:9", tuple(game_names()), name, "1", time.time())
        )
    tournament = arena.submit(names, deals=9)
    assert tournament.matches_total == 64 * 63 // 2 * 5 * 9 * 2 == 181_440
    assert tournament.matches_issued == 0
    assert arena.redis.hlen(redis_keys.schedule(tournament.id)) == 0
    assert arena.redis.llen("celery") == 1  # the scheduler's first step, and no match


def test_a_ladder_takes_in_bots_as_they_register_and_its_board_stays_live(arena: Arena) -> None:
    env = {"ARENA_SCHEDULE_WINDOW": "4", "ARENA_LADDER_RATINGS_EVERY": "2"}
    arena.start_worker("w1", concurrency=2, env=env)
    arena.start_bot("house", "house")
    arena.start_bot("r1", "random", "--seed", "1")
    ladder = arena.submit([], games=["bid-euchre"], format=arena_pb2.FORMAT_LADDER)
    assert ladder.matches_total == 0 and ladder.state == arena_pb2.TOURNAMENT_STATE_RUNNING
    arena.wait_until(ladder.id, done=6)
    arena.start_bot("late", "random", "--seed", "2")  # registers while the ladder runs

    def late_played() -> int:
        return sum("late" in r.entries for r in results_of(arena, ladder.id))

    deadline = time.monotonic() + 180
    while late_played() < 4:
        assert time.monotonic() < deadline, "the newcomer was never paired"
        time.sleep(0.2)
    board = arena.stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(tournament_id=ladder.id))
    assert {row.bot for row in board.rows} == {"house", "r1", "late"}  # live, mid-ladder
    assert arena.get(ladder.id).state == arena_pb2.TOURNAMENT_STATE_RUNNING

    def arena_wide() -> set[str]:  # refitted as the ladder goes, though it never finishes
        boards = json.loads(arena.redis.get(redis_keys.ratings()) or "{}")
        return {row["bot"] for row in boards.get("", {}).get("rows", [])}

    while arena_wide() != {"house", "r1", "late"}:
        assert time.monotonic() < deadline, (
            f"arena-wide ratings never took the ladder in: {arena_wide()}"
        )
        time.sleep(0.2)
    cancelled = arena.stub.CancelTournament(arena_pb2.CancelTournamentRequest(id=ladder.id))
    assert cancelled.state == arena_pb2.TOURNAMENT_STATE_CANCELLED
    assert cancelled.matches_issued <= cancelled.matches_done + 4
    results = results_of(arena, ladder.id)
    assert len({r.seed for r in results}) == len(results)  # a deal of its own each


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"format": 99}, "unknown format 99; allowed: FORMAT_ROUND_ROBIN, FORMAT_GAUNTLET"),
        (
            {"swiss": arena_pb2.SwissParams(rounds=1)},
            "swiss parameters do not fit a round-robin tournament: it has none",
        ),
        (
            {"format": arena_pb2.FORMAT_SWISS, "swiss": arena_pb2.SwissParams(rounds=3)},
            "a Swiss tournament of 2 entries has 1 to 1 rounds, got 3",
        ),
        (
            {"format": arena_pb2.FORMAT_GAUNTLET, "gauntlet": arena_pb2.GauntletParams()},
            "a gauntlet names one or more of its entries as challengers",
        ),
        (
            {
                "format": arena_pb2.FORMAT_SPRT,
                "games": ["seep"],
                "sprt": arena_pb2.SprtParams(elo0=5, elo1=5),
            },
            "an SPRT needs elo0 < elo1 (both unset: 0 and 5); got elo0 5, elo1 5",
        ),
        (
            {
                "format": arena_pb2.FORMAT_SPRT,
                "games": ["seep"],
                "sprt": arena_pb2.SprtParams(elo0=0, elo1=300),
            },
            "SPRT bounds are from -400 to 400 Elo, elo1 at most 50 above elo0; got elo0 0, "
            "elo1 300",
        ),
        (
            {"format": arena_pb2.FORMAT_LADDER, "entries": []},
            "a ladder plays the games it names: give one or more of baloot, bid-euchre",
        ),
        (
            {"format": arena_pb2.FORMAT_LADDER, "games": ["seep"]},
            "a ladder's entries are every registered bot that plays one of its games",
        ),
        ({"format": arena_pb2.FORMAT_KNOCKOUT, "entries": ["a"]}, "at least 2 entries, got 1"),
    ],
)
def test_a_format_that_does_not_fit_is_refused_and_nothing_is_stored(
    arena: Arena,
    spec: dict[str, Any],
    message: str,
) -> None:
    arena.start_bot("a", "random")
    arena.start_bot("b", "random")
    request = arena_pb2.TournamentSpec(entries=spec.pop("entries", ["a", "b"]), deals=1, **spec)
    with pytest.raises(grpc.RpcError) as caught:
        arena.stub.SubmitTournament(arena_pb2.SubmitTournamentRequest(spec=request))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert message in (caught.value.details() or "")
    assert arena.redis.zcard(redis_keys.tournaments()) == 0
