"""The site's server-sent events for one match, in process with a fake referee stream: the
resume rules a reconnecting browser relies on (nothing lost, nothing repeated), the
statuses that come before a stream starts, and the keep-alive comment."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.games import get_game
from arena.v1 import arena_pb2, referee_pb2
from arena.web import app as web_app
from arena.web.app import create_app
from arena.web.errors import HttpError
from arena.web.live import follow_page
from tests.support.fake_source import FakeSource

EVENTS = "/api/live/t1/m1/events"
PLAYED = referee_pb2.MATCH_EVENT_KIND_GAME
ENDED = referee_pb2.MATCH_EVENT_KIND_ENDED


class Finished(FakeSource):
    """t1's match m1 as a referee replays it: STARTED, ``plays`` plays, ENDED, with a
    pause of ``pause_s`` before the end. ``pair_key`` other than m1: a duplicate half."""

    def __init__(self, plays: int = 4, pause_s: float = 0.0, pair_key: str = "m1") -> None:
        super().__init__()
        self.plays = plays
        self.pause_s = pause_s
        self.pair_key = pair_key
        self.watched: list[tuple[str, str, bool]] = []
        self.closed = 0

    async def live_matches(self, tournament_id: str = "") -> arena_pb2.ListLiveMatchesResponse:
        return arena_pb2.ListLiveMatchesResponse()

    async def result(self, tournament_id: str, match_id: str) -> arena_pb2.MatchRecord | None:
        if (tournament_id, match_id) != ("t1", "m1"):
            return None
        return arena_pb2.MatchRecord(
            match_id="m1", game="seep", entries=["a", "b"], referee="127.0.0.1:9",
            referee_match_id="m1-watch", pair_key=self.pair_key, scores=[3, 1],
        )  # fmt: skip

    async def watch(
        self, referee: str, watch_id: str, starting: bool = False
    ) -> AsyncGenerator[referee_pb2.MatchEvent, None]:
        self.watched.append((referee, watch_id, starting))
        try:
            yield event(0, referee_pb2.MATCH_EVENT_KIND_STARTED)
            for n in range(1, self.plays + 1):
                yield event(n, PLAYED)
            await asyncio.sleep(self.pause_s)
            yield event(self.plays + 1, ENDED)
        finally:
            self.closed += 1


def event(sequence: int, kind: referee_pb2.MatchEventKind.ValueType) -> referee_pb2.MatchEvent:
    return referee_pb2.MatchEvent(
        match_id="m1-watch", sequence=sequence, kind=kind, text=f"e{sequence}"
    )


def read(source: Finished, last_event_id: str | None = None) -> tuple[int, str]:
    headers = {} if last_event_id is None else {"Last-Event-ID": last_event_id}
    with TestClient(create_app("api:1", source), raise_server_exceptions=False) as client:
        response = client.get(EVENTS, headers=headers)
    return response.status_code, response.text


def ids(body: str) -> list[int]:
    return [int(line[4:]) for line in body.splitlines() if line.startswith("id: ")]


def test_a_first_connection_gets_every_event_in_order_then_the_stream_ends() -> None:
    source = Finished(plays=4)
    status, body = read(source)
    assert status == 200
    assert body.startswith("retry: ")
    assert ids(body) == [0, 1, 2, 3, 4, 5]
    assert '"text":"e5"' in body
    # Finished: a referee that no longer has it is not asked again and again.
    assert source.watched == [("127.0.0.1:9", "m1-watch", False)]
    assert source.closed == 1  # the referee stream is closed once the match ended


@pytest.mark.parametrize("after", [0, 2, 4])
def test_a_reconnection_resumes_after_the_last_event_it_got(after: int) -> None:
    status, body = read(Finished(plays=4), str(after))
    assert status == 200
    assert ids(body) == list(range(after + 1, 6))


def test_a_reconnection_after_the_end_is_told_to_stop() -> None:
    source = Finished(plays=4)
    status, body = read(source, "5")
    assert (status, body) == (204, "")
    assert source.closed == 1


@pytest.mark.parametrize("bad", ["-1", "x", "1e3", "1234567890"])
def test_a_malformed_last_event_id_is_refused(bad: str) -> None:
    source = Finished()
    status, body = read(source, bad)
    assert status == 400
    assert "Last-Event-ID must be an event" in body
    assert source.watched == []


def test_a_duplicate_half_shows_no_events_while_its_deal_is_secret() -> None:
    source = Finished(pair_key="m0")
    status, body = read(source)
    assert status == 404
    assert "shown when tournament t1 ends" in body
    assert source.watched == []


def test_an_unknown_match_is_a_404_that_says_what_is_missing() -> None:
    with TestClient(create_app("api:1", Finished()), raise_server_exceptions=False) as client:
        response = client.get("/api/live/t1/m7/events")
    assert response.status_code == 404
    assert "match 'm7' of tournament t1" in response.text


def test_silence_is_filled_with_keep_alive_comments(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web_app, "KEEPALIVE_S", 0.01)
    status, body = read(Finished(plays=1, pause_s=0.3))
    assert status == 200
    assert ": still playing" in body
    assert ids(body) == [0, 1, 2]


class Down(Finished):
    """A source whose referee cannot be asked at all: ``watch`` fails when called."""

    def watch(  # a plain function, failing before any stream
        self, referee: str, watch_id: str, starting: bool = False
    ) -> AsyncGenerator[referee_pb2.MatchEvent, None]:
        raise HttpError(502, f"the referee at {referee} does not answer")


def test_a_stream_that_cannot_start_gives_back_its_place() -> None:
    app = create_app("api:1", Down(), max_streams=1)
    with TestClient(app, raise_server_exceptions=False) as client:
        for _ in range(2):  # the second would be a 503 if the first kept its place
            response = client.get(EVENTS)
            assert response.status_code == 502
            assert "does not answer" in response.text
    assert app.state.site.relay.viewers == 0 and not app.state.site.relay.upstreams


def start_tags(text: str) -> list[tuple[str, dict[str, str]]]:
    """Every start tag of an HTML page and its attributes, as a browser reads them."""
    found: list[tuple[str, dict[str, str]]] = []

    class Tags(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            found.append((tag, {k: v or "" for k, v in attrs}))

    parser = Tags(convert_charrefs=True)
    parser.feed(text)
    parser.close()
    return found


def test_the_follow_page_names_each_seat_and_loads_the_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The page live.js draws the table on: each seat's team and entry, where play passes
    (Seep: counter-clockwise), and the scripts it needs, every name escaped."""
    source = Finished()
    hostile = "<script>alert('x')</script>&\"bot\""

    async def result(tournament_id: str, match_id: str) -> arena_pb2.MatchRecord | None:
        found = await Finished.result(source, tournament_id, match_id)
        if found is not None:
            del found.entries[:]
            found.entries.extend([hostile, "b"])
        return found

    monkeypatch.setattr(source, "result", result)
    with TestClient(create_app("api:1", source), raise_server_exceptions=False) as client:
        response = client.get("/live/t1/m1")
    assert response.status_code == 200
    starts = start_tags(response.text)
    live = next(attrs for tag, attrs in starts if attrs.get("id") == "live")
    assert json.loads(live["data-seats"]) == [
        {"seat": 0, "team": 0, "name": hostile},
        {"seat": 1, "team": 1, "name": "b"},
        {"seat": 2, "team": 0, "name": hostile},
        {"seat": 3, "team": 1, "name": "b"},
    ]
    assert live["data-game"] == "seep" and live["data-direction"] == "counter-clockwise"
    assert "<script>alert" not in response.text
    scripts = [attrs["src"] for tag, attrs in starts if tag == "script"]
    assert scripts == ["/static/cards.js", "/static/live.js"]
    assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in response.text


