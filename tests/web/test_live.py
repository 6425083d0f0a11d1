"""Live matches end to end: a real arena plays matches between paced bots (slow enough
to be caught running), and the site lists them and relays their events as server-sent
events, checked with a plain HTTP client and in headless Chromium, which draws the table
each event carries (``MatchEvent.table_json``, the engine's table as the public sees it,
``arena.replay.public_table``), followed live for every game at 1400x900 and checked
against the published replay's frames."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from arena.games import get_game
from arena.local_redis import LocalRedis
from arena.processes import Service
from arena.tournament.fair_play import PUBLIC_ID
from arena.v1 import arena_pb2
from tests.support.arena import Arena
from tests.support.http import get, get_json
from tests.support.real_arena import real_arena
from tests.support.waiting import wait_until
from tests.web import browser
from tests.web.dom import Document

WAIT_S = 120.0  # a bound only: how long a step may take on a loaded machine before failing
LISTED = {"bid-euchre": arena_pb2.GameOptions(options={"max_hands": "30"})}
"""The module's own tournament: about 700 decisions of the paced bots (4 ms each), still
being played when the first test lists it, and over in seconds rather than the 2,400
decisions of a whole Bid Euchre match between random players."""
WATCHED = {"bid-euchre": arena_pb2.GameOptions(options={"max_hands": "10"})}
"""A browser's Bid Euchre: about 240 decisions, hundreds like every other game's."""


@dataclass
class Live:
    arena: Arena
    tournament: arena_pb2.Tournament
    web: Service
    pace_file: Path
    """The slower bots take their time only while this exists (``PacedBot.pace_file``)."""


@pytest.fixture(scope="module")
def live(local_redis: LocalRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    with real_arena(local_redis, tmp_path_factory.mktemp("live-replays")) as real:
        web = real.serve()
        # Two at once: the browser's tournament does not wait for this one's second match.
        real.arena.start_worker("live1", concurrency=2)
        for name in ("paced-a", "paced-b"):
            real.arena.start_bot(name, "paced", "--delay-ms", "4")
        pace_file = tmp_path_factory.mktemp("pace") / "pace"
        for name in ("slower-a", "slower-b"):  # for the games of hundreds of decisions
            real.arena.start_bot(name, "paced", "--delay-ms", "120", "--pace-file", str(pace_file))
        tournament = real.arena.submit(
            ["paced-a", "paced-b"], deals=1, games=["bid-euchre"], game_options=LISTED
        )
        yield Live(real.arena, tournament, web, pace_file)


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
    # The site watches: from its first look (the table as it stood then, once), every
    # game event carries the public table, with no hand in it.
    tabled = [e for e in followed if e["table_json"]]
    assert tabled
    first = tabled[0]["sequence"]
    assert all(e["table_json"] for e in followed[first:] if e["kind"] == "MATCH_EVENT_KIND_GAME")
    assert [e["kind"] for e in followed].count("MATCH_EVENT_KIND_TABLE") <= 1
    for e in tabled:
        view = json.loads(e["table_json"])
        assert set(view) == {"seat", "table"}
        assert all(hand is None for hand in view["table"]["hands"])
    result = followed[-1]["result"]
    # An open tournament's deal stays the caller's until the tournament ends.
    assert result["deal_withheld"] and result["seed"] == "0" and not result["replay_id"]

    # Once it ended: the same events from the start, and exactly those after any id
    # (a finished match's feed keeps its last table only, so tables are left aside).
    def bare(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in e.items() if k != "table_json"} for e in found]

    status, again = events(base, path)
    assert status == 200 and bare(again) == bare(followed)
    assert [e for e in again if e["table_json"]][-1] == tabled[-1]
    middle = len(followed) // 2
    status, after = events(base, path, last_id=middle)
    assert status == 200 and bare(after) == bare(followed[middle + 1 :])
    assert events(base, path, last_id=len(followed) - 1) == (204, [])
    status, _, body = get(f"{base}{path}")
    assert status == 200 and body.startswith(b"retry: ")

    def stored() -> list[arena_pb2.MatchRecord]:  # the worker stores it after the feed ends
        listed = live.arena.stub.ListResults(arena_pb2.ListResultsRequest(tournament_id=t))
        return [r for r in listed.results if r.public_id == m]  # the live list's public id

    wait_until(lambda: bool(stored()), WAIT_S, "the match's result to be stored")
    record = stored()[0]
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
    live.pace_file.touch()
    tournament = live.arena.submit(
        ["slower-a", "slower-b"], deals=1, games=["bid-euchre"], game_options=WATCHED
    )
    with browser.chromium() as driver:
        listed = running(live, tournament=tournament.id)
        t, m = tournament.id, listed["match_id"]
        driver.get(f"{base}/live/{t}/{m}")
        stored = live.arena.stub.ListResults(arena_pb2.ListResultsRequest(tournament_id=t))
        assert m not in {r.match_id for r in stored.results}  # still being played
        browser.wait_for(
            driver,
            "return document.getElementById('live-app').dataset.events > 5;",
            timeout=WAIT_S,
        )
        live.pace_file.unlink()  # followed live: the rest comes as fast as it is played
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


# ---- The table as the public sees it --------------------------------------------------

GAMES = ["seep", "bid-euchre", "bridgette", "persian-rummy", "baloot"]
# The live matches a browser opens are played by the slower bots (120 ms a
# decision) while the test looks, so that each is still being played when the browser
# opens it, on a loaded machine too (25 ms was too fast there: a browser that took its time
# saw only the last 8 of 236 frames), and for a while after. Once the test has seen what it
# checks live it removes ``Live.pace_file`` and the rest is played at full speed.


def seats_json(game: str, names: Sequence[str] = ("a", "b")) -> list[dict[str, Any]]:
    info = get_game(game).info
    return [{"seat": s, "team": t, "name": names[t]} for s, t in enumerate(info.seat_teams)]


def normal(pile: dict[str, Any], engine: bool) -> dict[str, Any]:
    """A pile as the comparison reads it: face-up cards (and who put them there), or a
    face-down count (None: not known). The engine's face-down piles hold their cards."""
    down = bool(pile.get("face_down")) if engine else "count" in pile
    cards = [] if down else list(pile["cards"])
    seats = pile.get("seats") or [None] * len(cards)
    count = (len(pile["cards"]) if engine else pile.get("count")) if down else None
    return {
        "kind": pile["kind"],
        "label": pile["label"],
        "cards": cards,
        "seats": list(seats) if not down else [],
        "down": down,
        "count": count,
    }


