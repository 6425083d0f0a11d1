"""An arena API with the operator's token, on a Redis database of its own, and hosted
bots' packages to submit to it; shared by the hosted-bot tests of the API, access and
the CLI."""

from __future__ import annotations

import io
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
import redis

from arena.access import bearer
from arena.hosting import example_packages
from arena.hosting.package import pack
from arena.local_redis import LocalRedis
from arena.processes import Service, arena_command, start_service
from arena.v1 import arena_pb2, arena_pb2_grpc
from tests.support.database import next_database

OPERATOR = "operator-token-for-hosted-bots"
SERVES = """
    from arena.bots.examples.random_bot import RandomBot
    from arena.bots.sdk import serve
    serve(RandomBot())
"""


@dataclass
class HostedApi:
    service: Service
    url: str
    channel: grpc.Channel

    @property
    def address(self) -> str:
        return self.service.address

    @property
    def stub(self) -> arena_pb2_grpc.ArenaStub:
        return arena_pb2_grpc.ArenaStub(self.channel)

    @property
    def redis(self) -> redis.Redis:
        return redis.Redis.from_url(self.url)

    def stop(self) -> None:
        self.channel.close()
        self.service.stop()


def start_api(
    local_redis: LocalRedis,
    directory: Path,
    token: str | None = OPERATOR,
    extra: tuple[str, ...] = (),
    url: str | None = None,
) -> HostedApi:
    """An API with ``token`` and the ``extra`` flags, on a database of its own unless
    ``url`` names one; with no ``--referee`` among the flags it checks submitted bots in
    sandboxes of its own."""
    url = url or local_redis.url(next_database())
    flags: list[str] = []
    if token:
        (directory / "token").write_text(token + "\n")
        flags = ["--token-file", str(directory / "token")]
    service = start_service(
        arena_command("api", "serve", "--port", "0", "--redis", url, *flags, *extra),
        env={"ARENA_API_TOKEN": "", "ARENA_REFEREES": "", "ARENA_REFEREE_TOKEN": ""},
    )
    return HostedApi(service, url, grpc.insecure_channel(service.address))


def as_(token: str) -> tuple[tuple[str, str], ...]:
    """The metadata that carries ``token`` (none for an empty one)."""
    return (bearer(token),) if token else ()


def python_bot(directory: Path, source: str = SERVES) -> Path:
    """A package directory holding ``bot.py``."""
    return example_packages.python_package(directory, source)


def python_package(directory: Path, source: str = SERVES) -> bytes:
    return pack(python_bot(directory, source))


def tar_gz(*members: tarfile.TarInfo | tuple[str, bytes]) -> bytes:
    """A tar.gz of exactly these members (``pack`` would refuse the bad ones)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for member in members:
            if isinstance(member, tarfile.TarInfo):
                archive.addfile(member)
                continue
            name, data = member
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def request(
    name: str,
    package: bytes,
    version: str = "v1",
    runtime: str = "python3.11",
    command: str = "python3 bot.py",
) -> arena_pb2.SubmitBotRequest:
    return arena_pb2.SubmitBotRequest(
        name=name, version=version, runtime=runtime, command=command, package=package
    )


def refusal(
    call: Callable[..., object], *args: object, **kwargs: object
) -> tuple[grpc.StatusCode, str]:
    """The status code and message a call was refused with."""
    with pytest.raises(grpc.RpcError) as refused:
        call(*args, **kwargs)
    return refused.value.code(), refused.value.details() or ""


def stored(client: redis.Redis) -> dict[bytes, bytes]:
    """Every key of the database and its serialized value, to show that nothing changed."""
    return {key: client.dump(key) for key in client.scan_iter()}  # type: ignore[misc]
