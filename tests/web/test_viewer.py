"""The replay viewer end to end: real replays of every game (``tests.replay.matches``)
behind the leaderboard site, its frames JSON and each frame's request (what the bots
were sent), the cache of built matches, its static files, and the page run in headless
Chromium, whose cards must be the frames' cards."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from google.protobuf import json_format
from selenium.webdriver.chrome.webdriver import WebDriver

from arena.replay.frames import build_frames
from arena.replay.record import seat_token
from arena.replay.render import render
from arena.web.app import SECURITY_HEADERS
from arena.web.data import Replay
from arena.web.errors import HttpError
from arena.web.viewer import FramesCache
from tests.replay.matches import FAULTY, SHORT
from tests.support.fake_source import HOSTILE
from tests.support.http import get
from tests.support.screenshots import HEIGHT, WIDTH
from tests.support.viewer import (
    TOURNAMENT,
    ReplaySource,
    Served,
    card_name,
    expected_rows,
    frames_of,
    sent_of,
)
from tests.web.browser import MissingBrowser, chromium, wait_for
from tests.web.dom import Document

"""A whole Seep match (its default options), whose deals 17 to 20 are thrown in: hands
of no decision, which start at the frame of the next hand."""


def test_the_frames_json_names_seats_by_their_entries(served: Served) -> None:
    doc = served.played.replays["bid-euchre"]
    shown = frames_of(served, "bid-euchre")
    names = [f"{HOSTILE}{s['team']}" for s in doc["seats"]]
    assert shown == build_frames(doc, names)


def test_each_frames_request_is_served_apart_as_its_bot_received_it(served: Served) -> None:
    doc = served.played.replays["bid-euchre"]
    frames = frames_of(served, "bid-euchre")["frames"]
    assert frames and not any("sent" in f for f in frames)
    for frame in frames[:-1]:
        status, shown = sent_of(served, "bid-euchre", frame["index"])
        received = served.played.sent[(seat_token(doc, frame["seat"]), frame["decision"])]
        assert status == 200 and shown == json_format.MessageToDict(
            received, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
        )
        assert shown["seat"] == frame["seat"]


def test_a_frame_without_a_request_says_which_frames_have_one(served: Served) -> None:
    last = len(frames_of(served, "seep")["frames"]) - 1
    valid = f"the frames with a seat to act are 0 to {last - 1}"
    for index in (last, last + 1, -1, 10**30):
        status, body = sent_of(served, "seep", index)
        assert (status, body["error"]) == (404, f"frame {index} has no request: {valid}")
    for bad in ("x", "1.5", "%20"):
        status, body = sent_of(served, "seep", bad)
        decoded = bad.replace("%20", " ")
        assert (status, body["error"]) == (
            400,
            f"frame index {decoded!r} is not an integer; this match has frames 0 to {last}",
        )
    status, body = sent_of(served, "nosuch", 0)
    assert status == 404 and "no result for match 'nosuch'" in body["error"]
    status, body = sent_of(served, "newer", 0)
    assert status == 502 and "cannot be shown" in body["error"]


def test_built_matches_are_kept_a_few_at_a_time(served: Served) -> None:
    """Built once per replay file; the least recently used dropped past the size; a
    replay that cannot be built is not kept."""
    source = ReplaySource(dict(served.played.replays))

    async def run() -> None:
        cache = FramesCache(size=2)
        seep = await source.replay(TOURNAMENT, "seep")
        first = await cache.get(seep)
        assert await cache.get(await source.replay(TOURNAMENT, "seep")) is first
        changed = Replay(seep.tournament_id, seep.record, seep.text + " ", seep.document)
        assert await cache.get(changed) is not first  # another file under the same ids
        assert len(cache) == 2
        assert await cache.get(seep) is first  # used last: baloot pushes out the change
        await cache.get(await source.replay(TOURNAMENT, "baloot"))
        assert len(cache) == 2 and await cache.get(seep) is first
        source.replays["newer"] = {**served.played.replays["seep"], "version": 2}
        for _ in range(2):
            with pytest.raises(HttpError, match="cannot be shown"):
                await cache.get(await source.replay(TOURNAMENT, "newer"))
        assert len(cache) == 2 and await cache.get(seep) is first
        with pytest.raises(ValueError, match="at least 1 match, not 0"):
            FramesCache(size=0)

    asyncio.run(run())


def test_unknown_matches_and_other_versions_say_why(served: Served) -> None:
    status, _, body = get(f"{served.url}/api/replays/{TOURNAMENT}/nosuch/frames")
    assert status == 404 and json.loads(body)["error"] == (
        f"tournament {TOURNAMENT} has no result for match 'nosuch' (yet)"
    )
    assert get(f"{served.url}/replays/{TOURNAMENT}/nosuch")[0] == 404
    message = (
        "replay unavailable: newer-r cannot be shown: it is replay format version 2, and "
        "this viewer reads version 1 only"
    )
    status, _, body = get(f"{served.url}/api/replays/{TOURNAMENT}/newer/frames")
    assert (status, json.loads(body)["error"]) == (502, message)
    status, _, body = get(f"{served.url}/replays/{TOURNAMENT}/newer")
    assert status == 502 and message.replace("'", "&#x27;") in body.decode()


def test_static_files_ship_in_the_package_and_nothing_else_is_served(served: Served) -> None:
    status, headers, body = get(f"{served.url}/static/viewer.js")
    assert status == 200 and headers["Content-Type"] == "text/javascript; charset=utf-8"
    assert b"card-arena-replay-frames" in body
    assert (
        headers["Content-Security-Policy"]
        == dict(SECURITY_HEADERS)[b"content-security-policy"].decode()
    )
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    assert headers["X-Frame-Options"] == "DENY"  # no other site may frame it
    status, headers, _ = get(f"{served.url}/static/viewer.css")
    assert status == 200 and headers["Content-Type"] == "text/css; charset=utf-8"
    for script in ("cards.js", "live.js"):  # shared with the live page
        status, headers, _ = get(f"{served.url}/static/{script}")
        assert status == 200 and headers["Content-Type"] == "text/javascript; charset=utf-8"
    for bad in ("../data.py", "..%2fdata.py", "viewer.py", "nosuch.js", "%2e%2e", "VIEWER.JS"):
        assert get(f"{served.url}/static/{bad}")[0] == 404, bad


def test_the_page_escapes_names_and_keeps_the_text_for_readers_without_js(
    served: Served,
) -> None:
    status, _, body = get(f"{served.url}/replays/{TOURNAMENT}/seep")
    assert status == 200
    text = body.decode()
    assert "<script>alert" not in text and "<img src=x" not in text
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in text
    doc = Document(text)
    assert doc.pres["replay"] == render(served.played.replays["seep"])
    assert (
        '<script src="/static/cards.js" defer></script>'
        '<script src="/static/viewer.js" defer></script>'
    ) in text
    assert f'data-frames="/api/replays/{TOURNAMENT}/seep/frames"' in text
    assert "https://" not in text.split("<body>")[0]  # nothing from a CDN


class Drawn(Document):
    """The viewer as Chromium left it: its cards by the id of the row holding them."""

    def __init__(self, text: str) -> None:
        self.rows: dict[str, list[str]] = {}
        self.cards: list[tuple[str, str]] = []
        self.faulted_seats: list[int] = []
        self.faults: list[int] = []
        self.app: dict[str, str] = {}
        self.sent_legal: list[str] = []
        self._cards: str | None = None
        self._depth = 0
        super().__init__(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        super().handle_starttag(tag, attrs)
        values = {k: v or "" for k, v in attrs}
        if values.get("id") == "viewer-app":
            self.app = values
        if "cards" in values.get("class", "").split() and values.get("id"):
            self._cards = values["id"]
            self.rows[self._cards] = []
        elif "data-card" in values and self._cards is not None:
            self.rows[self._cards].append(values["data-card"])
            self.cards.append((values["data-card"], values.get("aria-label", "")))
            assert values.get("role") == "img"
        if "faulted" in values.get("class", "").split():
            self.faulted_seats.append(int(values["data-seat"]))
        if tag == "li" and "fault" in values.get("class", "").split():
            self.faults.append(int(values["data-seat"]))
        if tag == "li" and "data-id" in values:
            self.sent_legal.append(values["data-id"])

    def handle_endtag(self, tag: str) -> None:
        super().handle_endtag(tag)
        if tag == "div":
            self._cards = None


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    """One headless Chromium for the module's pages (starting one costs more CPU than
    drawing a page): each page is loaded afresh all the same (``drawn``)."""
    try:
        with chromium(WIDTH, HEIGHT) as driver:
            yield driver
    except MissingBrowser as error:
        pytest.fail(str(error))


SETTLED = """
const app = document.getElementById("viewer-app");
return app !== null && app.hasAttribute("data-frame")
  && document.getElementById("sent-loading") === null;