def public(seat: int | None, held: Sequence[int | None], piles: Sequence[dict[str, Any]]) -> Any:
    """What the public may know of a table, in one shape for the engine's and the page's."""
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for p in piles:
        by_kind.setdefault(p["kind"], []).append(p)

    def of(kind: str) -> list[dict[str, Any]]:
        return by_kind.get(kind, [])

    trick = [list(zip(p["cards"], p["seats"], strict=True)) for p in of("trick")]
    return {
        "seat": seat,
        "held": list(held),
        "trick": trick[0] if trick else [],
        "won": [sorted(p["cards"]) for p in of("won")],
        "floor": sorted(c for p in of("floor") if not p["down"] for c in p["cards"]),
        "floor_down": sum(p["count"] or 0 for p in of("floor") if p["down"]),
        "houses": [(p["label"].split(" (")[0], sorted(p["cards"])) for p in of("house")],
        "melds": [
            (p["label"], sorted(zip(p["cards"], p["seats"], strict=True))) for p in of("meld")
        ],
        "discard": [
            (
                p["label"],
                p["count"] if p["down"] else list(zip(p["cards"], p["seats"], strict=True)),
            )
            for p in of("discard")
        ],
        "up": [c for p in of("up_card") for c in p["cards"]],
        "stock": sum(p["count"] or 0 for p in of("stock")),
    }


def engine_public(step: dict[str, Any]) -> Any:
    t = step["table"]
    return public(step["seat"], [len(h) for h in t["hands"]], [normal(p, True) for p in t["piles"]])


def shown_public(view: dict[str, Any]) -> Any:
    t = view["table"]
    return public(view["seat"], t["held"], [normal(p, False) for p in t["piles"]])


def differences(engine: Any, shown: Any) -> list[str]:
    """Where the page's table says otherwise than the engine's."""
    return [f"{k}: {v!r}, shown {shown[k]!r}" for k, v in engine.items() if shown[k] != v]


