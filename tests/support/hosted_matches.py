"""Hosted bots played by a referee in this process: packages, the referee, a match and its logs."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import grpc

from arena import wire
from arena.hosting.example_packages import PYTHON_COMMAND, python_package
from arena.hosting.package import digest, pack
from arena.referee.service import RefereeServer, start_server
from arena.v1 import referee_pb2, referee_pb2_grpc

SHORT = {"max_hands": "1"}


class Package:
    """A package's bytes and digest, to put in ``PlayMatchRequest.hosted``."""

    def __init__(self, directory: Path, source: str = "") -> None:
        self.blob = pack(python_package(directory, source) if source else directory)
        self.sha256 = digest(self.blob)

    def entry(self, *, with_bytes: bool = True, **fields: str) -> referee_pb2.HostedBot:
        values = {
            "package_sha256": self.sha256,
            "runtime": "python3.11",
            "command": PYTHON_COMMAND,
            **fields,
        }
        return referee_pb2.HostedBot(package=self.blob if with_bytes else b"", **values)


@contextlib.asynccontextmanager
async def referee(
    tmp_path: Path, **options: object
) -> AsyncIterator[tuple[referee_pb2_grpc.RefereeAsyncStub, RefereeServer]]:
    """A referee in this process on a free loopback port, its packages and logs in
    ``tmp_path``; stopped (with every sandbox it started) on the way out."""
    server, port = await start_server(
        port=0,
        replay_dir=tmp_path / "replays",
        hosting_dir=tmp_path / "hosting",
        **options,  # type: ignore[arg-type]
    )
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            yield referee_pb2_grpc.RefereeStub(channel), server
    finally:
        await server.stop(grace=None)


def request(
    bots: list[str], hosted: dict[int, referee_pb2.HostedBot], **fields: object
) -> referee_pb2.PlayMatchRequest:
    return referee_pb2.PlayMatchRequest(
        game="bid-euchre",
        bots=bots,
        hosted=hosted,
        seed=3,
        **{"options": SHORT, "move_deadline": wire.duration(2.0), **fields},  # type: ignore[arg-type]
    )


async def play(
    stub: referee_pb2_grpc.RefereeAsyncStub,
    bots: list[str],
    hosted: dict[int, referee_pb2.HostedBot],
    **fields: object,
) -> referee_pb2.MatchResult:
    result: referee_pb2.MatchResult = await stub.PlayMatch(
        request(bots, hosted, **fields), timeout=120
    )
    return result


def logs_by_seat(result: referee_pb2.MatchResult) -> dict[int, referee_pb2.SeatLog]:
    return {log.seat: log for log in result.seat_logs}
