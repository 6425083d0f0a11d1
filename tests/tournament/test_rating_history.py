"""Rating history end to end: a ladder's refits and a finished tournament each leave a
point per board for every bot, read back through the API and the CLI; the store keeps
points in order and no more than its cap."""

from __future__ import annotations

import json
import time

import grpc
import pytest
import redis
from google.protobuf import json_format

from arena.local_redis import LocalRedis
from arena.ratings.history import Point
from arena.ratings.texts import point_text
from arena.store import keys
from arena.store.history import KEEP_POINTS, RatingHistoryStore
from arena.v1 import arena_pb2
from tests.support.arena import Arena
from tests.support.cli import cli
from tests.support.database import next_database

SHARED = True  # one referee and API for the module (tests/tournament/conftest.py)


def points(bot: str, n: int, at: float) -> list[Point]:
    return [Point(at, f"refit {at}", g, float(n), 10.0, n, "rated") for g in ("", "seep")]


def test_the_store_keeps_points_in_order_and_only_the_newest(local_redis: LocalRedis) -> None:
    client = redis.Redis.from_url(local_redis.url(next_database()))
    store = RatingHistoryStore(client, keep=5)
    assert store.points("a") == [] and RatingHistoryStore(client).keep == KEEP_POINTS
    written: list[Point] = []
    for refit in range(4):
        batch = {"a": points("a", refit, 100.0 + refit), "b": points("b", refit, 100.0 + refit)[:1]}
        assert store.record(f"refit {refit}", batch)
        written += batch["a"]
    assert store.points("a") == written[-5:]  # 8 written, the newest 5 kept, oldest first
    assert [p.time for p in store.points("b")] == [100.0, 101.0, 102.0, 103.0]
    assert client.llen(keys.history("a")) == 5
    store.record("empty", {})  # a refit with no boards writes nothing
    assert store.points("nobody") == []


def test_an_events_points_are_written_once_however_often_it_is_recorded(
    local_redis: LocalRedis,
) -> None:
    """A tournament finalised twice (its lock's holder stopped past the lock's life)
    records its points once."""
    client = redis.Redis.from_url(local_redis.url(next_database()))
    store = RatingHistoryStore(client)
    batch = {"a": points("a", 1, 100.0), "b": points("b", 2, 100.0)}
    assert store.record("tournament t1 finished", batch)
    again = {"a": points("a", 9, 200.0), "b": points("b", 9, 200.0)}
    assert not store.record("tournament t1 finished", again)
    assert store.points("a") == batch["a"] and store.points("b") == batch["b"]
    assert store.record("tournament t2 finished", again)
    assert store.points("a") == batch["a"] + again["a"]


def history(arena: Arena, bot: str, game: str = "") -> arena_pb2.RatingHistory:
    found: arena_pb2.RatingHistory = arena.stub.GetRatingHistory(
        arena_pb2.GetRatingHistoryRequest(bot=bot, game=game)
    )
    return found


def events(series: arena_pb2.RatingSeries) -> list[str]:
    return [p.event for p in series.points]