def press(driver: WebDriver, *keys: str) -> None:
    actions = ActionChains(driver)
    for key in keys:
        actions.send_keys(key)
    actions.perform()


STATE = """
const app = document.getElementById("live-app");
const list = document.getElementById("live-events");
const items = list ? list.querySelectorAll("li") : [];
const drawn = items[Number(app.dataset.shown)];  // the newest event drawn, when following
const newest = drawn ? drawn.getBoundingClientRect() : null;
const box = list ? list.getBoundingClientRect() : null;
const seat0 = document.querySelector('#live-table section.seat[data-seat="0"]');
const around = document.querySelector("#live-table .around");
return {
  shown: Number(app.dataset.shown), events: Number(app.dataset.events),
  following: app.dataset.following === "true",
  seats: document.querySelectorAll("#live-table section.seat").length,
  newestInSight: newest !== null && newest.bottom <= box.bottom + 1 && newest.top >= box.top - 1,
  seat0Bottom: seat0 ? seat0.getBoundingClientRect().bottom : null,
  tableTop: around ? around.getBoundingClientRect().top : null,
  tableBottom: around ? around.getBoundingClientRect().bottom : null,
  height: window.innerHeight, scrolled: window.scrollY,
  position: document.getElementById("live-position").textContent,
};
"""

DRAWN = """
const table = document.getElementById("live-table");
const count = (node) => node && node.dataset.count !== undefined ? Number(node.dataset.count) : null;
const seats = [...table.querySelectorAll("section.seat")];
const turn = seats.find((s) => s.classList.contains("turn"));
return {
  seat: turn ? Number(turn.dataset.seat) : null,
  table: {
    held: seats.sort((a, b) => a.dataset.seat - b.dataset.seat).map((s) => count(s.querySelector(".backs"))),
    piles: [...table.querySelectorAll("section.pile")].map((p) => {
      const cards = [...p.querySelectorAll("[data-card]")];
      const backs = p.querySelector(".backs");
      const pile = {
        kind: p.dataset.kind, label: p.getAttribute("aria-label"),
        cards: cards.map((c) => c.dataset.card),
        seats: cards.map((c) => { const by = c.querySelector(".by"); return by ? Number(by.textContent.slice(1)) : null; }),
      };
      if (backs) pile.count = count(backs);
      return pile;
    }),
  },
};
"""
"""The live table as Chromium drew it, in the shape of public-table.js's view."""


def live_state(driver: WebDriver) -> dict[str, Any]:
    found: dict[str, Any] = driver.execute_script(STATE)
    return found


def in_sight(state: dict[str, Any]) -> None:
    """The whole table, seat 0 included, is in the window without scrolling."""
    assert state["scrolled"] == 0
    assert state["tableTop"] >= 0 and state["tableBottom"] <= state["height"], state
    assert state["seat0Bottom"] <= state["height"], state


