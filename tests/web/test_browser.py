"""The site in a real browser: Debian's Chromium driven by Selenium through Debian's
chromedriver (``make chromium``), with real clicks and real key presses.

A real arena's leaderboard (``conftest.played``) is clicked through to a bot and to a
replay; a replay of every game (``tests.replay.matches``, served in process as
``test_viewer`` serves them) is stepped through with the keyboard, the cards drawn
checked against the frames JSON the same server sends; and the viewer is used with the
keyboard alone.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from bench import web_render, web_screenshots
from tests.replay.matches import SHORT
from tests.support.http import get
from tests.support.real_arena import Played
from tests.support.screenshots import png_size
from tests.support.viewer import (
    THROWN_IN,
    TOURNAMENT,
    Served,
    card_name,
    expected_rows,
    frames_of,
    sent_of,
)
from tests.web.browser import MissingBrowser, chromium, wait_for

DRAWN = """
const app = document.getElementById("viewer-app");
if (!app) return null;
const rows = {};
for (const row of document.querySelectorAll("#frame .cards[id]")) {
  rows[row.id] = [...row.querySelectorAll("[data-card]")].map((c) => c.dataset.card);
}
const cards = [...document.querySelectorAll("[data-card]")].map(
  (c) => [c.dataset.card, c.getAttribute("role"), c.getAttribute("aria-label")]);
return {frame: Number(app.dataset.frame), seat: Number(app.dataset.seatShown), rows, cards};
"""
"""What the viewer has drawn: its frame, the seat shown, every card row by id, and each
card's code, role and text alternative."""


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    try:
        with chromium() as driver:
            yield driver
    except MissingBrowser as error:
        pytest.fail(str(error))


def drawn(driver: WebDriver) -> dict[str, Any]:
    found: dict[str, Any] = driver.execute_script(DRAWN)
    assert found is not None, driver.page_source[:2000]
    return found


def at_frame(driver: WebDriver, index: int) -> dict[str, Any]:
    """Once the viewer shows frame ``index``: what it drew."""
    try:
        wait_for(
            driver,
            "const a = document.getElementById('viewer-app');"
            "return a !== null && a.dataset.frame === arguments[0];",
            str(index),
        )
    except TimeoutException:
        shown = driver.execute_script(DRAWN)
        raise AssertionError(
            f"the viewer never showed frame {index}; it shows {shown and shown['frame']}"
        ) from None
    return drawn(driver)


def check_cards(shown: dict[str, Any], frame: dict[str, Any]) -> None:
    """The cards drawn are the frame's, and each is an image with its name as text."""
    assert shown["frame"] == frame["index"]
    assert shown["rows"] == expected_rows(frame), frame["index"]
    assert shown["cards"]
    for code, role, label in shown["cards"]:
        assert role == "img" and label.startswith(card_name(code)), (code, role, label)


def press(driver: WebDriver, *keys: str) -> None:
    """Real key presses, to whatever has the focus (the page itself after a load)."""
    actions = ActionChains(driver)
    for key in keys:
        actions.send_keys(key)
    actions.perform()


def active(driver: WebDriver) -> str:
    """The focused element: its id, else its tag and link target."""
    found: str = driver.execute_script(
        "const e = document.activeElement;"
        "return e.id || (e.tagName + ' ' + (e.getAttribute('href') || ''));"
    )
    return found


def tab_to(driver: WebDriver, wanted: str, limit: int = 60) -> list[str]:
    """Tab until the element ``wanted`` (as ``active`` names it) has the focus; every
    element the focus passed through, in order."""
    seen: list[str] = []
    for _ in range(limit):
        press(driver, Keys.TAB)
        seen.append(active(driver))
        if seen[-1] == wanted:
            return seen
    raise AssertionError(f"{wanted!r} never took the focus; the Tab order was {seen}")


