"""A caller without the operator's token learns only whether a bot answered at an
address, never how the probe failed; the API's log keeps the detail, and a token holder
gets it too."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import grpc
import pytest

from arena.access import bearer
from arena.api.probe import no_bot_answered
from arena.local_redis import LocalRedis
from arena.processes import Service, arena_command, free_port, start_service
from arena.v1 import arena_pb2, arena_pb2_grpc
from tests.support.database import next_database

TOKEN = "api-operator-token"


class _NotFound(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_error(404)

    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def web_server() -> Iterator[str]:
    """An HTTP/1.1 server on loopback that answers 404 to everything."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _NotFound)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def silent_listener() -> Iterator[str]:
    """A port that accepts connections and never says a word."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield f"127.0.0.1:{listener.getsockname()[1]}"


def api(local_redis: LocalRedis, *flags: str) -> Service:
    url = local_redis.url(next_database())
    return start_service(arena_command("api", "serve", "--port", "0", "--redis", url, *flags))


def failure(address: str, stub: arena_pb2_grpc.ArenaStub, token: str = "") -> str:
    metadata = (bearer(token),) if token else ()
    with pytest.raises(grpc.RpcError) as refused:
        stub.RegisterBot(arena_pb2.RegisterBotRequest(name="x", address=address), metadata=metadata)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    return refused.value.details() or ""


def logged(service: Service, text: str) -> bool:
    """Whether the service has written a line containing ``text`` (its output is read
    by a thread, so a line may take a moment to arrive)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if any(text in line for line in list(service.output)):
            return True
        time.sleep(0.05)
    return False


def test_an_anonymous_caller_hears_the_same_words_for_every_failure(
    local_redis: LocalRedis, referee: Service
) -> None:
    open_api = api(local_redis)
    try:
        with (
            grpc.insecure_channel(open_api.address) as channel,
            web_server() as web,
            silent_listener() as silent,
        ):
            stub = arena_pb2_grpc.ArenaStub(channel)
            closed = f"127.0.0.1:{free_port()}"
            # Nothing listening, a web server's 404, a port that never answers, a gRPC
            # server with no Bot service (the referee), a name that does not resolve.
            # Each answer takes the whole Hello timeout, so they are asked at once.
            addresses = (closed, web, silent, referee.address, "no-such-host.invalid:7000")
            with ThreadPoolExecutor(len(addresses)) as pool:
                heard = list(pool.map(lambda address: failure(address, stub), addresses))
            assert heard == [no_bot_answered(address) for address in addresses]
            assert logged(
                open_api, f"the bot at {referee.address} did not answer Hello: UNIMPLEMENTED"
            )
            assert logged(
                open_api,
                "the bot at no-such-host.invalid:7000 did not answer Hello: its host name does not resolve",
            )
    finally:
        open_api.stop()


def test_a_token_holder_hears_why(
    local_redis: LocalRedis, referee: Service, tmp_path: Path
) -> None:
    (tmp_path / "token").write_text(TOKEN)
    guarded = api(local_redis, "--token-file", str(tmp_path / "token"))
    try:
        with grpc.insecure_channel(guarded.address) as channel:
            stub = arena_pb2_grpc.ArenaStub(channel)
            detail = failure(referee.address, stub, TOKEN)
            assert detail.startswith(
                f"bot at {referee.address} did not answer Hello: UNIMPLEMENTED"
            )
    finally:
        guarded.stop()
