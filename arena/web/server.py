"""The HTTP server: the standard library's threaded server in front of ``routes.Site``.

Read-only: GET and HEAD are answered, every other method gets 405. A failure while
answering is a 500 page and one line on stderr, never a traceback to the reader.
"""

from __future__ import annotations

import signal
import socket
import socketserver
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import FrameType
from typing import Any

from arena import __version__
from arena.web.data import ArenaData
from arena.web.routes import Response, Site

MAX_DISCARDED_BODY = 1 << 20
CSP = "default-src 'none'; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'"


class LeaderboardServer(ThreadingHTTPServer):
    def __init__(self, address: tuple[str, int], site: Site) -> None:
        self.site = site
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind asks DNS for the host's full name, which can stall
        # on a machine without network; the name is not needed.
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name = str(host)
        self.server_port = int(port)

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        if not isinstance(error, ConnectionError):  # a reader who left is not an error
            print(f"leaderboard: error serving {client_address}: {error!r}", file=sys.stderr)

    @property
    def url(self) -> str:
        host = self.server_name
        return (
            f"http://[{host}]:{self.server_port}"
            if ":" in host
            else f"http://{host}:{self.server_port}"
        )


class Handler(BaseHTTPRequestHandler):
    server: LeaderboardServer
    server_version = f"card-arena-leaderboard/{__version__}"

    def do_GET(self) -> None:
        self._answer(send_body=True)

    def do_HEAD(self) -> None:
        self._answer(send_body=False)

    def _not_allowed(self) -> None:
        self._discard_body()
        path = self.path.split("?", 1)[0]
        message = f"the leaderboard is read-only: {self.command} is not allowed, only GET and HEAD"
        self._send(self.server.site.error(path, 405, message), True, [("Allow", "GET, HEAD")])

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_TRACE = do_CONNECT = _not_allowed

    def _answer(self, send_body: bool) -> None:
        site = self.server.site
        try:
            response = site.get(self.path)
        except Exception as error:  # a bug: one line in the log, a plain 500 for the reader
            print(f"leaderboard: {self.command} {self.path} failed: {error!r}", file=sys.stderr)
            path = self.path.split("?", 1)[0]
            response = site.error(path, 500, "internal error; the server log has the details")
        self._send(response, send_body)

    def _discard_body(self) -> None:
        """Read what the client sent, so closing the socket does not reset the connection
        before the client has read the answer."""
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = 0
        if 0 < length <= MAX_DISCARDED_BODY:
            self.rfile.read(length)

    def _send(
        self, response: Response, send_body: bool, extra: list[tuple[str, str]] | None = None
    ) -> None:
        self.send_response(response.status)
        self.send_header("Content-Type", response.content_type)
        self.send_header("Content-Length", str(len(response.body)))
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        # Nothing from elsewhere: inline style, and the replay viewer's own static files
        # and frames JSON from this site.
        self.send_header("Content-Security-Policy", CSP)
        for name, value in extra or []:
            self.send_header(name, value)
        self.end_headers()
        if send_body:
            self.wfile.write(response.body)


def serve(api: str, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve the leaderboard of the arena API at ``api`` until SIGTERM or SIGINT.

    Raises OSError if it cannot listen on ``host:port``."""
    source = ArenaData(api)
    try:
        server = LeaderboardServer((host, port), Site(source, api))
    except OSError:
        source.close()
        raise

    def stop(signum: int, frame: FrameType | None) -> None:
        # shutdown() waits for serve_forever() to return, so not from this thread.
        threading.Thread(target=server.shutdown, daemon=True).start()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, stop)
    print(f"leaderboard listening on {server.url}", flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
        source.close()