def test_the_leaderboard_clicks_through_to_a_bot_and_a_replay(
    played: Played, browser: WebDriver
) -> None:
    browser.get(f"{played.url}/")
    bot = browser.find_element(By.CSS_SELECTOR, "#leaderboard-overall tbody td.bot a")
    name = bot.text
    bot.click()
    wait_for(browser, "return location.pathname === arguments[0];", f"/bots/{name}")
    assert name in browser.find_element(By.TAG_NAME, "h1").text

    browser.back()
    link = browser.find_element(By.CSS_SELECTOR, "#recent-matches a.replay")
    target = link.get_attribute("href")
    assert target is not None and target.startswith(f"{played.url}/replays/")
    link.click()
    frames = json.loads(get(target.replace("/replays/", "/api/replays/", 1) + "/frames")[2])
    frames = frames["frames"]
    check_cards(at_frame(browser, 0), frames[0])
    press(browser, Keys.ARROW_RIGHT)
    check_cards(at_frame(browser, 1), frames[1])
    press(browser, Keys.END)
    check_cards(at_frame(browser, len(frames) - 1), frames[-1])


def test_the_leaderboards_links_work_from_the_keyboard(played: Played, browser: WebDriver) -> None:
    browser.get(f"{played.url}/")
    first = browser.find_element(By.CSS_SELECTOR, "#leaderboard-overall tbody td.bot a")
    target = first.get_attribute("href")
    assert target is not None
    path = target.removeprefix(played.url)
    seen = tab_to(browser, f"A {path}")
    assert seen[0] == "A /"  # the header's links come first: Overall, then each game
    press(browser, Keys.ENTER)
    wait_for(browser, "return location.pathname === arguments[0];", path)


@pytest.mark.parametrize("game", list(SHORT))
def test_stepping_through_each_games_replay_by_keyboard_draws_the_frames_cards(
    served: Served,
    browser: WebDriver,
    game: str,
) -> None:
    shown = frames_of(served, game)
    frames, starts = shown["frames"], [h["frame"] for h in shown["hands"]]
    last = len(frames) - 1
    browser.get(f"{served.url}/replays/{TOURNAMENT}/{game}")
    check_cards(at_frame(browser, 0), frames[0])
    middle = last // 2
    press(browser, *[Keys.ARROW_RIGHT] * middle)
    check_cards(at_frame(browser, middle), frames[middle])
    press(browser, *[Keys.ARROW_RIGHT] * (last - middle + 2))  # past the end: stays there
    check_cards(at_frame(browser, last), frames[last])
    press(browser, Keys.ARROW_LEFT)
    check_cards(at_frame(browser, last - 1), frames[last - 1])
    press(browser, Keys.HOME)
    check_cards(at_frame(browser, 0), frames[0])
    press(browser, Keys.END)
    check_cards(at_frame(browser, last), frames[last])
    press(browser, Keys.HOME, Keys.PAGE_DOWN)
    second = starts[1] if len(starts) > 1 else 0
    check_cards(at_frame(browser, second), frames[second])
    if second:
        press(browser, Keys.ARROW_RIGHT, Keys.PAGE_UP)  # back to the start of this hand
        check_cards(at_frame(browser, second), frames[second])
        press(browser, "[")
        check_cards(at_frame(browser, 0), frames[0])
        press(browser, "]")
        check_cards(at_frame(browser, second), frames[second])


SENT_PANEL = """
return {heading: document.querySelector("#sent h3").textContent,
        chosen: [...document.querySelectorAll("section.seat.chosen")].map((s) => s.dataset.seat),
        legal: [...document.querySelectorAll("#sent-legal li")].map((li) => li.dataset.id)};
"""
"""What the View selector shows: the sent panel's heading, the seats marked chosen and the
legal actions listed, read in one script (the panel may be drawn again between reads)."""


