"""The soak: one tournament through two referees and three workers while a scripted
schedule kills and stops workers, referees and Redis, among bots that misbehave. Every
scheduled match must end with exactly one stored result, stored with its record, which
re-runs to it, and every fault a stored result counts must be in its referee's metrics.

Workers and referees run with the settings deploy ships (``SETTINGS``), visibility
timeout, leases and keepalives included, and the referees keep no replays, as shipped. Bounded (a few minutes); the figures it prints
are the ones in docs/architecture.md.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest
from google.protobuf import duration_pb2

from arena.local_redis import LocalRedis, start_redis
from arena.processes import Service, arena_command, free_port, start_service
from arena.replay.match_log import decode, replay
from arena.replay.verify import verify_replay
from arena.store import TournamentStore, keys
from arena.store.replay_import import outcome
from arena.v1 import arena_pb2
from tests import shipped
from tests.support.arena import WHOLE, Arena, assert_complete_once
from tests.support.metrics import samples, scrape_port, total

SETTINGS = shipped.worker_env()


@dataclass
class Soak:
    arena: Arena
    redis_server: LocalRedis
    tmp_path: Path
    referees: dict[str, Service] = field(default_factory=dict)
    referee_ports: dict[str, tuple[int, int]] = field(default_factory=dict)
    injected: list[str] = field(default_factory=list)

    def start_referee(self, name: str) -> Service:
        port, metrics_port = self.referee_ports.setdefault(name, (free_port(), free_port()))
        self.referees[name] = start_service(
            arena_command(
                "referee", "serve", "--port", str(port), "--metrics-port", str(metrics_port),
            )
        )  # fmt: skip
        return self.referees[name]

    def address(self, name: str) -> str:
        return f"127.0.0.1:{self.referee_ports[name][0]}"

    def done(self, tournament_id: str) -> int:
        """Matches done, through an API whose Redis may be away for a moment."""
        while True:
            try:
                return self.arena.get(tournament_id).matches_done
            except grpc.RpcError as error:
                assert error.code() == grpc.StatusCode.UNAVAILABLE, error
                time.sleep(0.2)

    def at(self, tournament_id: str, done: int, what: str, act: Callable[[], None]) -> None:
        deadline = time.monotonic() + 300
        while self.done(tournament_id) < done:
            assert time.monotonic() < deadline, f"no progress to {done} before {what}"
            time.sleep(0.2)
        act()
        self.injected.append(what)


def _signal_group(service: Service, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):  # a killed one is gone
        os.killpg(service.process.pid, sig)  # the worker's pool children too


@pytest.fixture
def soak(tmp_path: Path) -> Iterator[Soak]:
    redis_server = start_redis(aof_dir=str(tmp_path))
    url = redis_server.url(0)
    replay_dir = tmp_path / "replays"
    api = start_service(arena_command("api", "serve", "--port", "0", "--redis", url))
    arena = Arena(url, replay_dir, referee=api, api=api)  # referees are the soak's own
    state = Soak(arena, redis_server, tmp_path)
    try:
        yield state
    finally:
        for worker in arena.workers:  # a stopped one must wake to die
            _signal_group(worker, signal.SIGCONT)
        for referee in state.referees.values():
            referee.process.send_signal(signal.SIGCONT)
            referee.stop()
        arena.stop()
        redis_server.stop()


def test_soak_through_killed_and_stopped_workers_referees_and_redis(soak: Soak) -> None:
    arena = soak.arena
    for name in ("r1", "r2"):
        soak.start_referee(name)
    referees = [soak.address("r1"), soak.address("r2")]
    workers = [
        arena.start_worker(f"w{i}", concurrency=2, referees=referees, settings=SETTINGS)
        for i in (1, 2, 3)
    ]
    arena.start_bot("rand", "random", "--seed", "7")
    arena.start_bot("house", "house")
    arena.start_bot("garbage", "chaos", "--mode", "garbage", "--after", "4")
    arena.start_bot("late", "chaos", "--mode", "late", "--after", "2", "--delay-ms", "100")
    arena.start_bot("double", "chaos", "--mode", "double")
    tournament = arena.submit(
        ["rand", "house", "garbage", "late", "double"],
        deals=3,
        games=["bid-euchre", "seep"],
        game_options=WHOLE,
        move_deadline=duration_pb2.Duration(nanos=200_000_000),
    )
    scheduled = tournament.matches_total
    tid = tournament.id

    def kill_worker(index: int, restart: bool) -> Callable[[], None]:
        def act() -> None:
            workers[index].kill()
            if restart:
                workers[index] = arena.start_worker(
                    f"w{index + 1}b", 2, referees, settings=SETTINGS
                )

        return act

    def pause(service: Service, seconds: float, group: bool) -> Callable[[], None]:
        def act() -> None:
            if group:
                _signal_group(service, signal.SIGSTOP)
            else:
                service.process.send_signal(signal.SIGSTOP)
            time.sleep(seconds)  # the pause is the fault injected: it lasts this long
            if group:
                _signal_group(service, signal.SIGCONT)
            else:
                service.process.send_signal(signal.SIGCONT)

        return act

    def restart_redis() -> None:
        soak.redis_server.kill()
        time.sleep(2)  # the outage is the fault injected: it lasts this long
        restarted = start_redis(port=soak.redis_server.port, aof_dir=str(soak.tmp_path))
        soak.redis_server.process = restarted.process

    def restart_referee(name: str) -> Callable[[], None]:
        def act() -> None:
            soak.referees[name].kill()
            time.sleep(2)  # the outage is the fault injected: it lasts this long
            soak.start_referee(name)

        return act

    schedule = [
        (0.10, "SIGKILL worker w1 (restarted)", kill_worker(0, restart=True)),
        (0.25, "SIGSTOP referee r1 for 4 s", pause(soak.referees["r1"], 4, group=False)),
        (0.40, "SIGKILL Redis (restarted from its AOF)", restart_redis),
        (0.55, "SIGKILL referee r2 (restarted)", restart_referee("r2")),
        (0.70, "SIGSTOP worker w2 for 40 s", lambda: pause(workers[1], 40, group=True)()),
        (0.85, "SIGKILL worker w3 (not restarted)", kill_worker(2, restart=False)),
    ]
    for share, what, act in schedule:
        soak.at(tid, int(scheduled * share), what, act)
    assert_complete_once(arena, tid, scheduled)

    store = TournamentStore(arena.redis)
    results = store.results(tid)
    logs = store.match_logs(tid, [r.match_id for r in results])
    stored_faults: Counter[tuple[str, str]] = Counter()  # (referee, kind)
    forfeits = 0
    for result, log in zip(results, logs, strict=True):
        # Every result has its record (the referees, as shipped, keep none), and it re-runs
        # to the result: same ending, decisions, scores, faults per team and kind.
        assert log is not None, result.match_id
        rerun = replay(decode(log))
        assert rerun.difference(**outcome(result)) is None, result.match_id
        document = rerun.document
        verify_replay(document)
        for f in document["faults"]:
            stored_faults[(result.referee, f["kind"])] += 1
        forfeits += result.forfeit_team is not None
    assert forfeits == arena.get(tid).forfeits > 0, "the misbehaving bots should forfeit"

    # r1 was only stopped, never restarted: its counters saw every fault it recorded,
    # those of attempts that were abandoned as well.
    r1_metrics = samples(scrape_port(soak.referee_ports["r1"][1]))
    for (referee, kind), count in stored_faults.items():
        if referee == soak.address("r1"):
            seen = total(r1_metrics, "arena_referee_faults_total", kind=kind)
            assert seen >= count, (kind, seen, count)
    record = TournamentStore(arena.redis).get(tid)
    assert record is not None and record.attempts is not None and record.retried is not None
    assert not arena.redis.exists(keys.tries(tid))  # dropped with its end
    said = [line for worker in arena.workers for line in worker.output]
    handed = sum("handed back to the queue" in line for line in said)
    print(
        f"\nsoak: {scheduled} matches, {len(soak.injected)} infrastructure faults injected "
        f"({'; '.join(soak.injected)}), {sum(stored_faults.values())} bot faults in "
        f"{forfeits} forfeits, {record.attempts} attempts ({record.retried} matches "
        f"tried more than once, {handed} deliveries handed back); lost 0, double-counted 0"
    )
    board = arena.stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(tournament_id=tid))
    assert board.matches == scheduled
