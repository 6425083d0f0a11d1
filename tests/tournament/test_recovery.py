"""A tournament always finishes: through a hung referee, a referee outage of any length,
a lost match, a worker killed while finalising, and a match longer than the visibility
timeout, each match is played to one stored result (and only once at a time)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from arena.processes import Service, arena_command, free_port, start_service
from arena.store import MatchResult, TournamentStore, keys
from arena.v1 import arena_pb2
from tests import shipped
from tests.support.arena import WHOLE, WORKER_ENV, Arena, assert_complete_once
from workers import capacity
from workers.broker import UNACKED, UNACKED_INDEX, queued_matches

OLD_RETRY_BUDGET = 8
"""Attempts after which the workers once gave a match up for good."""


def eventually(check: Callable[[], object], what: str, timeout: float = 120) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"never happened: {what}")


def referee(replay_dir: Path, port: int = 0) -> Service:
    return start_service(
        arena_command("referee", "serve", "--port", str(port), "--replay-dir", str(replay_dir))
    )


def results(arena: Arena, tournament_id: str) -> list[MatchResult]:
    return TournamentStore(arena.redis).results(tournament_id)


def test_a_hung_referee_is_left_for_another(arena: Arena) -> None:
    hung = referee(arena.replay_dir)
    try:
        arena.start_worker("w", concurrency=2, referees=[hung.address, arena.referee.address])
        arena.start_bot("a", "house")  # against random, matches of a few hands
        arena.start_bot("b", "paced", "--delay-ms", "2")
        tournament = arena.submit(["a", "b"], deals=6, games=["bid-euchre"])
        arena.wait_until(tournament.id, done=2)
        hung.process.send_signal(signal.SIGSTOP)  # it accepts connections, answers nothing
        stopped_at = time.time()
        assert_complete_once(arena, tournament.id, 12)
        late = [r for r in results(arena, tournament.id) if (r.finished_at or 0.0) > stopped_at + 1]
        assert late, "nothing was played after the referee hung"
        assert {r.referee for r in late} == {arena.referee.address}
    finally:
        hung.process.send_signal(signal.SIGCONT)
        hung.stop()


def test_a_referee_outage_longer_than_any_retry_budget(arena: Arena, tmp_path: Path) -> None:
    port = free_port()
    arena.start_worker("w", concurrency=2, referees=[f"127.0.0.1:{port}"])
    arena.start_bot("a", "random", "--seed", "1")
    arena.start_bot("b", "house")
    tournament = arena.submit(["a", "b"], deals=2, games=["seep"])

    def tries() -> int:
        raw = arena.redis.hvals(keys.failures(tournament.id))
        return max((json.loads(v)["tries"] for v in raw), default=0)

    eventually(lambda: tries() > OLD_RETRY_BUDGET + 2, "retries past the old budget")
    waiting = arena.get(tournament.id)
    assert waiting.state == arena_pb2.TOURNAMENT_STATE_RUNNING
    assert waiting.HasField("waiting")
    assert "UNAVAILABLE" in waiting.waiting.reason
    assert f"127.0.0.1:{port}" in waiting.waiting.reason
    assert waiting.waiting.since.ToSeconds() <= time.time()
    status = subprocess.run(
        arena_command("tournament", "status", tournament.id, "--api", arena.api.address),
        capture_output=True,
        text=True,
        check=True,
    )
    assert "waiting for a referee since" in status.stdout
    assert f"127.0.0.1:{port}: UNAVAILABLE" in status.stdout
    late = referee(tmp_path / "late", port=port)
    try:
        assert_complete_once(arena, tournament.id, 4)
        assert not arena.get(tournament.id).HasField("waiting")
    finally:
        late.stop()


def step_scheduler(arena: Arena, tournament_id: str) -> None:
    """One scheduler step in a process of its own, as a worker runs it: the matches it
    hands out wait in the queue, with no worker to take them."""
    code = f"from workers import scheduler; scheduler.advance({tournament_id!r})"
    subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "ARENA_REDIS_URL": arena.redis_url},
        check=True,
        timeout=60,
    )


def test_a_match_lost_from_the_broker_is_queued_again(arena: Arena) -> None:
    arena.start_bot("a", "random", "--seed", "1")
    arena.start_bot("b", "house")
    tournament = arena.submit(["a", "b"], deals=3, games=["bid-euchre"])
    r = arena.redis
    capacity.announce(r, "w@arena-test", 3, 60)  # room in the queue for all six
    step_scheduler(arena, tournament.id)
    before = queued_matches(r)
    assert len(before) == 6, "the matches should wait in the queue: no worker yet"
    head = r.lindex("celery", 0)
    assert head is not None
    # The match is nowhere now. (redis-py types lrem's value as str; it takes these bytes.)
    assert r.lrem("celery", 1, head) == 1  # type: ignore[arg-type]
    ((tid, lost),) = before - queued_matches(r)
    worker = arena.start_worker("w", concurrency=2)
    assert_complete_once(arena, tournament.id, 6)
    requeued = [line for line in worker.output if "queued again" in line]
    assert len(requeued) == 1 and f"match {lost} of {tid}" in requeued[0], requeued


def test_a_delivery_no_live_worker_holds_is_handed_back_at_once(arena: Arena) -> None:
    """kombu hands an unacknowledged message back only after its visibility timeout (an
    hour as shipped), and under a lock in Redis that a killed worker may hold for its
    lifetime. A delivery that no live worker holds is handed back by the watchdog
    without waiting for either; it is played once, from its own message."""
    arena.start_bot("a", "random", "--seed", "1")
    arena.start_bot("b", "house")
    tournament = arena.submit(["a", "b"], deals=2, games=["seep"])
    step_scheduler(arena, tournament.id)
    r = arena.redis
    payload = r.lindex("celery", 0)  # the newest message: a match's
    assert payload is not None and r.lrem("celery", 1, payload) == 1  # type: ignore[arg-type]
    message = json.loads(payload)
    tag = message["properties"]["delivery_tag"]
    # As a worker killed a while ago left it: taken, never acknowledged, never handed back.
    r.hset(UNACKED, tag, json.dumps([message, "", "celery"]))
    r.zadd(UNACKED_INDEX, {tag: time.time() - 60})
    r.set("unacked_mutex", "held by a killed worker", ex=600)
    ((tid, stranded),) = queued_matches(r) - queued_matches(r, stranded_after=30)
    worker = arena.start_worker("w", concurrency=2, env=shipped.visibility_timeout())
    assert_complete_once(arena, tournament.id, 4)
    handed = [line for line in worker.output if "handed back to the queue" in line]
    assert len(handed) == 1 and tag in handed[0], handed
    assert not any("queued again" in line for line in worker.output)
    assert not r.hexists(UNACKED, tag)
    assert stranded in {m.match_id for m in results(arena, tid)}


def test_a_worker_killed_while_finalising_leaves_it_to_another(arena: Arena) -> None:
    arena.start_bot("a", "random", "--seed", "1")
    arena.start_bot("b", "house")
    doomed = start_service(
        arena_command(
            "worker",
            "--redis",
            arena.redis_url,
            "--referee",
            arena.referee.address,
            "--concurrency",
            "1",
            "--name",
            "doomed@arena-test",
        ),
        env={**WORKER_ENV, "ARENA_FAILPOINTS": "finalize"},
    )
    try:
        tournament = arena.submit(["a", "b"], deals=2, games=["seep"])
        eventually(
            lambda: any("failpoint finalize reached" in line for line in doomed.output),
            "the worker reached the finalize failpoint",
        )
        doomed.kill()
        stuck = arena.get(tournament.id)
        assert stuck.matches_done == stuck.matches_total == 4
        assert stuck.state == arena_pb2.TOURNAMENT_STATE_RUNNING
        assert arena.redis.get(keys.leaderboard(tournament.id)) is None
        arena.start_worker("survivor")
        assert_complete_once(arena, tournament.id, 4)
        assert arena.redis.get(keys.leaderboard(tournament.id)) is not None
    finally:
        doomed.stop()


def test_a_match_longer_than_the_visibility_timeout_is_played_once(arena: Arena) -> None:
    arena.start_worker("w1")
    arena.start_worker("w2")
    arena.start_bot("slow", "paced", "--delay-ms", "150")
    arena.start_bot("b", "house")
    tournament = arena.submit(["slow", "b"], deals=1, games=["bid-euchre"], game_options=WHOLE)
    finished = arena.wait_until(tournament.id)
    played = results(arena, tournament.id)
    longest = max(r.duration_ms for r in played) / 1000
    assert longest > float(WORKER_ENV["ARENA_VISIBILITY_TIMEOUT"]), "make the matches longer"
    assert finished.matches_done == 2
    replays = list(arena.replay_dir.rglob("*.json*"))
    assert len(replays) == 2, f"{len(replays)} matches played for 2 scheduled"


def test_kombus_restore_lock_outlives_a_killed_holder_by_one_visibility_timeout() -> None:
    """Its default, 5 minutes, stalled every handing back of a killed worker's matches."""
    code = (
        "from workers.app import app; "
        "print(app.conf.broker_transport_options['unacked_mutex_expire'])"
    )
    env = {**os.environ, **WORKER_ENV}
    shown = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert float(shown.stdout) == float(WORKER_ENV["ARENA_VISIBILITY_TIMEOUT"])