def test_the_viewer_works_with_the_keyboard_alone(
    served: Served,
    browser: WebDriver,
) -> None:
    shown = frames_of(served, "bid-euchre")
    frames, seats = shown["frames"], shown["seats"]
    browser.get(f"{served.url}/replays/{TOURNAMENT}/bid-euchre")
    at_frame(browser, 0)
    order = tab_to(browser, "seat-select")
    controls = ["first", "back", "play", "forward", "last", "hand-select", "seat-select"]
    assert [e for e in order if e in controls] == controls
    for control in controls:
        label = browser.find_element(By.ID, control).accessible_name
        assert label, control

    browser.find_element(By.ID, "forward").send_keys(Keys.ENTER)
    at_frame(browser, 1)
    browser.find_element(By.ID, "forward").send_keys(Keys.SPACE)  # the button's, not "play"
    check_cards(at_frame(browser, 2), frames[2])
    browser.find_element(By.ID, "last").send_keys(Keys.ENTER)
    at_frame(browser, len(frames) - 1)
    browser.find_element(By.ID, "first").send_keys(Keys.SPACE)
    at_frame(browser, 0)

    browser.find_element(By.ID, "hand-select").send_keys(Keys.ARROW_DOWN)
    second = shown["hands"][1]["frame"]
    check_cards(at_frame(browser, second), frames[second])

    # The View selector puts what the chosen seat was sent beside the table.
    sent = browser.find_element(By.ID, "sent")
    assert "Choose a seat" in sent.text
    browser.find_element(By.ID, "seat-select").send_keys(Keys.ARROW_DOWN)
    wait_for(browser, "return document.getElementById('viewer-app').dataset.seatShown === '0';")
    # Fetched on demand: the legal actions of seat 0's last request, as the route has it.
    # The panel is drawn again when they arrive: read it whole once they have, in one go.
    asked = max(f["index"] for f in frames[: second + 1] if f["seat"] == 0)
    wanted = [str(a["id"]) for a in sent_of(served, "bid-euchre", asked)[1]["legal_actions"]]
    wait_for(browser, "return document.querySelector('#sent-legal li') !== null;")
    panel = browser.execute_script(SENT_PANEL)
    assert panel["heading"] == f"What seat 0 ({seats[0]['name']}) was sent"
    assert panel["chosen"] == ["0"]
    assert panel["legal"] == wanted

    # Space (the focus on the page, not a control) plays and pauses.
    browser.find_element(By.TAG_NAME, "h1").click()
    press(browser, Keys.SPACE)
    play = browser.find_element(By.ID, "play")
    wait_for(browser, "return document.getElementById('play').ariaPressed === 'true';")
    at_frame(browser, second + 1)
    press(browser, Keys.SPACE)
    assert play.get_attribute("aria-pressed") == "false"


def test_the_docs_screenshots_are_taken_at_their_size(tmp_path: Path) -> None:
    """``bench.web_screenshots``, which makes ``docs/images``, on three of its pages."""
    taken = web_screenshots.take(tmp_path, ["bot.png", "replay-seep.png", "live.png"])
    assert [p.name for p in taken] == ["bot.png", "replay-seep.png", "live.png"]
    for path in taken:
        assert png_size(path) == (web_screenshots.WIDTH, web_screenshots.HEIGHT)
        assert 10_000 < path.stat().st_size < 200_000
    shown = (Path(__file__).parents[2] / "docs" / "web.md").read_text()
    for name in [*web_screenshots.shots(web_render.SyntheticSource(12, 400, seed=3)), "live.png"]:
        assert f"images/{name}" in shown


HAND_END = """
const banner = document.getElementById("hand-end");
return banner && [banner.dataset.hand, banner.textContent];
"""


@pytest.mark.parametrize("game", ["bid-euchre", "persian-rummy"])
def test_a_hand_end_is_shown_on_the_first_frame_after_it_and_no_other(
    served: Served,
    browser: WebDriver,
    game: str,
) -> None:
    shown = frames_of(served, game)
    frames, hand = shown["frames"], shown["hands"][0]
    after = hand["end_frame"]
    said = [e["text"] for e in frames[after]["events"] if e["hand_end"]]
    assert said  # the engine's words, which name the scores
    browser.get(f"{served.url}/replays/{TOURNAMENT}/{game}#d={after - 1}")
    at_frame(browser, after - 1)
    assert browser.execute_script(HAND_END) is None
    press(browser, Keys.ARROW_RIGHT)
    at_frame(browser, after)
    assert browser.execute_script(HAND_END) == [
        "1",
        f"Hand 1 ended: {'; '.join(said)}",
    ]
    assert browser.find_element(By.ID, "hand-end").get_attribute("role") == "status"
    press(browser, Keys.ARROW_RIGHT)
    at_frame(browser, after + 1)
    assert browser.execute_script(HAND_END) is None