"""
"""The viewer has drawn a frame, and what the seat shown (if any) was sent has come."""


def drawn(browser: WebDriver, url: str) -> Drawn:
    """The page at ``url`` loaded afresh (not a move within the page it was on), once the
    viewer has drawn it: its DOM, as ``chromium --dump-dom`` prints it."""
    browser.get("about:blank")
    browser.get(url)
    wait_for(browser, SETTLED)
    dom: str = browser.execute_script("return document.documentElement.outerHTML;")
    return Drawn(dom)


@pytest.mark.parametrize("match", [*SHORT, FAULTY])
def test_chromium_draws_the_frames_cards_first_last_and_by_fragment(
    served: Served, browser: WebDriver, match: str
) -> None:
    frames = frames_of(served, match)["frames"]
    page = f"{served.url}/replays/{TOURNAMENT}/{match}"
    first = drawn(browser, page)
    assert first.app["data-frame"] == "0" and first.app["data-game"] == frames_game(served, match)
    assert first.rows == expected_rows(frames[0])
    assert first.cards and all(label.startswith(card_name(c)) for c, label in first.cards)
    # Names stay text: no image, and no script but the two the page loads.
    assert "img" not in first.tags and first.tags.count("script") == 2
    last = drawn(browser, page + f"#d={len(frames) - 1}")
    assert last.app["data-frame"] == str(len(frames) - 1)
    assert last.rows == expected_rows(frames[-1])
    middle = len(frames) // 2
    seat = frames[middle]["seat"]
    shown = drawn(browser, page + f"#d={middle}&seat={seat}")
    assert shown.app["data-frame"] == str(middle)
    assert shown.app["data-seat-shown"] == str(seat)
    assert shown.rows == expected_rows(frames[middle])
    request = sent_of(served, match, middle)[1]
    assert shown.sent_legal == [str(a["id"]) for a in request["legal_actions"]]
    faulted = next((f for f in frames if f["faults"]), None)
    assert (faulted is not None) == (match == FAULTY)
    if faulted is not None:
        marked = drawn(browser, page + f"#d={faulted['index']}")
        assert marked.faulted_seats == [faulted["seat"]]
        assert marked.faults == [faulted["faults"][0]["seat"]]


def frames_game(served: Served, match: str) -> str:
    game: str = served.played.replays[match]["game"]
    return game


def test_the_keys_docs_web_lists_are_the_viewers() -> None:
    doc = (Path(__file__).parents[2] / "docs" / "web.md").read_text()
    script = (Path(__file__).parents[2] / "arena" / "web" / "static" / "viewer.js").read_text()
    rows = [line for line in doc.splitlines() if line.startswith("| `")]
    keys = {k for row in rows for k in re.findall(r"`([^`]+)`", row.split("|")[1])}
    names = {"←": "ArrowLeft", "→": "ArrowRight", "Space": '" "'}
    assert len(keys) == 9
    for key in keys:
        name = names.get(key, key)
        assert f"{name}:" in script or f'"{key}":' in script or f"{name}: " in script, key
