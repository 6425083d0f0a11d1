"""``arena referee serve --processes 2``: one address, matches played by both processes,
their metrics summed on one port, and every process stopped with the parent."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc
import pytest
from prometheus_client import CollectorRegistry, multiprocess

from arena import wire
from arena.processes import Service, arena_command, free_port, start_service
from arena.v1 import referee_pb2, referee_pb2_grpc
from tests.support.bots import BotFactory
from tests.support.metrics import samples, scrape
from tests.support.processes import pids
from tests.support.waiting import wait_until

MATCHES = 16
COUNT = "arena_referee_match_duration_seconds_count"


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def gone(pids: list[int], timeout: float = 20) -> bool:
    deadline = time.monotonic() + timeout
    while any(alive(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


@pytest.fixture
def metrics_dir(tmp_path: Path) -> Path:
    return tmp_path / "metrics"


@pytest.fixture
def referees(tmp_path: Path, metrics_dir: Path) -> Iterator[tuple[Service, int]]:
    metrics_port = free_port()
    service = start_service(
        arena_command(
            "referee", "serve", "--port", "0", "--processes", "2",
            "--replay-dir", str(tmp_path / "replays"), "--hosting-dir", str(tmp_path / "h"),
            "--metrics-port", str(metrics_port),
        ),
        env={"PROMETHEUS_MULTIPROC_DIR": str(metrics_dir)},
    )  # fmt: skip
    yield service, metrics_port
    service.stop()


def play(address: str, bots: list[str], seed: int, deadline_s: float = 2.0) -> None:
    # A connection per match, as a worker opens (the kernel hands each to one process);
    # channels open at once in one process would share one without a pool of their own.
    options = [("grpc.use_local_subchannel_pool", 1)]
    with grpc.insecure_channel(address, options=options) as channel:
        referee_pb2_grpc.RefereeStub(channel).PlayMatch(
            referee_pb2.PlayMatchRequest(
                game="bid-euchre", bots=bots, seed=seed, move_deadline=wire.duration(deadline_s)
            )
        )


def matches_played_by(pid: int, metrics_dir: Path, scratch: Path) -> float:
    """What one process's metric files say it played."""
    scratch.mkdir()
    for path in metrics_dir.glob(f"*_{pid}.db"):
        shutil.copy(path, scratch)
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=str(scratch))  # type: ignore[no-untyped-call]
    return sum(s.value for family in registry.collect() for s in family.samples if s.name == COUNT)


def running_matches(metrics_port: int) -> float:
    summed = samples(scrape(f"http://127.0.0.1:{metrics_port}/metrics"))
    return sum(v for (name, _), v in summed.items() if name == "arena_referee_matches_running")


def test_both_processes_play_and_sigterm_stops_all(
    referees: tuple[Service, int], start_bot: BotFactory, metrics_dir: Path, tmp_path: Path
) -> None:
    referee, metrics_port = referees
    children = pids(referee)
    bots = [start_bot("random", "--seed", "1").address, start_bot("house").address]
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda seed: play(referee.address, bots, seed), range(MATCHES)))

    played = {pid: matches_played_by(pid, metrics_dir, tmp_path / str(pid)) for pid in children}
    assert sum(played.values()) == MATCHES
    assert all(n > 0 for n in played.values()), f"one process played them all: {played}"
    summed = samples(scrape(f"http://127.0.0.1:{metrics_port}/metrics"))
    assert sum(v for (name, _), v in summed.items() if name == COUNT) == MATCHES

    # A match in flight when SIGTERM comes ends as on a single referee: cut short.
    slow = start_bot("paced", "--delay-ms", "50").address
    failed: list[grpc.RpcError] = []

    def slow_match() -> None:
        try:
            play(referee.address, [slow, slow], 7, deadline_s=5.0)
        except grpc.RpcError as error:
            failed.append(error)

    caller = threading.Thread(target=slow_match)
    caller.start()
    deadline = time.monotonic() + 30
    while not running_matches(metrics_port):  # not a fixed pause: a refused call fails too
        assert time.monotonic() < deadline, "the slow match never started"
        time.sleep(0.05)
    referee.process.send_signal(signal.SIGTERM)
    assert referee.process.wait(timeout=30) == 0
    caller.join(timeout=10)
    assert failed, "the match in flight was not ended"
    assert gone(children), "a referee process outlived the parent"


def test_a_child_that_dies_stops_the_rest_and_fails_the_parent(
    referees: tuple[Service, int],
) -> None:
    referee, _ = referees
    victim, survivor = pids(referee)
    os.kill(victim, signal.SIGKILL)
    assert referee.process.wait(timeout=30) == 1
    assert gone([survivor])
    wait_until(  # the last line is read by the Service's thread
        lambda: any(
            f"(pid {victim}) exited with signal SIGKILL" in line for line in referee.output
        ),
        timeout=10,
        what=f"the referee to say its child (pid {victim}) was killed",
    )


def test_a_port_another_process_listens_on_is_refused(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        finished = subprocess.run(
            arena_command(
                "referee", "serve", "--port", str(port), "--processes", "2",
                "--replay-dir", str(tmp_path),
            ),
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert finished.returncode == 1
    assert "Address already in use" in finished.stderr