PLACES = """
const centre = document.querySelector("#frame .piles.centre").getBoundingClientRect();
const found = {};
for (const seat of document.querySelectorAll("#frame section.seat")) {
  const r = seat.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const cx = centre.left + centre.width / 2, cy = centre.top + centre.height / 2;
  const side = y > centre.bottom ? "south" : y < centre.top ? "north"
    : x < centre.left ? "west" : x > centre.right ? "east" : "centre";
  found[seat.dataset.seat] = [seat.dataset.position, side];
}
return found;
"""
"""Each seat panel: the position it claims, and where it is drawn around the centre."""

SEATED = {
    "bid-euchre": ["south", "west", "north", "east"],  # clockwise
    "persian-rummy": ["south", "west", "north", "east"],
    "seep": ["south", "east", "north", "west"],  # counter-clockwise
    "baloot": ["south", "east", "north", "west"],
    "bridgette": ["south", "north"],  # facing
}


@pytest.mark.parametrize("game", list(SHORT))
def test_seats_sit_around_the_table_in_the_order_play_passes(
    served: Served,
    browser: WebDriver,
    game: str,
) -> None:
    frames = frames_of(served, game)["frames"]
    browser.set_window_size(1200, 900)
    browser.get(f"{served.url}/replays/{TOURNAMENT}/{game}")
    check_cards(at_frame(browser, 0), frames[0])
    places = browser.execute_script(PLACES)
    assert places == {str(s): [p, p] for s, p in enumerate(SEATED[game])}
    # A trick's cards say who played them.
    trick = next(
        (
            f
            for f in frames
            if any(p["kind"] == "trick" and p["cards"] for p in f["table"]["piles"])
        ),
        None,
    )
    if trick is not None:
        browser.get(f"{served.url}/replays/{TOURNAMENT}/{game}#d={trick['index']}")
        at_frame(browser, trick["index"])
        pile = next(p for p in trick["table"]["piles"] if p["kind"] == "trick")
        marks = browser.find_elements(By.CSS_SELECTOR, ".pile.trick .card .by")
        assert [m.get_attribute("textContent") for m in marks] == [f"s{s}" for s in pile["seats"]]
    # A narrow screen stacks the seats and the centre, one under the other.
    browser.set_window_size(480, 900)
    try:
        wait_for(
            browser,
            "const s = [...document.querySelectorAll('#frame .around > *')];"
            "return s.every((e, i) => i === 0 || "
            "e.getBoundingClientRect().top >= s[i - 1].getBoundingClientRect().bottom);",
        )
    finally:
        browser.set_window_size(1200, 900)


def test_a_request_that_cannot_be_fetched_says_why(
    served: Served,
    browser: WebDriver,
) -> None:
    browser.get(f"{served.url}/replays/{TOURNAMENT}/seep#d=3")
    at_frame(browser, 3)
    # The page asks elsewhere from now on: a match the server has no result for.
    browser.execute_script(
        "document.getElementById('viewer').dataset.frames = arguments[0];",
        f"/api/replays/{TOURNAMENT}/nosuch/frames",
    )
    browser.find_element(By.ID, "seat-select").send_keys(Keys.ARROW_DOWN)
    wait_for(browser, "return document.getElementById('sent-error') !== null;")
    shown = frames_of(served, "seep")
    asked = max(f["index"] for f in shown["frames"][:4] if f["seat"] == 0)
    error = browser.find_element(By.ID, "sent-error")
    assert error.get_attribute("role") == "alert"
    assert error.text == (
        f"What seat 0 ({shown['seats'][0]['name']}) was sent at frame {asked} could not be "
        f"loaded: tournament {TOURNAMENT} has no result for match 'nosuch' (yet)"
    )


