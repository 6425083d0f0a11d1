"""Live matches end to end: a real arena plays matches between paced bots (slow enough
to be caught running), and the site lists them and relays their events as server-sent
events, checked with a plain HTTP client and in headless Chromium."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import pytest
from selenium.webdriver.common.by import By

from arena.local_redis import LocalRedis
from arena.processes import Service
from arena.tournament.fair_play import PUBLIC_ID
from arena.v1 import arena_pb2
from tests.tournament.conftest import Arena
from tests.web import browser
from tests.web.conftest import real_arena
from tests.web.dom import Document
from tests.web.test_leaderboard_web import get, get_json

WAIT_S = 120.0  # a bound only: how long a step may take on a loaded machine before failing


@dataclass
class Live:
    arena: Arena
    tournament: arena_pb2.Tournament
    web: Service


@pytest.fixture(scope="module")
def live(local_redis: LocalRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    with real_arena(local_redis, tmp_path_factory.mktemp("live-replays")) as real:
        web = real.serve()
        # Two at once: the browser's tournament does not wait for this one's second match.
        real.arena.start_worker("live1", concurrency=2)
        for name in ("paced-a", "paced-b"):
            real.arena.start_bot(name, "paced", "--delay-ms", "4")
        tournament = real.arena.submit(["paced-a", "paced-b"], deals=1, games=["bid-euchre"])
        yield Live(real.arena, tournament, web)


def connect(base: str) -> http.client.HTTPConnection:
    """A connection to the site at ``base`` (http://host:port)."""
    parts = urlsplit(base)
    assert parts.hostname is not None, base
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=WAIT_S)


def events(
    base: str, path: str, last_id: int | None = None, stop_after: int | None = None
) -> tuple[int, list[dict[str, Any]]]:
    """The status and the events of ``path`` (each event's data, its id checked against
    its sequence); with ``stop_after``, the connection is dropped after that many."""
    connection = connect(base)
    headers = {"Accept": "text/event-stream"}
    if last_id is not None:
        headers["Last-Event-ID"] = str(last_id)
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    if response.status != 200:
        response.read()
        connection.close()
        return response.status, []
    assert response.getheader("Content-Type", "").startswith("text/event-stream")
    found: list[dict[str, Any]] = []
    fields: dict[str, str] = {}
    try:
        while stop_after is None or len(found) < stop_after:
            line = response.readline().decode()
            if not line:
                break
            line = line.rstrip("\n")
            if line.startswith(":"):
                continue
            if line:
                name, _, value = line.partition(": ")
                fields[name] = value
                continue
            if "data" in fields:
                data = json.loads(fields["data"])
                assert int(fields["id"]) == data["sequence"]
                found.append(data)
            fields = {}
    finally:
        connection.close()
    return 200, found


def keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys(v)}
    return set()


def running(
    live: Live,
    skip: set[str] = frozenset(),  # type: ignore[assignment]
    tournament: str = "",
) -> dict[str, Any]:
    """The first match the site lists as being played (other than ``skip``; only
    ``tournament``'s when given)."""
    deadline = time.monotonic() + WAIT_S
    query = f"?tournament={tournament}" if tournament else ""
    while time.monotonic() < deadline:
        listed = get_json(f"{live.web.address}/api/live{query}")["matches"]
        fresh: list[dict[str, Any]] = [m for m in listed if m["match_id"] not in skip]
        if fresh:
            return fresh[0]
        time.sleep(0.05)
    raise AssertionError(f"no match was listed as live within {WAIT_S} s")


