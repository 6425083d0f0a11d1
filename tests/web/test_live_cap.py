"""The site relays at most ``max_streams`` event streams at once: each holds a stream on a
referee, and anyone who can reach the site may open them. In process, over
uvicorn on loopback, with a fake source whose match never ends."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import threading
import time
from collections.abc import AsyncGenerator, Callable, Iterator

import uvicorn
from starlette.applications import Starlette

from arena.v1 import arena_pb2, referee_pb2
from arena.web.app import create_app
from arena.web.server import listen
from tests.web.test_pages import FakeSource

EVENTS = "/api/live/t1/m1/events"


class Playing(FakeSource):
    """One match, t1's m1, being played forever: a STARTED event, then nothing."""

    def __init__(self) -> None:
        super().__init__()
        self.open = 0
        """Referee streams open now: the site must close each one it opened."""
        self.starting: list[bool] = []
        """Per stream: whether the site said the match may not have reached its referee."""

    async def live_matches(self, tournament_id: str = "") -> arena_pb2.ListLiveMatchesResponse:
        match = arena_pb2.LiveMatch(
            tournament_id="t1", match_id="m1", game="seep", entries=["a", "b"],
            referee="127.0.0.1:1", watch_id="m1-0a1b2c3d",
        )  # fmt: skip
        return arena_pb2.ListLiveMatchesResponse(matches=[match])

    async def result(self, tournament_id: str, match_id: str) -> arena_pb2.MatchRecord | None:
        return None

    async def watch(
        self, referee: str, watch_id: str, starting: bool = False
    ) -> AsyncGenerator[referee_pb2.MatchEvent, None]:
        self.open += 1
        self.starting.append(starting)
        try:
            yield referee_pb2.MatchEvent(
                match_id=watch_id, sequence=0, kind=referee_pb2.MATCH_EVENT_KIND_STARTED
            )
            await asyncio.Event().wait()  # the bots think forever
        finally:
            self.open -= 1


@contextlib.contextmanager
def serving(source: Playing, max_streams: int) -> Iterator[tuple[str, int, Starlette]]:
    """The site on loopback in a thread (TestClient reads a stream to its end: this one
    has none)."""
    sock = listen("127.0.0.1", 0)
    app = create_app("api:1", source, max_streams=max_streams)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]})
    thread.start()
    try:
        while not server.started and thread.is_alive():
            time.sleep(0.01)
        host, port = sock.getsockname()[:2]
        yield host, port, app
    finally:
        server.should_exit = True
        thread.join()
        sock.close()


def follow(host: str, port: int) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    connection = http.client.HTTPConnection(host, port, timeout=60)
    connection.request("GET", EVENTS, headers={"Accept": "text/event-stream"})
    return connection, connection.getresponse()


def wait_until(condition: Callable[[], bool]) -> None:
    """A bound on a wait, not a timing assertion."""
    deadline = time.monotonic() + 60
    while not condition():
        assert time.monotonic() < deadline, "the site never got there"
        time.sleep(0.01)


def test_streams_past_the_most_are_refused_and_a_closed_one_frees_its_place() -> None:
    source = Playing()
    with serving(source, max_streams=2) as (host, port, app):
        readers = [follow(host, port) for _ in range(2)]
        for _, response in readers:
            assert response.status == 200
            lines = [response.readline() for _ in range(3)]
            assert lines[2] == b"id: 0\n"  # retry, blank line, the first event
        assert source.starting == [True, True]  # listed as live: it may be just starting
        connection, refused = follow(host, port)
        assert refused.status == 503
        assert json.loads(refused.read()) == {
            "error": "2 matches are being followed from this site already, its most at "
            "once; try again in a while",
            "status": 503,
        }
        connection.close()
        for connection, _ in readers:  # the readers leave
            connection.close()
        wait_until(lambda: app.state.site.streams == 0 and source.open == 0)
        connection, again = follow(host, port)  # their places are free again
        assert again.status == 200
        connection.close()
        wait_until(lambda: app.state.site.streams == 0 and source.open == 0)