def test_ladder_steps_and_a_finished_tournament_are_in_the_history(arena: Arena) -> None:
    env = {"ARENA_SCHEDULE_WINDOW": "4", "ARENA_LADDER_RATINGS_EVERY": "2"}
    arena.start_worker("w1", concurrency=2, env=env)
    arena.start_bot("house", "house")
    arena.start_bot("rand", "random", "--seed", "5")
    assert not history(arena, "house").series  # registered, not rated yet: no series

    ladder = arena.submit([], games=["bid-euchre"], format=arena_pb2.FORMAT_LADDER)
    deadline = time.monotonic() + 180
    while not any(
        e.startswith(f"ladder {ladder.id} at ")
        for s in history(arena, "house").series
        for e in events(s)
    ):
        assert time.monotonic() < deadline, "a ladder step never recorded a point"
        time.sleep(0.2)
    arena.stub.CancelTournament(arena_pb2.CancelTournamentRequest(id=ladder.id))

    tournament = arena.submit(["house", "rand"], deals=1, games=["bid-euchre"], master_seed=4)
    arena.wait_until(tournament.id)

    found = history(arena, "house")
    assert found.bot == "house"
    assert [s.game for s in found.series] == ["", "bid-euchre"]  # overall first
    for series in found.series:
        steps = events(series)
        assert steps[-1] == f"tournament {tournament.id} finished"
        ladder_steps = steps[:-1]
        assert ladder_steps and all(e.startswith(f"ladder {ladder.id} at ") for e in ladder_steps)
        counts = [int(e.split(" at ")[1].split()[0]) for e in ladder_steps]
        assert counts == sorted(counts) and all(c % 2 == 0 for c in counts)
        times = [p.recorded_at.ToNanoseconds() for p in series.points]
        assert times == sorted(times)
        for point in series.points:
            assert point.status != arena_pb2.RATING_STATUS_UNSPECIFIED
            assert point.elo_ci95 > 0 and point.pairs > 0
    # The last point is the board the same refit saved.
    saved = json.loads(arena.redis.get(keys.ratings()) or "{}")
    (row,) = [r for r in saved[""]["rows"] if r["bot"] == "house"]
    last = found.series[0].points[-1]
    assert last.elo == pytest.approx(row["elo"], abs=0.01)
    assert last.elo_ci95 == pytest.approx(row["elo_ci95"], abs=0.01)
    assert last.pairs == row["pairs"]
    rand = history(arena, "rand").series[0].points[-1]
    assert rand.elo == pytest.approx(-last.elo, abs=0.02)  # two bots, centred on 0

    one = history(arena, "house", "bid-euchre")
    assert [s.game for s in one.series] == ["bid-euchre"] and one.series[0] == found.series[1]
    never = history(arena, "house", "seep")
    assert [(s.game, len(s.points)) for s in never.series] == [("seep", 0)]

    with pytest.raises(grpc.RpcError) as unknown:
        history(arena, "ghost")
    assert unknown.value.code() == grpc.StatusCode.NOT_FOUND
    assert (unknown.value.details() or "").startswith(
        "no bot 'ghost': none is registered under that name and none was ever rated under it"
    )
    with pytest.raises(grpc.RpcError) as bad_game:
        history(arena, "house", "chess")
    assert bad_game.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "unknown game 'chess'; available games: " in (bad_game.value.details() or "")
    with pytest.raises(grpc.RpcError) as nameless:
        history(arena, "")
    assert nameless.value.code() == grpc.StatusCode.INVALID_ARGUMENT

    # The CLI: the message as JSON, a table per board for people.
    as_json = cli(arena, "leaderboard", "--history", "house", "--json")
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout) == json_format.MessageToDict(
        found, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    table = cli(arena, "leaderboard", "--history", "house", "--game", "bid-euchre")
    assert table.returncode == 0, table.stderr
    assert "Rating history of house, bid-euchre" in table.stdout
    assert "all games" not in table.stdout
    lines = [line for line in table.stdout.splitlines() if line.startswith("│")]
    assert len(lines) == len(found.series[1].points)  # a row each, oldest first
    final = [cell.strip() for cell in lines[-1].split("│")[1:-1]]
    newest = found.series[1].points[-1]
    assert final == [
        newest.recorded_at.ToDatetime().strftime("%Y-%m-%d %H:%M:%S"),
        f"tournament {tournament.id} finished",
        point_text(newest),  # as the board showed it: provisional, marked "?"
        str(newest.pairs),
        "provisional",
    ]
    assert newest.status == arena_pb2.RATING_STATUS_PROVISIONAL
    ghost = cli(arena, "leaderboard", "--history", "ghost")
    assert ghost.returncode == 1 and ghost.stderr.startswith(
        "arena: error: NOT_FOUND: no bot 'ghost'"
    )
    arena.start_bot("late", "random", "--seed", "6")  # registered after every refit
    assert (
        cli(arena, "leaderboard", "--history", "late").stdout
        == "no ratings recorded for late yet\n"
    )
    refused = cli(arena, "leaderboard", "--history", "house", "--tournament", tournament.id)
    assert (
        refused.returncode == 2 and "--tournament, --csv and --los do not apply" in refused.stderr
    )
    assert cli(arena, "leaderboard").returncode == 0  # the board alone, as before
