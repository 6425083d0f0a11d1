"""Workers' /metrics: counts summed over Celery's prefork children, the arena's state
read from Redis, and an exposition that promtool accepts."""

from __future__ import annotations

import shutil
import subprocess
import time

import redis
from prometheus_client import CollectorRegistry, generate_latest

from arena.local_redis import free_port
from arena.v1 import arena_pb2
from tests.support.arena import Arena
from tests.support.metrics import samples, scrape_port, total
from workers.metrics import ArenaStateCollector


def test_worker_metrics_count_matches_progress_and_ratings(arena: Arena) -> None:
    port = free_port()
    arena.start_worker("metered", concurrency=2, extra=["--metrics-port", str(port)])
    arena.start_bot("house", "house")
    arena.start_bot("rand", "random", "--seed", "3")
    games = ["bid-euchre", "seep"]
    tournament = arena.wait_until(arena.submit(["house", "rand"], deals=2, games=games).id)
    assert tournament.matches_total == 8

    # The last tasks are acknowledged just after the tournament is marked finished.
    deadline = time.monotonic() + 30
    while samples(scrape_port(port))[("arena_queue_unacked", ())] and time.monotonic() < deadline:
        time.sleep(0.2)
    text = scrape_port(port)
    values = samples(text)
    # Two prefork children played the matches; the parent's /metrics sums them.
    assert total(values, "arena_worker_matches_played_total") == 8
    for game in games:
        assert total(values, "arena_worker_matches_played_total", game=game) == 4
        assert total(values, "arena_worker_match_duration_seconds_count", game=game) == 4
    assert total(values, "arena_worker_matches_retried_total") == 0
    assert total(values, "arena_worker_matches_requeued_total") == 0

    progress = (("state", "finished"), ("tournament", tournament.id))
    assert values[("arena_tournament_matches_scheduled", progress)] == 8
    assert values[("arena_tournament_matches_done", progress)] == 8
    assert values[("arena_queue_length", (("queue", "celery"),))] == 0
    assert values[("arena_queue_unacked", ())] == 0
    assert values[("arena_redis_up", ())] == 1

    board = arena.stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest())
    for row in board.rows:
        key = (("bot", row.bot), ("game", "all"))
        assert abs(values[("arena_rating_elo", key)] - row.elo) < 1e-6
        assert abs(values[("arena_rating_elo_lower", key)] - (row.elo - row.elo_ci95)) < 1e-6
        assert abs(values[("arena_rating_elo_upper", key)] - (row.elo + row.elo_ci95)) < 1e-6
        assert values[("arena_rating_matches", key)] == row.matches == 8
        assert row.status == arena_pb2.RATING_STATUS_PROVISIONAL  # 4 pairs
        assert values[("arena_rating_provisional", key)] == 1
    for game in games:
        per_game = arena.stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game=game))
        for row in per_game.rows:
            key = (("bot", row.bot), ("game", game))
            assert abs(values[("arena_rating_elo", key)] - row.elo) < 1e-6

    promtool = shutil.which("promtool")
    assert promtool, "promtool is missing: run `make promtool` (Debian's prometheus package)"
    check = subprocess.run(
        [promtool, "check", "metrics"], input=text, capture_output=True, text=True, timeout=60
    )
    assert check.returncode == 0, check.stdout + check.stderr


def test_a_dead_referee_shows_as_retries(arena: Arena) -> None:
    port = free_port()
    dead = f"127.0.0.1:{free_port()}"
    arena.start_worker(
        "retrying", referees=[dead, arena.referee.address], extra=["--metrics-port", str(port)]
    )
    arena.start_bot("a", "random", "--seed", "1")
    arena.start_bot("b", "random", "--seed", "2")
    tournament = arena.wait_until(arena.submit(["a", "b"], deals=3, games=["bid-euchre"]).id)
    values = samples(scrape_port(port))
    played = total(values, "arena_worker_matches_played_total", game="bid-euchre")
    assert played == tournament.matches_total == 6
    # Each match starts on the referee its id hashes to; those on the dead one move on.
    retried = total(values, "arena_worker_matches_retried_total", game="bid-euchre")
    assert 1 <= retried <= 6


def test_a_redis_outage_shows_as_such_not_as_a_failed_scrape() -> None:
    registry = CollectorRegistry()
    registry.register(
        ArenaStateCollector(redis.Redis(port=free_port(), socket_connect_timeout=0.5))
    )
    values = samples(generate_latest(registry).decode())
    assert values == {("arena_redis_up", ()): 0}