IN_SIGHT = """
const [chosen] = arguments;
const app = document.getElementById("viewer-app");
const key = (name) => document.dispatchEvent(new KeyboardEvent("keydown", {key: name, bubbles: true}));
const frames = Number(app.dataset.frames);
let worst = null;
const clipped = [];  // frames whose middle scrolls
key("Home");
for (let i = 0; i < frames; i++) {
  if (i) key("ArrowRight");  // drawn at once: the viewer draws in its key handler
  const seat = document.querySelector('#frame section.seat[data-seat="0"]').getBoundingClientRect();
  const table = document.querySelector("#frame .around").getBoundingClientRect();
  const centre = document.querySelector("#frame .piles.centre");
  if (centre.scrollHeight > centre.clientHeight + 1) clipped.push(Number(app.dataset.frame));
  const bottom = Math.max(seat.bottom, table.bottom);
  if (worst === null || bottom > worst.bottom) {
    worst = {frame: Number(app.dataset.frame), bottom: bottom, seat: Number(app.dataset.seatShown),
             top: worst === null ? table.top : Math.min(worst.top, table.top)};
  }
  worst.top = Math.min(worst.top, table.top);
}
return {worst: worst, height: window.innerHeight, scrolled: window.scrollY, frames: frames, clipped: clipped,
        last: Number(app.dataset.frame), chosen: chosen};
"""
"""Every frame drawn in turn: where the table, and seat 0 in it, lies lowest."""


@pytest.mark.parametrize("match", [*SHORT, THROWN_IN])
def test_the_whole_table_is_in_sight_in_a_1400x900_window(
    served: Served,
    browser: WebDriver,
    match: str,
) -> None:
    """At every frame, with no seat's request shown and with seat 0's beside the table:
    the table, seat 0 at its bottom, lies within the window as the page opens."""
    frames = frames_of(served, match)["frames"]
    browser.set_window_size(1400, 900)
    try:
        for fragment in ("#d=0", "#d=0&seat=0"):
            browser.get(f"{served.url}/replays/{TOURNAMENT}/{match}{fragment}")
            at_frame(browser, 0)
            found = browser.execute_script(IN_SIGHT, fragment)
            worst = found["worst"]
            assert found["last"] == len(frames) - 1 == found["frames"] - 1
            assert found["scrolled"] == 0
            assert worst["top"] >= 0 and worst["bottom"] <= found["height"], found
    finally:
        browser.set_window_size(1200, 900)


FANNED = """
const rows = [...document.querySelectorAll("#frame section.seat .cards.fan")]
  .filter((row) => row.querySelectorAll(".card").length >= 3);
return rows.map((row) => [...row.querySelectorAll(".card")].map((card) => {
  const box = card.getBoundingClientRect();
  const corner = card.querySelector(".corner").getBoundingClientRect();
  return {left: box.left, right: box.right, top: box.top, bottom: box.bottom,
          corner: corner.right, code: card.dataset.card,
          rank: card.querySelector(".rank").textContent, colour: getComputedStyle(card).color};
}));
"""


def rgb(colour: str) -> tuple[int, ...]:
    return tuple(int(part) for part in colour[colour.index("(") + 1 : -1].split(",")[:3])


def test_cards_are_drawn_as_cards_fanned_in_a_hand_with_a_colour_per_suit(
    served: Served,
    browser: WebDriver,
) -> None:
    """A card is taller than wide, shows its rank in its corner, and a hand is fanned:
    each card over the one before but its corner, which stays in sight. The four suits
    have four colours: hearts red, spades black."""
    colours: dict[str, set[tuple[int, ...]]] = {}
    for game in ("seep", "bridgette"):
        browser.get(f"{served.url}/replays/{TOURNAMENT}/{game}")
        at_frame(browser, 0)
        hands = browser.execute_script(FANNED)
        assert hands, game
        for hand in hands:
            for card, following in itertools.pairwise(hand):
                if following["top"] != card["top"]:
                    continue  # a new row of a long hand
                assert following["left"] < card["right"], (card, following)  # over it
                assert following["left"] >= card["corner"], (card, following)  # but its corner
            for card in hand:
                assert card["bottom"] - card["top"] > card["right"] - card["left"]
                code = card["code"]
                if code not in ("GC", "RC", "LC"):
                    rank = "10" if code[0] == "T" else code[0]
                    assert card["rank"] == rank, card
                    colours.setdefault(code[1], set()).add(rgb(card["colour"]))
    assert set(colours) == set("CDHS") and all(len(c) == 1 for c in colours.values())
    hearts, spades = colours["H"].pop(), colours["S"].pop()
    assert hearts[0] > 150 and hearts[1] < 80 and hearts[2] < 80  # red
    assert max(spades) < 60  # black
    assert len({colours[s].pop() for s in "CD"} | {hearts, spades}) == 4


