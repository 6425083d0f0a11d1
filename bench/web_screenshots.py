"""The pictures in ``docs/web.md``: the site's pages in headless Chromium, as PNGs in
``docs/images/``.

The site is the real application over ``bench.web_render``'s synthetic arena (a dozen
bots, a few hundred matches), with real replays of every game
(``tests.replay.matches``) behind the viewer; Chromium is driven by Selenium through
Debian's chromedriver (``make chromium``), as ``tests/web/test_browser.py`` drives it.
Regenerate with ``python -m bench.web_screenshots`` after the pages change.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import tempfile
from pathlib import Path

from arena.v1 import arena_pb2
from bench.web_render import SyntheticSource, served
from tests.replay.matches import play_all
from tests.web.browser import chromium, wait_for

IMAGES = Path(__file__).resolve().parents[1] / "docs" / "images"
WIDTH, HEIGHT = 1200, 800
VIEWER_AT = {
    "bid-euchre": (14, 0),
    "seep": (21, -1),
    "persian-rummy": (95, -1),  # the first frame of deal 2: deal 1's end shown
    "bridgette": (30, -1),
    "baloot": (20, 1),
}
"""Replays shown: the frame, and the seat whose request is shown (-1: none)."""
LIVE = ("baloot", 26)
"""The match shown on the live page, as if being played: stopped after so many
decisions (a trick under way)."""


def shots(source: SyntheticSource) -> dict[str, str]:
    """File name -> the path of the page it shows."""
    top = asyncio.run(source.leaderboard()).rows[0].bot
    ended = arena_pb2.TOURNAMENT_STATE_FINISHED
    finished = next(t for t in asyncio.run(source.tournaments()) if t.state == ended)
    found = {
        "leaderboard.png": "/",
        "bot.png": f"/bots/{top}",
        "tournament.png": f"/tournaments/{finished.id}",
    }
    for game, (frame, seat) in VIEWER_AT.items():
        chosen = f"&seat={seat}" if seat >= 0 else ""
        found[f"replay-{game}.png"] = f"/replays/{finished.id}/{game}#d={frame}{chosen}"
    for live in asyncio.run(source.live_matches()).matches[:1]:  # with ``live=``
        found["live.png"] = f"/live/{live.tournament_id}/{live.match_id}"
    return found


def _status(host: str, port: int, path: str) -> int:
    connection = http.client.HTTPConnection(host, port, timeout=60)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def take(out: Path, only: list[str] | None = None) -> list[Path]:
    """Every screenshot (or those named in ``only``) into ``out``; their paths."""
    with tempfile.TemporaryDirectory() as replays:
        played = play_all(Path(replays))
    source = SyntheticSource(bots=12, matches=400, seed=3, replays=played.replays, live=LIVE)
    out.mkdir(parents=True, exist_ok=True)
    taken = []
    with served(source) as (host, port), chromium(WIDTH, HEIGHT) as driver:
        # The page's viewport exactly, whatever the window's frame takes.
        metrics = {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False}
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
        for name, path in shots(source).items():
            if only and name not in only:
                continue
            status = _status(host, port, path.split("#", 1)[0])
            if status != 200:  # a picture of an error page is no picture of the site
                raise RuntimeError(f"{path} answered {status}: the synthetic source lacks a call?")
            driver.get(f"http://{host}:{port}{path}")
            if path.startswith("/replays/"):
                frame = path.split("#d=")[1].split("&")[0]
                wait_for(
                    driver,
                    "const a = document.getElementById('viewer-app');"
                    "return a !== null && a.dataset.frame === arguments[0];",
                    frame,
                )
                # A seat's request is fetched apart: the picture waits for it.
                wait_for(driver, "return document.getElementById('sent-loading') === null;")
                # The table, not the page's header: the viewer's first line at the top.
                driver.execute_script("document.getElementById('position').scrollIntoView();")
            if path.startswith("/live/"):
                wait_for(
                    driver,
                    "return document.querySelectorAll('#live-table section.seat').length > 0;",
                )
            target = out / name
            if not driver.save_screenshot(str(target)):
                raise RuntimeError(f"no screenshot of {path}")
            taken.append(target)
    return taken


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=IMAGES)
    parser.add_argument("names", nargs="*", help="only these files (e.g. bot.png)")
    args = parser.parse_args()
    for path in take(args.out, args.names or None):
        print(f"{path} {path.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
