"""Live events under hostile load: the site holds one referee stream per match however
many watch it, a client (by address) holds at most its share of viewers, and the site
follows at most ``max_streams`` matches at once, so a greedy client cannot keep an
honest one out. In process, over uvicorn on loopback (clients at 127.0.0.1 and
127.0.0.2), with a fake source whose matches never end."""

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
from tests.support.fake_source import FakeSource

EVENTS = "/api/live/t1/{match}/events"
GREEDY, HONEST = "127.0.0.1", "127.0.0.2"


class Playing(FakeSource):
    """Matches m1, m2 and m3 of t1, played forever: a STARTED event, then nothing."""

    def __init__(self) -> None:
        super().__init__()
        self.open = 0
        """Referee streams open now: the site must close each one it opened."""
        self.starting: list[bool] = []
        """Per stream: whether the site said the match may not have reached its referee."""

    async def live_matches(self, tournament_id: str = "") -> arena_pb2.ListLiveMatchesResponse:
        matches = [
            arena_pb2.LiveMatch(
                tournament_id="t1",
                match_id=m,
                game="seep",
                entries=["a", "b"],
                referee="127.0.0.1:1",
                watch_id=f"{m}-0a1b2c3d",
            )
            for m in ("m1", "m2", "m3")
        ]
        return arena_pb2.ListLiveMatchesResponse(matches=matches)

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
def serving(
    source: Playing, max_streams: int, per_client: int = 8
) -> Iterator[tuple[str, int, Starlette]]:
    """The site on loopback in a thread (TestClient reads a stream to its end: these
    have none)."""
    sock = listen("127.0.0.1", 0)
    app = create_app("api:1", source, max_streams=max_streams, per_client=per_client)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]})
    thread.start()
    try:
        while not server.started and thread.is_alive():
            time.sleep(0.01)
        yield "127.0.0.1", sock.getsockname()[1], app
    finally:
        server.should_exit = True
        thread.join()
        sock.close()


def follow(
    host: str, port: int, match: str = "m1", client: str = GREEDY
) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    """A viewer of ``match`` connecting from the loopback address ``client``."""
    connection = http.client.HTTPConnection(host, port, timeout=60, source_address=(client, 0))
    connection.request("GET", EVENTS.format(match=match), headers={"Accept": "text/event-stream"})
    return connection, connection.getresponse()


def first_event(response: http.client.HTTPResponse) -> bytes:
    lines = [response.readline() for _ in range(3)]
    return lines[2]  # after the retry field and a blank line


def wait_until(condition: Callable[[], bool]) -> None:
    """A bound on a wait, not a timing assertion."""
    deadline = time.monotonic() + 60
    while not condition():
        assert time.monotonic() < deadline, "the site never got there"
        time.sleep(0.01)


def test_many_viewers_of_one_match_share_one_referee_stream() -> None:
    source = Playing()
    with serving(source, max_streams=1, per_client=20) as (host, port, app):
        viewers = [follow(host, port) for _ in range(12)]
        for _, response in viewers:
            assert response.status == 200 and first_event(response) == b"id: 0\n"
        assert source.open == 1 and source.starting == [True]  # one upstream for all 12
        for connection, _ in viewers:
            connection.close()
        wait_until(lambda: app.state.site.relay.viewers == 0 and source.open == 0)


def test_a_greedy_client_gets_its_share_and_an_honest_one_still_gets_in() -> None:
    source = Playing()
    with serving(source, max_streams=2, per_client=3) as (host, port, app):
        greedy = [follow(host, port, "m1") for _ in range(3)]
        assert all(response.status == 200 for _, response in greedy)
        connection, refused = follow(host, port, "m1")
        assert refused.status == 429 and refused.getheader("Retry-After") == "10"
        assert json.loads(refused.read())["error"].startswith(
            "this address follows 3 matches from this site already, the most one client may"
        )
        connection.close()
        honest, watching = follow(host, port, "m1", client=HONEST)
        assert watching.status == 200 and first_event(watching) == b"id: 0\n"
        # The site follows at most 2 matches: a third is 503 for everyone, until one goes.
        other, second = follow(host, port, "m2", client=HONEST)
        assert second.status == 200
        third_connection, third = follow(host, port, "m3", client=HONEST)
        assert third.status == 503 and third.getheader("Retry-After") == "10"
        third_connection.close()
        other.close()
        wait_until(lambda: source.open == 1)
        again, now = follow(host, port, "m3", client=HONEST)  # its place is free again
        assert now.status == 200
        for connection in [c for c, _ in greedy] + [honest, again]:
            connection.close()
        wait_until(lambda: app.state.site.relay.viewers == 0 and source.open == 0)
