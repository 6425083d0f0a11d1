"""The API refits a leaderboard only when results changed, and never serves a stale one.

Results are written as a worker writes them (``TournamentStore.record_result``) into the
Redis of a real API process; a result slipped into Redis behind the store's back (no
version bump) shows whether a board came from the cache.
"""

from __future__ import annotations

import json

from arena.ratings.board import RANK_RULE
from arena.store import TournamentStore, keys
from arena.store.migrate import migrate
from arena.store.results import MatchResult
from arena.v1 import arena_pb2
from tests.records import result as stored
from tests.records import spec
from tests.support.arena import Arena

SHARED = True  # one referee and API for the module (tests/tournament/conftest.py)

TOURNAMENT = "t-cache"


def result(n: int, winner: str, loser: str) -> MatchResult:
    return stored(
        match_id=f"{TOURNAMENT}-{n}",
        tournament_id=TOURNAMENT,
        game="bid-euchre",
        pair_key=f"{TOURNAMENT}-pair-{n}",
        deal=n,
        seed=n,
        entries=[winner, loser],
        scores=[32, 10],
        winner_team=0,
        end="completed",
        forfeit_team=None,
    )


def board(arena: Arena, game: str = "") -> arena_pb2.Leaderboard:
    return arena.stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game=game))


def slip_in(arena: Arena, record: MatchResult) -> None:
    """Store a result without bumping the version, as no real writer would."""
    key = keys.results(TOURNAMENT)
    arena.redis.hset(key, record.match_id, json.dumps(record.to_json()))


def test_a_board_is_refitted_when_a_result_is_stored_and_only_then(arena: Arena) -> None:
    store = TournamentStore(arena.redis)
    store.create(TOURNAMENT, spec(games=["bid-euchre"]), ["bid-euchre"], [])
    store.record_result(TOURNAMENT, result(1, "a", "b"), b"")
    first = board(arena)
    assert first.matches == 1 and {r.bot for r in first.rows} == {"a", "b"}

    slip_in(arena, result(2, "c", "a"))
    assert board(arena) == first  # nothing recorded: the fitted board is served again
    assert board(arena, "bid-euchre").matches == 2  # another board is fitted afresh

    assert store.record_result(TOURNAMENT, result(3, "b", "c"), b"")
    fresh = board(arena)
    assert fresh.matches == 3 and {r.bot for r in fresh.rows} == {"a", "b", "c"}
    assert not store.record_result(TOURNAMENT, result(3, "b", "c"), b"")  # already stored
    assert board(arena) == fresh


def test_a_data_set_that_starts_over_is_not_taken_for_the_old_one(arena: Arena) -> None:
    store = TournamentStore(arena.redis)
    store.create(TOURNAMENT, spec(games=["bid-euchre"]), ["bid-euchre"], [])
    store.record_result(TOURNAMENT, result(1, "a", "b"), b"")
    assert {r.bot for r in board(arena).rows} == {"a", "b"}

    arena.redis.flushdb()  # the version counter starts again from zero
    store.create(TOURNAMENT, spec(games=["bid-euchre"]), ["bid-euchre"], [])
    store.record_result(TOURNAMENT, result(1, "x", "y"), b"")
    assert {r.bot for r in board(arena).rows} == {"x", "y"}


def upgraded_boards(arena: Arena) -> int:
    """The boards ``arena store migrate`` upgraded."""
    counts = {count.kind: count.upgraded for count in migrate(arena.redis)}
    return counts["leaderboards"]


def test_a_finished_tournament_stored_by_an_older_arena_is_refitted(arena: Arena) -> None:
    """Its stored board is served as it finished, unless an older arena stored it: one
    without covariances, or whose overall board was one pooled fit (no min_pairs)."""
    store = TournamentStore(arena.redis)
    store.create(TOURNAMENT, spec(games=["bid-euchre"]), ["bid-euchre"], [])
    store.record_result(TOURNAMENT, result(1, "a", "b"), b"")
    store.finish(TOURNAMENT)
    request = arena_pb2.GetLeaderboardRequest(tournament_id=TOURNAMENT)
    fitted = arena.stub.GetLeaderboard(request)
    assert [r.bot for r in fitted.rows] == ["a", "b"] and fitted.min_pairs == 20
    old = {
        "game": "",
        "rows": [
            {"rank": 1, "bot": "b", "elo": 5.0, "elo_ci95": 1.0, "pairs": 1, "wins": 1,
             "draws": 0, "losses": 0, "matches": 1, "game_elo": {}},
        ],
        "draw_elo": 0.0,
        "matches": 1,
        "covariance": {"b": {"b": 1.0}},
    }  # fmt: skip
    store.save_leaderboard(TOURNAMENT, old)
    assert arena.stub.GetLeaderboard(request) == fitted  # pooled: fitted afresh
    assert upgraded_boards(arena) == 1  # `arena store migrate` keeps it so
    assert arena.stub.GetLeaderboard(request) == fitted
    store.save_leaderboard(TOURNAMENT, {**old, "min_pairs": 20})  # an older ranking rule
    assert arena.stub.GetLeaderboard(request) == fitted  # fitted afresh
    assert upgraded_boards(arena) == 1
    assert arena.stub.GetLeaderboard(request) == fitted
    store.save_leaderboard(TOURNAMENT, {**old, "min_pairs": 20, "rule": RANK_RULE})
    assert upgraded_boards(arena) == 1  # its caveats and rows' later fields filled in
    served = arena.stub.GetLeaderboard(request)
    assert [(r.bot, r.elo) for r in served.rows] == [("b", 5.0)]  # as it finished
