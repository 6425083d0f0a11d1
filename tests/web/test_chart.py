"""The rating chart on its own: coordinates follow time and Elo, the interval is a band
around the line, and the chart says in words what it shows, with any number of points."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from arena.web.chart import (
    BOTTOM,
    HEIGHT,
    LEFT,
    RIGHT,
    TOP,
    WIDTH,
    ChartPoint,
    Scale,
    describe,
    nice_step,
    rating_chart,
)

SVG = "{http://www.w3.org/2000/svg}"
DAY = 86400.0
POINTS = [
    ChartPoint(1_700_000_000 + 3 * DAY, 40.0, 30.0, "ladder l1 at 400 results"),
    ChartPoint(1_700_000_000, -10.0, 90.0, "tournament t1 finished"),
    ChartPoint(1_700_000_000 + DAY, 25.0, 60.0, "<b>t2</b> & co"),
]


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # well-formed XML, or this raises


def circles(root: ET.Element) -> list[tuple[float, float, float, float]]:
    """(time, elo, cx, cy) of each point drawn."""
    return [
        (float(c.get("data-time", "")), float(c.get("data-elo", "")), float(c.get("cx", "")),
         float(c.get("cy", "")))
        for c in root.iter(f"{SVG}circle")
    ]  # fmt: skip


def test_points_map_to_coordinates_monotonic_in_time_and_elo() -> None:
    root = parse(rating_chart(POINTS, "rand, all games", "c1"))
    drawn = circles(root)
    assert [t for t, *_ in drawn] == sorted(p.time for p in POINTS)  # oldest first
    xs = [x for *_, x, _ in drawn]
    assert xs == sorted(xs) and xs[0] == LEFT and xs[-1] == WIDTH - RIGHT
    by_elo = sorted(drawn, key=lambda d: d[1])
    assert [d[3] for d in by_elo] == sorted((d[3] for d in by_elo), reverse=True)  # higher up
    for _, _, _, y in drawn:
        assert TOP <= y <= HEIGHT - BOTTOM
    (line,) = root.iter(f"{SVG}polyline")
    assert line.get("points") == " ".join(f"{x:.1f},{y:.1f}" for _, _, x, y in drawn)


def test_the_interval_is_a_band_around_every_point() -> None:
    root = parse(rating_chart(POINTS, "rand, all games", "c1"))
    (band,) = root.iter(f"{SVG}polygon")
    assert band.get("class") == "band"
    corners = [tuple(map(float, p.split(","))) for p in (band.get("points") or "").split()]
    assert len(corners) == 2 * len(POINTS)
    scale = Scale(POINTS)
    ordered = sorted(POINTS, key=lambda p: p.time)
    upper, lower = corners[: len(POINTS)], corners[len(POINTS) :][::-1]
    for point, (ux, uy), (lx, ly), (_, _, cx, cy) in zip(
        ordered, upper, lower, circles(root), strict=True
    ):
        assert ux == lx == cx
        assert uy < cy < ly  # the line runs inside its band
        assert ly - uy == round(scale.y(point.elo - point.ci95), 1) - round(
            scale.y(point.elo + point.ci95), 1
        )
    ticks = [t.text or "" for t in root.iter(f"{SVG}text") if t.get("class") == "elo-tick"]
    assert ticks and all(re.fullmatch(r"[+-]\d+", t) for t in ticks)
    assert scale.low <= min(p.elo - p.ci95 for p in POINTS)
    assert scale.high >= max(p.elo + p.ci95 for p in POINTS)


def test_the_chart_has_a_text_alternative_and_escapes_events() -> None:
    svg = rating_chart(POINTS, "rand & co, all games", "c1")
    root = parse(svg)
    assert root.get("role") == "img" and root.get("aria-labelledby") == "c1-title c1-desc"
    title = root.find(f"{SVG}title")
    desc = root.find(f"{SVG}desc")
    assert title is not None and title.get("id") == "c1-title"
    assert title.text == "Elo of rand & co, all games over time"
    assert desc is not None and desc.get("id") == "c1-desc"
    assert desc.text == (
        "3 ratings of rand & co, all games from 2023-11-14 to 2023-11-17 UTC: from -10 ± 90 "
        "to +40 ± 30 Elo; lowest -10, highest +40."
    )
    assert "<b>" not in svg  # an event is text in a point's tooltip, never markup
    labels = {t.text for t in root.iter(f"{SVG}text") if t.get("class") == "axis-label"}
    assert labels == {"time (UTC)", "Elo"}
    times = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "time-tick"]
    assert times[0] == "2023-11-14" and times[-1] == "2023-11-17"


def test_one_point_is_a_dot_with_a_bar_and_no_line() -> None:
    one = ChartPoint(1_700_000_000, 12.0, 50.0)
    root = parse(rating_chart([one], "rand, seep", "c2"))
    ((_, _, x, y),) = circles(root)
    assert x == (LEFT + WIDTH - RIGHT) / 2  # one instant: in the middle
    assert not list(root.iter(f"{SVG}polyline"))
    (bar,) = root.iter(f"{SVG}rect")
    top, height = float(bar.get("y", "")), float(bar.get("height", ""))
    assert top < y < top + height
    assert "One rating of rand, seep, on 11-14 22:13 UTC: +12 ± 50 Elo." in rating_chart(
        [one], "rand, seep", "c2"
    )


def test_no_points_is_an_empty_chart_that_says_so() -> None:
    root = parse(rating_chart([], "rand, seep", "c3"))
    assert not list(root.iter(f"{SVG}circle")) and not list(root.iter(f"{SVG}polygon"))
    desc = root.find(f"{SVG}desc")
    assert desc is not None and desc.text == "No ratings of rand, seep recorded yet."
    assert describe([], "x") == "No ratings of x recorded yet."
    assert any(t.text == "No ratings recorded yet." for t in root.iter(f"{SVG}text"))


def test_steps_are_round() -> None:
    assert [nice_step(span, 4) for span in (3, 40, 130, 900, 2500)] == [1, 10, 50, 500, 1000]
