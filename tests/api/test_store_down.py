"""Redis down: the API and the workers refuse to start with one line naming it, and
calls made while it is away end UNAVAILABLE with a message that says so."""

from __future__ import annotations

import subprocess

import grpc
import pytest

from arena.local_redis import start_redis
from arena.processes import arena_command, free_port, start_service
from arena.v1 import arena_pb2, arena_pb2_grpc


@pytest.mark.parametrize("command", [("api", "serve", "--port", "0"), ("worker",)])
def test_a_service_will_not_start_without_redis(command: tuple[str, ...]) -> None:
    port = free_port()
    run = subprocess.run(
        arena_command(*command, "--redis", f"redis://:secret@127.0.0.1:{port}/3"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 1
    lines = run.stderr.strip().splitlines()
    assert lines == [lines[0]] and "listening" not in run.stdout
    assert f"cannot reach the arena's Redis at 127.0.0.1:{port}/3" in lines[0]
    assert "secret" not in run.stderr


def test_calls_while_redis_is_down_are_unavailable_and_say_why() -> None:
    store = start_redis()
    api = start_service(arena_command("api", "serve", "--port", "0", "--redis", store.url(0)))
    try:
        with grpc.insecure_channel(api.address) as channel:
            stub = arena_pb2_grpc.ArenaStub(channel)
            stub.ListBots(arena_pb2.ListBotsRequest(), timeout=10)  # it works while up
            store.kill()
            for call in (
                lambda: stub.ListBots(arena_pb2.ListBotsRequest(), timeout=30),
                lambda: list(
                    stub.WatchTournament(arena_pb2.WatchTournamentRequest(id="t1"), timeout=30)
                ),
            ):
                with pytest.raises(grpc.RpcError) as raised:
                    call()
                assert raised.value.code() == grpc.StatusCode.UNAVAILABLE
                details = raised.value.details() or ""
                assert f"cannot reach the arena's Redis at 127.0.0.1:{store.port}/0" in details
                assert "try again" in details
    finally:
        api.stop()
        store.stop()
