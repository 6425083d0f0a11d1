"""Liveness and readiness against a real arena API that is stopped and started again:
``/livez`` answers while the process does, ``/readyz`` only while the API does."""

from __future__ import annotations

import signal
import time
import urllib.error
import urllib.request

from arena.local_redis import LocalRedis
from arena.processes import Service, arena_command, free_port, start_service
from tests.support.database import next_database


def probe(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def until(url: str, status: int, timeout: float = 30.0) -> tuple[int, str]:
    """Probe ``url`` until it answers ``status`` (gRPC reconnects with a backoff)."""
    deadline = time.monotonic() + timeout
    while True:
        answer = probe(url)
        if answer[0] == status or time.monotonic() > deadline:
            return answer
        time.sleep(0.3)


def test_readyz_fails_while_the_api_is_down_and_livez_does_not(local_redis: LocalRedis) -> None:
    redis = local_redis.url(next_database())
    address = f"127.0.0.1:{free_port()}"
    port = address.rsplit(":", 1)[1]

    def start_api() -> Service:
        return start_service(arena_command("api", "serve", "--port", port, "--redis", redis))

    api = start_api()
    web = start_service(arena_command("leaderboard", "serve", "--port", "0", "--api", address))
    try:
        assert until(f"{web.address}/readyz", 200) == (200, "ok\n")
        api.stop()
        status, text = until(f"{web.address}/readyz", 503)
        assert status == 503
        assert text.startswith(f"not ready: cannot reach the arena API at {address} ("), text
        for live in ("/livez", "/healthz"):
            assert probe(web.address + live) == (200, "ok\n")

        api = start_api()
        assert until(f"{web.address}/readyz", 200) == (200, "ok\n")
        web.process.send_signal(signal.SIGINT)  # Ctrl-C stops it as cleanly as SIGTERM
        assert web.process.wait(timeout=10) == 0
    finally:
        web.stop()
        api.stop()