def test_a_running_match_is_listed_and_followed_without_loss_or_repeat(live: Live) -> None:
    base = live.web.address
    t = live.tournament.id
    match = running(live)
    assert match["tournament_id"] == t and match["game"] == "bid-euchre"
    assert sorted(match["entries"]) == ["paced-a", "paced-b"]
    assert match["referee"] == live.arena.referee.address
    assert match["watch_id"].startswith(match["match_id"] + "-")
    assert PUBLIC_ID.fullmatch(match["match_id"])  # not the schedule's id
    assert not {"seed", "deal_salt", "replay_id", "deal_key"} & keys(match)
    m = match["match_id"]
    doc = Document(get(f"{base}/live")[2].decode())
    assert f"/live/{t}/{m}" in {link for row in doc.tables["live-matches"] for link in row.links}

    path = f"/api/live/{t}/{m}/events"
    status, head = events(base, path, stop_after=3)  # then the connection drops
    assert status == 200 and [e["sequence"] for e in head] == [0, 1, 2]
    status, rest = events(base, path, last_id=head[-1]["sequence"])
    assert status == 200
    followed = head + rest
    assert [e["sequence"] for e in followed] == list(range(len(followed)))
    assert followed[0]["kind"] == "MATCH_EVENT_KIND_STARTED"
    assert followed[-1]["kind"] == "MATCH_EVENT_KIND_ENDED"
    assert all(e["kind"] != "MATCH_EVENT_KIND_ENDED" for e in followed[:-1])
    assert "hand" not in keys(followed) and "hands" not in keys(followed)
    result = followed[-1]["result"]
    # An open tournament's deal stays the caller's until the tournament ends.
    assert result["deal_withheld"] and result["seed"] == "0" and not result["replay_id"]

    # Once it ended: the same events from the start, and exactly those after any id.
    assert events(base, path) == (200, followed)
    middle = len(followed) // 2
    assert events(base, path, last_id=middle) == (200, followed[middle + 1 :])
    assert events(base, path, last_id=len(followed) - 1) == (204, [])
    status, _, body = get(f"{base}{path}")
    assert status == 200 and body.startswith(b"retry: ")

    record = next(
        r
        for r in live.arena.stub.ListResults(arena_pb2.ListResultsRequest(tournament_id=t)).results
        if r.public_id == m  # the live list named it by its public id
    )
    assert [int(team["score"]) for team in result["teams"]] == list(record.scores)


def test_unknown_matches_and_bad_ids_say_what_was_not_found(live: Live) -> None:
    base = live.web.address
    t = live.tournament.id
    status, _, body = get(f"{base}/api/live/{t}/nosuch/events")
    assert status == 404 and "'nosuch'" in json.loads(body)["error"]
    status, _, body = get(f"{base}/api/live/tnosuch/m/events")
    assert status == 404 and json.loads(body)["error"] == "no tournament 'tnosuch'"
    status, _, body = get(f"{base}/live/{t}/nosuch")
    assert status == 404 and b"nosuch" in body
    status, _, body = get(f"{base}/api/live?tournament=tnosuch")
    assert status == 404
    connection = connect(base)
    connection.request("GET", f"/api/live/{t}/m/events", headers={"Last-Event-ID": "x"})
    response = connection.getresponse()
    assert response.status == 400 and b"Last-Event-ID" in response.read()
    connection.close()


def test_a_browser_follows_a_running_match_to_its_end(live: Live) -> None:
    """Selenium drives Debian's Chromium: a match of a tournament of its own, opened while
    it is still being played, followed to its result with every event shown once."""
    base = live.web.address
    tournament = live.arena.submit(["paced-a", "paced-b"], deals=1, games=["bid-euchre"])
    with browser.chromium() as driver:
        listed = running(live, tournament=tournament.id)
        t, m = tournament.id, listed["match_id"]
        driver.get(f"{base}/live/{t}/{m}")
        stored = live.arena.stub.ListResults(arena_pb2.ListResultsRequest(tournament_id=t))
        assert m not in {r.match_id for r in stored.results}  # still being played
        browser.wait_for(
            driver,
            "return document.getElementById('live-result').textContent.startsWith('Final: ')",
            timeout=WAIT_S * 2,
        )
        shown = [
            int(item.get_attribute("data-sequence") or "")
            for item in driver.find_elements(By.CSS_SELECTOR, "#live-events li[data-sequence]")
        ]
        status = driver.find_element(By.ID, "live-status").text
    _, followed = events(base, f"/api/live/{t}/{m}/events")
    assert followed[-1]["kind"] == "MATCH_EVENT_KIND_ENDED"
    assert shown == [e["sequence"] for e in followed]  # none lost, none twice, in order
    assert status == "The match has ended."