@pytest.mark.parametrize("game", ["seep", "bid-euchre", "bridgette", "persian-rummy", "baloot"])
def test_the_follow_page_says_whether_every_seat_is_its_own_team(game: str) -> None:
    """live.js names the seats rather than the teams in the scores, and no team beside a
    seat, where every seat is its own team (the server says so: the page names no game)."""
    entries = [f"entry {team}" for team in range(get_game(game).info.num_teams)]
    text = follow_page("t1", "m1", game, entries, None, True, [game])
    live = next(attrs for tag, attrs in start_tags(text) if attrs.get("id") == "live")
    assert json.loads(live["data-per-seat"]) is (game == "bridgette")


def test_a_duplicate_halfs_page_has_no_table_to_draw() -> None:
    with TestClient(create_app("api:1", Finished(pair_key="m0"))) as client:
        response = client.get("/live/t1/m1")
    assert response.status_code == 200
    assert "data-events" not in response.text and "data-seats" not in response.text
    assert "shown once its tournament ends" in response.text


def test_the_icon_is_served_where_browsers_ask() -> None:
    icon = (Path(web_app.__file__).parent / "static" / "favicon.svg").read_bytes()
    with TestClient(create_app("api:1", Finished())) as client:
        for path in ("/favicon.ico", "/static/favicon.svg"):
            response = client.get(path)
            assert response.status_code == 200, path
            assert response.headers["content-type"].startswith("image/svg+xml"), path
            assert response.content == icon
    assert icon.startswith(b"<svg") and len(icon) < 2000
