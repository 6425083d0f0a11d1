"""Tournaments end to end: API, Redis, Celery workers, referee and bots, all real."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import grpc
import pytest
from google.protobuf import duration_pb2

from arena.games import game_names
from arena.store import MatchResult, TournamentStore, keys
from arena.v1 import arena_pb2
from tests.support.arena import Arena
from tests.support.waiting import wait_until

SHARED = True  # one referee and API for the module (tests/tournament/conftest.py)


def stored_results(arena: Arena, tournament_id: str) -> list[MatchResult]:
    return TournamentStore(arena.redis).results(tournament_id)


@pytest.mark.parametrize("fair_play", [arena_pb2.FAIR_PLAY_OPEN, arena_pb2.FAIR_PLAY_TRUSTED])
def test_round_robin_across_every_game_is_played_once_each_and_rated(
    arena: Arena, fair_play: arena_pb2.FairPlay.ValueType
) -> None:
    arena.start_worker("w1")
    arena.start_worker("w2")
    arena.start_bot("house", "house")
    arena.start_bot("rand-a", "random", "--seed", "1")
    arena.start_bot("rand-b", "random", "--seed", "2")
    tournament = arena.submit(["house", "rand-a", "rand-b"], deals=1, fair_play=fair_play)
    games = sorted(game_names())
    assert sorted(tournament.games) == games
    # 3 pairings x games x 1 deal x 2 seatings.
    assert tournament.matches_total == 3 * len(games) * 2

    finished = arena.wait_until(tournament.id)
    assert finished.matches_done == finished.matches_total
    results = stored_results(arena, tournament.id)
    assert len(results) == tournament.matches_total
    assert Counter(r.game for r in results) == {g: 6 for g in games}
    by_pair = Counter((r.pair_key, r.seed, tuple(sorted(r.entries))) for r in results)
    if fair_play == arena_pb2.FAIR_PLAY_TRUSTED:
        # Each deal is played twice with the seats swapped, on the same seed.
        assert set(by_pair.values()) == {2}
        units = 2 * len(games)
    else:
        # Every match has a deal of its own and is rated on its own.
        assert len({r.seed for r in results}) == len(results)
        assert set(by_pair.values()) == {1}
        units = 4 * len(games)

    board = arena.stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(tournament_id=tournament.id))
    assert {row.bot for row in board.rows} == {"house", "rand-a", "rand-b"}
    # A few pairs a game: provisional, and ranked all the same, best first.
    assert {row.status for row in board.rows} == {arena_pb2.RATING_STATUS_PROVISIONAL}
    assert [row.rank for row in board.rows] == [1, 2, 3]
    assert [row.elo for row in board.rows] == sorted((row.elo for row in board.rows), reverse=True)
    assert abs(sum(row.elo for row in board.rows)) < 1e-6
    for row in board.rows:
        assert row.pairs == row.wins + row.draws + row.losses == units
        assert row.matches == 4 * len(games)
        assert row.game_elo.keys() == set(games)  # each game's, provisional too
    assert board.matches == tournament.matches_total
    # The stored ratings (fitted when the scheduler finished it) equal a fresh fit of the results.
    overall = arena.stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest())
    assert list(overall.rows) == list(board.rows)
    per_game = {
        game: arena.stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game=game))
        for game in games
    }
    assert {game: b.matches for game, b in per_game.items()} == {game: 6 for game in games}
    elo = {game: {r.bot: r.elo for r in b.rows} for game, b in per_game.items()}
    for row in board.rows:  # every bot plays every game: overall is the mean of the games
        mean = sum(elo[game][row.bot] for game in games) / len(games)
        assert row.elo == pytest.approx(mean, abs=1e-6)
        assert row.game_elo == {game: elo[game][row.bot] for game in games}


def test_schedule_is_deterministic_from_the_master_seed(arena: Arena) -> None:
    arena.start_worker("w1")
    arena.start_bot("a", "random", "--seed", "1")
    arena.start_bot("b", "house")  # against random, matches of a few hands
    first = arena.submit(["a", "b"], deals=3, master_seed=99, games=["bid-euchre"])
    second = arena.submit(["a", "b"], deals=3, master_seed=99, games=["bid-euchre"])
    other = arena.submit(["a", "b"], deals=3, master_seed=100, games=["bid-euchre"])
    for tournament in (first, second, other):
        arena.wait_until(tournament.id)

    def seeds(t: arena_pb2.Tournament) -> list[tuple[str, int]]:
        raw = arena.redis.hgetall(keys.schedule(t.id))
        matches = [json.loads(v) for v in raw.values()]
        return sorted((m["match_id"].split("-", 1)[1], m["seed"]) for m in matches)

    assert seeds(first) == seeds(second) != seeds(other)
    assert len(seeds(first)) == 6


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"entries": ["a"]}, "a tournament needs at least 2 entries, got 1"),
        (
            {"entries": ["a", "ghost"]},
            "unknown bot 'ghost': register it first (registered bots: a, b)",
        ),
        ({"entries": ["a", "a"]}, "each entry may appear once; repeated: a"),
        ({"entries": ["a", "b"], "games": ["chess"]}, "unknown game 'chess'; available games: "),
        ({"entries": ["a", "b"], "deals": 0}, "deals must be 1..1000 per pairing and game, got 0"),
        (
            {"entries": ["a", "b"], "max_faults": -1},
            "max_faults must be 1..1000 (0 for the default), got -1",
        ),
        (  # the referee would refuse it: the tournament would never finish
            {"entries": ["a", "b"], "move_deadline": duration_pb2.Duration(nanos=1)},
            "move_deadline must be 1 ms to 60 s, got 1e-09 s",
        ),
    ],
)
def test_bad_tournament_specs_are_rejected_and_nothing_is_stored(
    arena: Arena, spec: dict[str, Any], message: str
) -> None:
    arena.start_bot("a", "random")
    arena.start_bot("b", "random")
    request = arena_pb2.TournamentSpec(deals=spec.pop("deals", 1), **spec)
    with pytest.raises(grpc.RpcError) as caught:
        arena.stub.SubmitTournament(arena_pb2.SubmitTournamentRequest(spec=request))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert message in (caught.value.details() or "")
    assert arena.redis.zcard(keys.tournaments()) == 0


def test_registration_calls_hello_and_refuses_bots_that_cannot_play(arena: Arena) -> None:
    bot = arena.start_bot("house", "house")
    listed = arena.stub.ListBots(arena_pb2.ListBotsRequest()).bots
    assert [(b.name, b.address, b.hello_name) for b in listed] == [("house", bot.address, "house")]
    assert sorted(listed[0].games) == sorted(game_names())

    with pytest.raises(grpc.RpcError) as caught:
        arena.stub.RegisterBot(arena_pb2.RegisterBotRequest(name="ghost", address="127.0.0.1:1"))
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    # This API has no token, so the caller hears no detail (tests/access).
    assert (caught.value.details() or "").startswith(
        "bot at 127.0.0.1:1 is unreachable or not a bot"
    )

    with pytest.raises(grpc.RpcError) as caught:
        arena.stub.RegisterBot(arena_pb2.RegisterBotRequest(name="bad name!", address=bot.address))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT

    arena.stub.RemoveBot(arena_pb2.RemoveBotRequest(name="house"))
    assert not arena.stub.ListBots(arena_pb2.ListBotsRequest()).bots
    with pytest.raises(grpc.RpcError) as caught:
        arena.stub.RemoveBot(arena_pb2.RemoveBotRequest(name="house"))
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND


def test_a_worker_killed_mid_tournament_loses_and_doubles_nothing(arena: Arena) -> None:
    victim = arena.start_worker("victim", concurrency=2)
    arena.start_bot("a", "house")  # two of three play well: matches of a few hands
    arena.start_bot("b", "house")
    arena.start_bot("c", "random", "--seed", "7")
    tournament = arena.submit(["a", "b", "c"], deals=4, games=["bid-euchre"])
    arena.wait_until(tournament.id, done=2)
    victim.kill()  # SIGKILL, children included: no chance to hand anything back
    assert arena.redis.hlen("unacked") > 0, "the worker died holding no task: nothing tested"
    arena.start_worker("rescuer", concurrency=2)
    finished = arena.wait_until(tournament.id)
    results = stored_results(arena, tournament.id)
    assert finished.matches_done == finished.matches_total == len(results) == 24
    assert len({r.match_id for r in results}) == 24


def test_resume_after_every_worker_stopped_finishes_only_the_rest(arena: Arena) -> None:
    worker = arena.start_worker("first")
    arena.start_bot("a", "random", "--seed", "1")
    arena.start_bot("b", "house")
    tournament = arena.submit(["a", "b"], deals=6, games=["bid-euchre"])
    arena.wait_until(tournament.id, done=3)
    worker.stop()
    arena.redis.delete("celery")  # the queued tasks are lost with the broker's queue
    stopped = arena.get(tournament.id)
    assert stopped.matches_done < stopped.matches_total
    before = {r.match_id: r for r in stored_results(arena, tournament.id)}

    resumed = arena.stub.ResumeTournament(arena_pb2.ResumeTournamentRequest(id=tournament.id))
    assert resumed.state == arena_pb2.TOURNAMENT_STATE_RUNNING
    arena.start_worker("second")
    finished = arena.wait_until(tournament.id)
    after = {r.match_id: r for r in stored_results(arena, tournament.id)}
    assert finished.matches_done == len(after) == 12
    assert all(after[k] == v for k, v in before.items())  # nothing replayed or overwritten


def test_cancel_stops_a_tournament_for_good_and_reveals_its_seeds(own_arena: Arena) -> None:
    """On an arena of its own: its referee's replay directory must stay empty."""
    from celery import Celery

    from workers.broker import PLAY_MATCH, queue_keys, queued_matches
    from workers.dispatch import ADVANCE

    arena = own_arena

    arena.start_bot("a", "random", "--seed", "1")
    arena.start_bot("b", "random", "--seed", "2")
    tournament = arena.submit(["a", "b"], deals=4, games=["bid-euchre"])
    assert not tournament.seed.revealed
    cancelled = arena.stub.CancelTournament(arena_pb2.CancelTournamentRequest(id=tournament.id))
    assert cancelled.state == arena_pb2.TOURNAMENT_STATE_CANCELLED
    assert cancelled.seed.revealed and cancelled.seed.HasField("master_seed")
    # What the submission queued (no worker has run it), and a match queued after the
    # cancel, as a resume or the watchdog racing it would: each must run and do nothing.
    queued = [
        json.loads(message)["headers"]
        for key in queue_keys("celery")
        for message in arena.redis.lrange(key, 0, -1)
    ]
    assert [q["task"] for q in queued] == [ADVANCE]
    celery = Celery(broker=arena.redis_url, backend=arena.redis_url)
    late = celery.send_task(PLAY_MATCH, args=[tournament.id, "queued-after-the-cancel"])
    arena.start_worker("w")
    with pytest.raises(grpc.RpcError) as refused:
        arena.stub.ResumeTournament(arena_pb2.ResumeTournamentRequest(id=tournament.id))
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "its seeds were revealed when it was cancelled" in str(refused.value.details())
    # Each task's own answer in the result backend, once it has run: the scheduler's
    # step handed nothing out, and the match skipped itself because of the cancel.
    assert celery.AsyncResult(queued[0]["id"]).get(timeout=120) is None
    assert late.get(timeout=120) == {
        "match_id": "queued-after-the-cancel",
        "skipped": "tournament not running",
    }
    celery.close()
    after = arena.get(tournament.id)
    assert (after.matches_issued, after.matches_done) == (0, 0)
    assert stored_results(arena, tournament.id) == []
    # A task's answer is stored before its message is acknowledged (acks_late).
    wait_until(lambda: queued_matches(arena.redis) == set(), 30, "the late match acked")
    assert not arena.replay_dir.exists() or not any(arena.replay_dir.iterdir())  # no PlayMatch


def test_a_time_bank_in_the_spec_reaches_every_match(arena: Arena) -> None:
    arena.start_worker("w")
    arena.start_bot("a", "random", "--seed", "1")
    arena.start_bot("b", "random", "--seed", "2")
    bank = duration_pb2.Duration(nanos=750_000_000)
    tournament = arena.wait_until(arena.submit(["a", "b"], games=["seep"], time_bank=bank).id)
    assert tournament.spec.time_bank == bank
    for result in stored_results(arena, tournament.id):
        replay = json.loads((arena.replay_dir / f"{result.replay_id}.json").read_text())
        assert replay["time_bank_ms"] == 750
