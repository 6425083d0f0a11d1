"""WatchMatch on ``arena referee serve --processes 4``: every call through the shared
address reaches the process playing the match on the first try, whichever process the
connection lands on, and the private sockets that make it so are this user's alone."""

from __future__ import annotations

import itertools
import os
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from arena import wire
from arena.processes import Service, arena_command, free_port, start_service
from arena.v1 import referee_pb2, referee_pb2_grpc
from tests.support.bots import BotFactory
from tests.support.metrics import samples, scrape
from tests.support.processes import pids

PROCESSES = 4
MATCHES = 6
WATCHES = 40
FRESH = [("grpc.use_local_subchannel_pool", 1)]
"""A connection of its own per channel: the kernel hands each to any of the processes."""


@pytest.fixture
def referees(tmp_path: Path) -> Iterator[tuple[Service, int]]:
    metrics_port = free_port()
    service = start_service(
        arena_command(
            "referee", "serve", "--port", "0", "--processes", str(PROCESSES),
            "--replay-dir", str(tmp_path / "replays"), "--hosting-dir", str(tmp_path / "h"),
            "--metrics-port", str(metrics_port),
        ),
        timeout=90,
        env={"PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics")},
    )  # fmt: skip
    yield service, metrics_port
    service.stop()


def running(metrics_port: int) -> float:
    values = samples(scrape(f"http://127.0.0.1:{metrics_port}/metrics"))
    return sum(v for (name, _), v in values.items() if name == "arena_referee_matches_running")


def watch(address: str, match_id: str, events: int | None = None) -> list[referee_pb2.MatchEvent]:
    """The first ``events`` of the match (all of them if None) from one WatchMatch call
    on a connection of its own."""
    with grpc.insecure_channel(address, options=FRESH) as channel:
        call = referee_pb2_grpc.RefereeStub(channel).WatchMatch(
            referee_pb2.WatchMatchRequest(match_id=match_id), timeout=60
        )
        got = list(itertools.islice(call, events))
        call.cancel()  # type: ignore[no-untyped-call]  # grpc-stubs: Call.cancel is unannotated
        return got


def test_every_watch_reaches_the_playing_process_on_the_first_call(
    referees: tuple[Service, int], start_bot: BotFactory
) -> None:
    referee, metrics_port = referees
    paced = start_bot("paced", "--delay-ms", "50").address
    ids = [f"spread-{n}" for n in range(MATCHES)]
    channels = [grpc.insecure_channel(referee.address, options=FRESH) for _ in ids]
    plays = [
        referee_pb2_grpc.RefereeStub(channel).PlayMatch.future(
            referee_pb2.PlayMatchRequest(
                game="bid-euchre",
                bots=[paced, paced],
                seed=n,
                move_deadline=wire.duration(5.0),
                match_id=match_id,
            )
        )
        for n, (match_id, channel) in enumerate(zip(ids, channels, strict=True))
    ]
    try:
        for _ in range(600):  # until every match has reached its process
            if running(metrics_port) == MATCHES:
                break
            threading.Event().wait(0.05)
        assert running(metrics_port) == MATCHES

        for n in range(WATCHES):
            match_id = ids[n % MATCHES]
            first, second = watch(referee.address, match_id, 2)  # NOT_FOUND would raise
            assert first.kind == referee_pb2.MATCH_EVENT_KIND_STARTED
            assert (first.match_id, first.sequence) == (match_id, 0)
            assert (second.match_id, second.sequence) == (match_id, 1)

        for unknown in range(PROCESSES):
            with pytest.raises(grpc.RpcError) as caught:
                watch(referee.address, f"never-played-{unknown}")
            assert caught.value.code() == grpc.StatusCode.NOT_FOUND
            assert f"'never-played-{unknown}'" in (caught.value.details() or "")
    finally:
        for play in plays:
            play.cancel()  # type: ignore[no-untyped-call]  # grpc-stubs: Call.cancel is unannotated
    # Relayed streams end as the match does, with every event once and in order.
    for match_id in ids:
        events = watch(referee.address, match_id)
        assert [e.sequence for e in events] == list(range(len(events)))
        assert events[-1].kind == referee_pb2.MATCH_EVENT_KIND_ENDED
    for channel in channels:
        channel.close()


def _listening(pid: int) -> tuple[set[int], set[str]]:
    """The TCP ports and unix socket paths that process ``pid`` listens on."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        with_target = os.readlink(f"/proc/{pid}/fd/{fd}") if fd.isdigit() else ""
        if with_target.startswith("socket:["):
            inodes.add(with_target[len("socket:[") : -1])
    ports = set()
    for table in ("tcp", "tcp6"):
        with open(f"/proc/{pid}/net/{table}") as rows:
            for row in list(rows)[1:]:
                fields = row.split()
                if fields[3] == "0A" and fields[9] in inodes:  # LISTEN
                    ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    paths = set()
    with open(f"/proc/{pid}/net/unix") as rows:
        for row in list(rows)[1:]:
            fields = row.split()
            if len(fields) == 8 and fields[6] in inodes and int(fields[3], 16) & 0x10000:
                paths.add(fields[7])  # __SO_ACCEPTCON: listening
    return ports, paths


def test_private_sockets_are_unix_sockets_only_this_user_can_reach(
    referees: tuple[Service, int],
) -> None:
    referee, _ = referees
    port = int(referee.address.rsplit(":", 1)[1])
    directories = set()
    for pid in pids(referee, PROCESSES):
        ports, paths = _listening(pid)
        assert ports == {port}, f"process {pid} listens on TCP ports {ports}"
        (path,) = paths
        directories.add(os.path.dirname(path))
    (directory,) = directories
    status = os.stat(directory)
    assert stat.S_IMODE(status.st_mode) == 0o700
    assert status.st_uid == os.getuid()
    referee.stop()
    assert not os.path.exists(directory), "the private sockets' directory was left behind"