def test_the_hand_the_header_names_is_the_one_selected(
    served: Served,
    browser: WebDriver,
) -> None:
    """Seep deals thrown in (no decision) start at the frame of the next hand: the Hand
    selector names the hand the header names, lists the thrown-in hands but skips them,
    and the banner names every hand that ended there."""
    shown = frames_of(served, THROWN_IN)
    hands = shown["hands"]
    thrown = [h for h in hands if h["decisions"] == 0 and h["end"] == "throw_in"]
    assert thrown, "the whole Seep match has no deal thrown in any more"
    played = [h for h in hands if h["decisions"]]
    for hand in played:
        browser.get(f"{served.url}/replays/{TOURNAMENT}/{THROWN_IN}#d={hand['frame']}")
        at_frame(browser, hand["frame"])
        position = browser.find_element(By.ID, "position").text
        assert f" · hand {hand['number']} · " in position, position
        selected = browser.execute_script(
            "const s = document.getElementById('hand-select');"
            "return s.options[s.selectedIndex].textContent;"
        )
        assert selected == f"Hand {hand['number']}"
    options = browser.execute_script(
        "return [...document.querySelectorAll('#hand-select option')]"
        ".map((o) => [o.textContent, o.disabled]);"
    )
    assert [text for text, off in options if off] == [
        f"Hand {h['number']} (thrown in)" for h in thrown
    ]
    # The banner of the frame where the thrown-in deals ended, after the hand before.
    after = thrown[-1]["end_frame"]
    ended = [h["number"] for h in hands if h.get("end_frame") == after]
    browser.get(f"{served.url}/replays/{TOURNAMENT}/{THROWN_IN}#d={after}")
    at_frame(browser, after)
    banner = browser.find_element(By.ID, "hand-end").text
    assert banner.startswith(f"Hands {ended[0]} to {ended[-1]} ended: "), banner
    # The selector's arrow keys skip the thrown-in hands.
    before = next(h for h in reversed(played) if h["number"] < thrown[0]["number"])
    following = next(h for h in played if h["number"] > thrown[-1]["number"])
    browser.get(f"{served.url}/replays/{TOURNAMENT}/{THROWN_IN}#d={before['frame']}")
    at_frame(browser, before["frame"])
    browser.find_element(By.ID, "hand-select").send_keys(Keys.ARROW_DOWN)
    at_frame(browser, following["frame"])


def test_every_page_names_an_icon_the_site_serves(served: Served) -> None:
    """Chromium asks for the icon a page names, and for /favicon.ico where nothing names
    one (an API answer): both are there, and nothing it asked for is missing. (A browser
    of its own: another would have the icon in its cache.)"""
    start = len(served.requests)
    wanted = {("/static/favicon.svg", 200), ("/favicon.ico", 200)}
    with chromium() as fresh:
        fresh.get(f"{served.url}/replays/{TOURNAMENT}/seep")
        at_frame(fresh, 0)
        fresh.get(f"{served.url}/api/replays/{TOURNAMENT}/seep/frames")
        deadline = time.monotonic() + 30  # a bound only: Chromium asks in its own time
        while not wanted <= set(served.requests[start:]) and time.monotonic() < deadline:
            time.sleep(0.05)
    asked = served.requests[start:]
    assert wanted <= set(asked), asked
    assert not [r for r in asked if r[1] >= 400], asked
