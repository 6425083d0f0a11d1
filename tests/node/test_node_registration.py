"""The Node.js bot enters a real arena by itself (``--register``) and plays a tournament
next to Python bots: API, Redis, a Celery worker, the referee and every bot as processes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from arena.access import bearer
from arena.games import game_names
from arena.local_redis import LocalRedis
from arena.processes import Service, arena_command, free_port, start_service
from arena.v1 import arena_pb2, arena_pb2_grpc
from tests.support.arena import Arena, start_arena
from tests.support.database import next_database
from tests.support.node import environment_without_token, node_command, run_node, strategy_fallbacks


def start_api(url: str, *flags: str) -> Service:
    return start_service(arena_command("api", "serve", "--port", "0", "--redis", url, *flags))


@pytest.fixture
def node_arena(local_redis: LocalRedis, tmp_path: Path) -> Iterator[Arena]:
    arena = start_arena(local_redis, tmp_path)
    yield arena
    arena.stop()


def test_registers_itself_and_plays_a_tournament_with_python_bots(node_arena: Arena) -> None:
    arena = node_arena
    arena.start_worker("node1", concurrency=2)
    arena.start_bot("house", "house")
    arena.start_bot("rand", "random", "--seed", "4")
    # The ready line comes only once the API has registered it (after calling its Hello).
    node = start_service(node_command("--register", "node", "--api", arena.api.address))
    arena.bots["node"] = node
    registered = {b.name: b for b in arena.stub.ListBots(arena_pb2.ListBotsRequest()).bots}
    assert registered["node"].address == node.address
    assert registered["node"].hello_name == "node-basic"
    assert sorted(registered["node"].games) == sorted(game_names())

    games = sorted(game_names())
    tournament = arena.submit(["node", "house", "rand"], deals=1, master_seed=8)
    assert sorted(tournament.games) == games
    finished = arena.wait_until(tournament.id, timeout=240)
    assert finished.matches_done == finished.matches_total == 3 * len(games) * 2
    assert finished.forfeits == 0

    results = arena.stub.ListResults(
        arena_pb2.ListResultsRequest(tournament_id=tournament.id)
    ).results
    assert len(results) == finished.matches_total
    for record in results:
        assert record.end == arena_pb2.RESULT_END_COMPLETED, record
        assert set(record.team_faults) == {0}, record

    board = arena.stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(tournament_id=tournament.id))
    rows = {row.bot: row for row in board.rows}
    assert set(rows) == {"node", "house", "rand"}
    assert rows["node"].pairs == 2 * 2 * len(games)  # open: every match is rated on its own
    # Rated in every game, on too few pairs for a rating to be shown yet.
    assert rows["node"].status == arena_pb2.RATING_STATUS_PROVISIONAL
    for game in games:
        per_game = arena.stub.GetLeaderboard(
            arena_pb2.GetLeaderboardRequest(tournament_id=tournament.id, game=game)
        )
        assert "node" in {row.bot for row in per_game.rows if row.pairs == 4}, game
    assert rows["node"].elo > rows["rand"].elo
    assert strategy_fallbacks(node) == []


def test_a_bad_api_address_exits_nonzero_with_one_line() -> None:
    unused = f"127.0.0.1:{free_port()}"
    done = run_node("--register", "node", "--api", unused)
    assert done.returncode != 0
    lines = done.stdout.splitlines()
    assert len(lines) == 1, done.stdout
    assert lines[0].startswith(f"node-basic: cannot register node with the arena at {unused}: ")
    assert "UNAVAILABLE" in lines[0]


def test_the_token_goes_in_the_authorization_metadata(
    local_redis: LocalRedis, tmp_path: Path
) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("s3cret\n")
    api = start_api(local_redis.url(next_database()), "--token-file", str(token_file))
    try:
        env = environment_without_token()
        refused = run_node("--register", "node", "--api", api.address, env=env)
        assert refused.returncode != 0
        assert len(refused.stdout.splitlines()) == 1, refused.stdout
        assert "UNAUTHENTICATED" in refused.stdout
        wrong = run_node("--register", "node", "--api", api.address, "--token", "nope", env=env)
        assert wrong.returncode != 0
        assert "PERMISSION_DENIED" in wrong.stdout
        node = start_service(
            node_command("--register", "node", "--api", api.address, "--token", "s3cret")
        )
        try:
            with grpc.insecure_channel(api.address) as channel:
                operator = (bearer("s3cret"),)  # only token holders see bot addresses
                bots = (
                    arena_pb2_grpc.ArenaStub(channel)
                    .ListBots(arena_pb2.ListBotsRequest(), metadata=operator)
                    .bots
                )
            assert [(b.name, b.address, b.hello_name) for b in bots] == [
                ("node", node.address, "node-basic")
            ]
        finally:
            node.stop()
    finally:
        api.stop()
