"""What the competition tests share: an API with an operator token on a Redis database
of its own, a whole season's stack (``season``), specs a few seconds long, and calls
that expect a refusal."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis

from arena.access import bearer
from arena.hosting.transfer import submission
from arena.local_redis import LocalRedis
from arena.processes import Service, arena_command, start_service
from arena.v1 import arena_pb2, arena_pb2_grpc
from tests.support.arena import WORKER_ENV
from tests.support.database import next_database

TOKEN = "operator-token-for-competition-tests"


@dataclass
class Api:
    service: Service
    redis_url: str
    channel: grpc.Channel

    @property
    def stub(self) -> arena_pb2_grpc.ArenaStub:
        return arena_pb2_grpc.ArenaStub(self.channel)

    @property
    def redis(self) -> redis.Redis:
        return redis.Redis.from_url(self.redis_url)

    def operator(self) -> tuple[tuple[str, str | bytes], ...]:
        return (bearer(TOKEN),)

    def create(self, spec: arena_pb2.CompetitionSpec) -> arena_pb2.Competition:
        made: arena_pb2.Competition = self.stub.CreateCompetition(
            arena_pb2.CreateCompetitionRequest(spec=spec), metadata=self.operator()
        )
        return made

    def invites(self, name: str, **fields: Any) -> list[str]:
        issued = self.stub.CreateInvites(
            arena_pb2.CreateInvitesRequest(competition=name, **fields), metadata=self.operator()
        )
        return list(issued.codes)

    def join(self, code: str, author: str) -> arena_pb2.JoinCompetitionResponse:
        joined: arena_pb2.JoinCompetitionResponse = self.stub.JoinCompetition(
            arena_pb2.JoinCompetitionRequest(invite=code, author=author)
        )
        return joined

    def stop(self) -> None:
        self.channel.close()
        self.service.stop()


def start_api(local_redis: LocalRedis, tmp: Path, *flags: str, url: str = "") -> Api:
    """An API with the operator token ``TOKEN`` on a database of its own (or ``url``)."""
    url = url or local_redis.url(next_database())
    token_file = tmp / "op-token"
    token_file.write_text(TOKEN + "\n")
    service = start_service(
        arena_command(
            "api", "serve", "--port", "0", "--redis", url, "--token-file", str(token_file), *flags
        )
    )
    return Api(service, url, grpc.insecure_channel(service.address))


@contextmanager
def season(
    local_redis: LocalRedis, tmp: Path, name: str, workers: int, concurrency: int
) -> Iterator[Api]:
    """What a season is played on: a referee that hosts bots, an API that lets authors
    join as fast as a test does, and ``workers`` Celery workers whose watchdog looks every
    half second (the phases, ladders and finals follow it)."""
    referee = start_service(
        arena_command(
            "referee", "serve", "--port", "0", "--replay-dir", str(tmp / "replays"),
            "--hosting-dir", str(tmp / "hosting"),
        )
    )  # fmt: skip
    api = start_api(local_redis, tmp, "--join-burst", "1000", "--joins-per-minute", "6000")
    started: list[Service] = [
        start_service(
            arena_command(
                "worker", "--redis", api.redis_url, "--referee", referee.address,
                "--concurrency", str(concurrency), "--name", f"{name}-{i}@competition-test",
                "--loglevel", "WARNING",
            ),
            env={**WORKER_ENV, "ARENA_WATCHDOG_INTERVAL": "0.5"},
        )
        for i in range(workers)
    ]  # fmt: skip
    try:
        yield api
    finally:
        for worker in started:
            worker.kill()
        api.stop()
        referee.stop()


def submit(api: Api, token: str, name: str, label: str, blob: bytes) -> arena_pb2.HostedBotVersion:
    """SubmitBot of the package ``blob`` as ``name@label``, with an author's token."""
    found: arena_pb2.HostedBotVersion = api.stub.SubmitBot(
        submission(
            arena_pb2.SubmitBotRequest(
                name=name, version=label, runtime="python3.11", command="python3 bot.py",
                package=blob,
            )
        ),
        metadata=(bearer(token),),
    )  # fmt: skip
    return found


def competition(api: Api, name: str) -> arena_pb2.Competition:
    found: arena_pb2.Competition = api.stub.GetCompetition(
        arena_pb2.GetCompetitionRequest(name=name)
    )
    return found


def stamp(seconds: float) -> Any:
    from arena.api.common import timestamp

    return timestamp(seconds)


def spec(
    name: str,
    opens_in: float = 3600,
    open_for: float = 3600,
    final_for: float = 3600,
    **fields: Any,
) -> arena_pb2.CompetitionSpec:
    """A spec whose timeline starts ``opens_in`` seconds from now."""
    opens = time.time() + opens_in
    return arena_pb2.CompetitionSpec(
        name=name,
        timeline=arena_pb2.CompetitionTimeline(
            opens_at=stamp(opens),
            submissions_close_at=stamp(opens + open_for),
            final_ends_at=stamp(opens + open_for + final_for),
        ),
        **fields,
    )


def refused(call: Any, code: grpc.StatusCode, *words: str) -> str:
    """The details of the refusal ``call()`` must raise with ``code``, which name every
    one of ``words``."""
    with pytest.raises(grpc.RpcError) as raised:
        call()
    error: Any = raised.value
    assert error.code() == code, error.details()
    details: str = error.details()
    for word in words:
        assert word in details, details
    return details
