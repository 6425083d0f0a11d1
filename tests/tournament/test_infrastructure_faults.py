"""Infrastructure dies mid-tournament: workers, a referee, Redis. Every time the
tournament completes with no match lost and none counted twice."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.local_redis import LocalRedis, start_redis
from arena.processes import arena_command, start_service
from arena.store import TournamentStore
from arena.v1 import arena_pb2
from tests import shipped
from tests.support.arena import WHOLE, Arena, assert_complete_once
from tests.support.waiting import wait_until


def test_a_worker_sigkilled_three_times_in_one_tournament(arena: Arena) -> None:
    """With the visibility timeout as shipped (an hour): what each killed worker held
    comes back because no live worker holds it (``workers.deliveries``), not because the
    timeout ran out."""
    arena.start_bot("a", "house")  # two of three play well: matches of a few hands
    arena.start_bot("b", "house")
    arena.start_bot("c", "random", "--seed", "7")
    tournament = arena.submit(["a", "b", "c"], deals=5, games=["bid-euchre", "baloot"])
    done = 0
    for round_ in range(3):
        victim = arena.start_worker(
            f"victim{round_}", concurrency=2, env=shipped.visibility_timeout()
        )
        done = arena.wait_until(tournament.id, done=done + 3).matches_done
        victim.kill()  # SIGKILL, pool children included
        assert arena.redis.hlen("unacked") > 0, "the worker held no task when killed"
    assert done < tournament.matches_total
    arena.start_worker("survivor", concurrency=2, env=shipped.visibility_timeout())
    assert_complete_once(arena, tournament.id, 60)
    said = [line for worker in arena.workers for line in worker.output]
    assert any("handed back to the queue" in line for line in said)


def test_a_referee_sigkilled_mid_match_is_replaced_by_another(arena: Arena) -> None:
    doomed = start_service(
        arena_command("referee", "serve", "--port", "0", "--replay-dir", str(arena.replay_dir))
    )
    try:
        arena.start_worker("w", concurrency=2, referees=[doomed.address, arena.referee.address])
        arena.start_bot("a", "random", "--seed", "1")
        arena.start_bot("b", "house")
        tournament = arena.submit(["a", "b"], deals=8, games=["bid-euchre"])
        arena.wait_until(tournament.id, done=2)
        doomed.kill()  # its matches in flight fail with UNAVAILABLE and move on
        assert_complete_once(arena, tournament.id, 16)
        referees = {r.referee for r in TournamentStore(arena.redis).results(tournament.id)}
        assert arena.referee.address in referees
    finally:
        doomed.stop()


@pytest.fixture
def aof_arena(tmp_path: Path) -> Iterator[tuple[Arena, LocalRedis]]:
    redis_server = start_redis(aof_dir=str(tmp_path))
    url = redis_server.url(0)
    referee = start_service(
        arena_command("referee", "serve", "--port", "0", "--replay-dir", str(tmp_path / "r"))
    )
    api = start_service(arena_command("api", "serve", "--port", "0", "--redis", url))
    stack = Arena(url, tmp_path / "r", referee, api)
    yield stack, redis_server
    stack.stop()
    redis_server.stop()


def _just_started(arena: Arena, tournament_id: str) -> bool:
    listed = arena.stub.ListLiveMatches(
        arena_pb2.ListLiveMatchesRequest(tournament_id=tournament_id)
    ).matches
    now = time.time()
    return any(
        m.game == "bid-euchre" and now - m.started_at.ToNanoseconds() / 1e9 < 1 for m in listed
    )


def test_redis_killed_and_restarted_from_its_append_only_file(
    aof_arena: tuple[Arena, LocalRedis], tmp_path: Path
) -> None:
    arena, redis_server = aof_arena
    arena.start_worker("w1", concurrency=2)
    arena.start_worker("w2", concurrency=1)
    arena.start_bot("a", "random", "--seed", "1")
    arena.start_bot("b", "house")
    tournament = arena.submit(["a", "b"], deals=8, games=["bid-euchre", "seep"], game_options=WHOLE)
    arena.wait_until(tournament.id, done=4)
    # Redis goes while a match is surely being played: a Bid Euchre match at its defaults
    # (thousands of decisions) that began under a second ago, not one being stored.
    wait_until(lambda: _just_started(arena, tournament.id), 120, "a Bid Euchre match to start")
    before = arena.get(tournament.id).matches_done
    replays = len(list(arena.replay_dir.glob("*.json")))
    redis_server.kill()
    # A match in flight finishes meanwhile (the referee keeps its replay) and must wait to
    # be stored.
    wait_until(
        lambda: len(list(arena.replay_dir.glob("*.json"))) > replays,
        timeout=120,
        what="a match in flight to finish while Redis is down",
    )
    restarted = start_redis(port=redis_server.port, aof_dir=str(tmp_path))
    redis_server.process = restarted.process  # the fixture stops the new one
    after = arena.get(tournament.id)
    assert after.matches_done >= before  # nothing stored was lost with the crash
    assert_complete_once(arena, tournament.id, 32)