@pytest.mark.parametrize("game", GAMES)
def test_a_live_match_of_every_game_is_drawn_on_its_table_and_followed(
    live: Live, game: str
) -> None:
    """A real match between paced bots, opened while it is played, in a 1400x900 window:
    the table shows the public part of every seat and the middle, follows the newest
    event (the log scrolled to it), holds still when paused while events come in, steps
    back and forth, and follows again; once the match is over and its replay published,
    the table drawn at chosen events is the engine's at the same point."""
    base = live.web.address
    live.pace_file.touch()
    tournament = live.arena.submit(
        ["slower-a", "slower-b"], deals=1, games=[game],
        game_options={g: o for g, o in WATCHED.items() if g == game},
    )  # fmt: skip
    seats = len(seats_json(game))
    with browser.chromium(1400, 900) as driver:
        listed = running(live, tournament=tournament.id)
        t, m = tournament.id, listed["match_id"]
        driver.get(f"{base}/live/{t}/{m}")
        stored = live.arena.stub.ListResults(arena_pb2.ListResultsRequest(tournament_id=t))
        assert m not in {r.public_id for r in stored.results}  # still being played
        browser.wait_for(
            driver,
            "const a = document.getElementById('live-app');"
            "return a.dataset.events > 5 && document.querySelectorAll("
            "'#live-table section.seat').length > 0;",
            timeout=WAIT_S,
        )
        first = live_state(driver)
        assert first["seats"] == seats
        in_sight(first)
        # Following: the newest event drawn and in sight in the log, as events come in.
        browser.wait_for(
            driver,
            "const a = document.getElementById('live-app');"
            "return Number(a.dataset.events) > arguments[0] && a.dataset.shown === "
            "String(Number(a.dataset.events) - 1);",
            first["events"],
            timeout=WAIT_S,
        )
        now = live_state(driver)
        assert now["following"] and now["shown"] == now["events"] - 1
        assert now["newestInSight"]
        assert "following the match" in now["position"] or "the end" in now["position"]
        in_sight(now)
        # Paused: the table holds still while the match goes on.
        press(driver, Keys.SPACE)
        browser.wait_for(
            driver, "return document.getElementById('live-app').dataset.following === 'false';"
        )
        held = live_state(driver)["shown"]
        browser.wait_for(
            driver,
            "return Number(document.getElementById('live-app').dataset.events) > arguments[0] "
            "|| document.getElementById('live-result').textContent !== '';",
            held + 3,
            timeout=WAIT_S,
        )
        later = live_state(driver)
        assert later["shown"] == held and not later["following"]
        assert "paused" in later["position"]
        press(driver, Keys.ARROW_LEFT, Keys.ARROW_LEFT, Keys.ARROW_RIGHT)
        browser.wait_for(
            driver,
            "return document.getElementById('live-app').dataset.shown === arguments[0];",
            str(held - 1),
        )
        press(driver, Keys.END)
        browser.wait_for(
            driver,
            "const a = document.getElementById('live-app');"
            "return a.dataset.following === 'true' && "
            "a.dataset.shown === String(Number(a.dataset.events) - 1);",
        )
        live.pace_file.unlink(missing_ok=True)  # seen live: the rest may run at full speed
        browser.wait_for(
            driver,
            "return document.getElementById('live-result').textContent.startsWith('Final: ')",
            timeout=WAIT_S * 2,
        )
        browser.wait_for(  # the last event drawn
            driver,
            "return document.getElementById('live-app').dataset.shown === "
            "String(document.querySelectorAll('#live-events li').length - 1);",
        )
        end = live_state(driver)
        in_sight(end)
        live.arena.wait_until(t, timeout=WAIT_S)
        _, followed = events(base, f"/api/live/{t}/{m}/events")
        assert end["events"] == len(followed) and end["shown"] == len(followed) - 1
        status, _, body = get(f"{base}/api/replays/{t}/{m}/frames")
        assert status == 200, body[:300]
        frames = json.loads(body)["frames"]
        # The live event after which each frame's table stands: its public events and
        # every one before, as the referee streamed them.
        played = [i for i, e in enumerate(followed) if e["kind"] == "MATCH_EVENT_KIND_GAME"]
        assert [followed[i]["text"] for i in played] == [
            e["text"] for f in frames for e in f["events"] if not e["private"]
        ]
        # The site looked first when the match was under way: tables from its snapshot on.
        kinds = [e["kind"] for e in followed]
        looked = kinds.index("MATCH_EVENT_KIND_TABLE") if "MATCH_EVENT_KIND_TABLE" in kinds else 0

        def at_event(frame: dict[str, Any]) -> int:
            before = sum(
                1 for f in frames[: frame["index"] + 1] for e in f["events"] if not e["private"]
            )
            return played[before - 1] if before else 0

        watched = [f for f in frames if at_event(f) > looked]
        assert len(watched) > len(frames) // 3, (looked, len(followed))
        middle = next(
            (
                f
                for f in watched[len(watched) // 2 :]
                if any(p["kind"] == "trick" and p["cards"] for p in f["table"]["piles"])
            ),
            watched[len(watched) // 2],
        )
        for frame in (middle, frames[-1]):
            at = at_event(frame)
            driver.find_elements(By.CSS_SELECTOR, "#live-events li")[at].click()
            browser.wait_for(
                driver,
                "return document.getElementById('live-app').dataset.shown === arguments[0];",
                str(at),
            )
            step = {"seat": frame["seat"], "table": frame["table"]}
            drawn = driver.execute_script(DRAWN)
            wrong = differences(engine_public(step), shown_public(drawn))
            assert not wrong, (frame["index"], wrong)
            driver.execute_script("window.scrollTo(0, 0);")  # the click scrolled to the log
            in_sight(live_state(driver))
