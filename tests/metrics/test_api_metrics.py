"""The Arena API's /metrics: every call with one answer (unary, or a stream of pieces)
counted with the status it ended with."""

from __future__ import annotations

import shutil
import subprocess
import time

import grpc
import pytest

from arena.local_redis import LocalRedis, free_port
from arena.processes import arena_command, start_service
from arena.v1 import arena_pb2, arena_pb2_grpc
from tests.support.database import next_database
from tests.support.metrics import samples, scrape


def test_api_calls_are_counted_by_method_and_status(local_redis: LocalRedis) -> None:
    port = free_port()
    api = start_service(
        arena_command(
            "api", "serve", "--port", "0", "--redis", local_redis.url(next_database()),
            "--metrics-port", str(port),
        )
    )  # fmt: skip
    try:
        with grpc.insecure_channel(api.address) as channel:
            stub = arena_pb2_grpc.ArenaStub(channel)
            stub.ListBots(arena_pb2.ListBotsRequest())
            stub.ListBots(arena_pb2.ListBotsRequest())
            for request in (
                arena_pb2.RegisterBotRequest(name="bad name!", address="127.0.0.1:1"),
                arena_pb2.RegisterBotRequest(name="", address=""),
            ):
                with pytest.raises(grpc.RpcError):
                    stub.RegisterBot(request)
            with pytest.raises(grpc.RpcError):  # a stream of pieces, with no first message
                stub.SubmitBot(iter([]))
            with pytest.raises(grpc.RpcError):
                stub.GetTournament(arena_pb2.GetTournamentRequest(id="tmissing"))
        # A call is counted once its handler has returned, which may be a moment after
        # its caller heard the answer: look again until the last one is in.
        last = ("arena_api_requests_total", (("code", "NOT_FOUND"), ("method", "GetTournament")))
        for _ in range(100):
            text = scrape(f"http://127.0.0.1:{port}/metrics")
            values = samples(text)
            if last in values:
                break
            time.sleep(0.05)
    finally:
        api.stop()

    def calls(method: str, code: str) -> float:
        return values[("arena_api_requests_total", (("code", code), ("method", method)))]

    assert calls("ListBots", "OK") == 2
    assert calls("RegisterBot", "INVALID_ARGUMENT") == 2
    assert calls("GetTournament", "NOT_FOUND") == 1
    assert calls("SubmitBot", "INVALID_ARGUMENT") == 1
    promtool = shutil.which("promtool")
    assert promtool, "promtool is missing: run `make promtool` (Debian's prometheus package)"
    check = subprocess.run(
        [promtool, "check", "metrics"], input=text, capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout + check.stderr
