"""Serving the site with uvicorn: ``arena leaderboard serve``.

The socket is bound before the event loop starts, so a busy port is an ``OSError`` the
CLI reports in one line, and ``--port 0`` is known before the ready line is printed.
SIGTERM and SIGINT stop it gracefully (requests in flight finish, for a few seconds at
most) and the process exits 0: being stopped is how a server's life ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
from collections.abc import Iterator

import uvicorn

from arena.throttle import READS_PER_S, Throttle
from arena.web.app import create_app
from arena.web.relay import PER_CLIENT

GRACE_S = 5


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


class Server(uvicorn.Server):
    """Uvicorn's server, saying where it listens once it does, and treating a stop
    signal as the normal end (uvicorn re-raises it, which would kill the process)."""

    def __init__(self, config: uvicorn.Config, url: str) -> None:
        super().__init__(config)
        self.url = url

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            print(f"leaderboard listening on {self.url}", flush=True)

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        stops = (signal.SIGTERM, signal.SIGINT)
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in stops}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (IPv6 if the host is an IPv6 address).

    Made with ``IPPROTO_TCP`` named: asyncio turns Nagle's algorithm off only on
    connections whose socket says TCP, and with it on, every answer after the first on a
    kept-alive connection (headers and body written apart) waited 40 ms for the
    client's delayed ACK (``bench.web_render``)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        # As every server does: a port a stopped server left in TIME_WAIT is free again.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def serve(
    api: str,
    host: str = "127.0.0.1",
    port: int = 8000,
    viewers_per_client: int = PER_CLIENT,
    replay_reads_per_s: float = READS_PER_S,
    read_token: str = "",
) -> None:
    """Serve the leaderboard of the arena API at ``api`` until SIGTERM or SIGINT, sending
    ``read_token`` (if any) with every call (``arena.api.reads``).

    Raises OSError if it cannot listen on ``host:port``."""
    sock = listen(host, port)
    app = create_app(
        api,
        per_client=viewers_per_client,
        costly=Throttle(rate_per_s=replay_reads_per_s),
        read_token=read_token,
    )
    config = uvicorn.Config(
        app,
        lifespan="on",
        log_level="warning",
        access_log=False,
        server_header=False,  # the site sends its own
        ws="none",
        timeout_graceful_shutdown=GRACE_S,
    )
    server = Server(config, url_of(sock))
    try:
        asyncio.run(server.serve(sockets=[sock]))
    finally:
        sock.close()
