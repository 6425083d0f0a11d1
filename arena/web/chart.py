"""A rating-over-time chart as inline SVG: the Elo line, its 95% interval as a shaded
band, axes with round Elo values and dates, and a text alternative.

Pure: points in, markup out. The pages load nothing from anywhere (no script, no font,
no CDN), so the chart is drawn here; every text goes through ``html.escape``, since
events name tournaments whose names users choose.
"""

from __future__ import annotations

import html
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

from arena.ratings.texts import elo_text

WIDTH, HEIGHT = 760, 280
LEFT, RIGHT, TOP, BOTTOM = 64, 24, 16, 48
SINGLE_BAND_W = 10
"""Width of the band drawn for a lone point, which has no time span to fill."""

STYLE = """
svg.chart { background: #fff; border: 1px solid var(--line); max-width: 100%; height: auto;
  font: 12px system-ui, sans-serif; }
svg.chart text { fill: var(--muted); }
svg.chart line { stroke: #9aa3b2; stroke-width: 1; }
svg.chart line.grid { stroke: #eef0f4; }
svg.chart .band { fill: #1d5bb8; fill-opacity: 0.16; stroke: none; }
svg.chart polyline.elo { fill: none; stroke: #1d5bb8; stroke-width: 2; stroke-linejoin: round; }
svg.chart circle.point { fill: #1d5bb8; }
"""


@dataclass(frozen=True)
class ChartPoint:
    time: float
    """Seconds since the epoch."""
    elo: float
    ci95: float
    """Half-width of the 95% interval; not finite draws no band there."""
    label: str = ""
    """What the point is (the event that recorded it), for its tooltip."""


def _esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def nice_step(span: float, count: int) -> float:
    """A round step (1, 2 or 5 times a power of ten) giving about ``count`` steps."""
    raw = max(span / count, 1e-9)
    power = 10.0 ** math.floor(math.log10(raw))
    return next(m * power for m in (1.0, 2.0, 5.0, 10.0) if m * power >= raw)


def date_text(seconds: float, span: float) -> str:
    """UTC; with the time of day when the chart spans two days or less."""
    pattern = "%m-%d %H:%M" if span <= 2 * 86400 else "%Y-%m-%d"
    return time.strftime(pattern, time.gmtime(seconds))


class Scale:
    """Time and Elo to SVG coordinates, with every point's interval in view; the Elo
    range is widened to round values, which are the ticks."""

    def __init__(self, points: Sequence[ChartPoint]) -> None:
        times = [p.time for p in points] or [0.0]
        self.start, self.end = min(times), max(times)
        lows = [p.elo - _half(p) for p in points] or [0.0]
        highs = [p.elo + _half(p) for p in points] or [0.0]
        low, high = min(lows), max(highs)
        if high - low < 20:  # flat (or no) data: still a readable range around it
            low, high = low - 10, high + 10
        self.step = nice_step(high - low, 4)
        self.low = math.floor(low / self.step) * self.step
        self.high = math.ceil(high / self.step) * self.step

    def x(self, seconds: float) -> float:
        """Left to right in time; a chart of one instant puts it in the middle."""
        span = self.end - self.start
        inner = WIDTH - LEFT - RIGHT
        if span <= 0:
            return LEFT + inner / 2
        return LEFT + inner * (seconds - self.start) / span

    def y(self, elo: float) -> float:
        """Higher Elo higher up (smaller y)."""
        return TOP + (HEIGHT - TOP - BOTTOM) * (self.high - elo) / (self.high - self.low)

    def elo_ticks(self) -> list[float]:
        count = round((self.high - self.low) / self.step)
        return [self.low + i * self.step for i in range(count + 1)]

    def time_ticks(self) -> list[float]:
        if self.end <= self.start:
            return [self.start]
        return [self.start + (self.end - self.start) * i / 3 for i in range(4)]


def _half(point: ChartPoint) -> float:
    return point.ci95 if math.isfinite(point.ci95) else 0.0


def describe(points: Sequence[ChartPoint], what: str) -> str:
    """The chart in words, for screen readers (and anyone without the picture)."""
    if not points:
        return f"No ratings of {what} recorded yet."
    first, last = points[0], points[-1]
    span = last.time - first.time
    elos = [p.elo for p in points]
    if len(points) == 1:
        return (
            f"One rating of {what}, on {date_text(first.time, span)} UTC: "
            f"{elo_text(first.elo)} ± {_half(first):.0f} Elo."
        )
    return (
        f"{len(points)} ratings of {what} from {date_text(first.time, span)} to "
        f"{date_text(last.time, span)} UTC: from {elo_text(first.elo)} ± {_half(first):.0f} "
        f"to {elo_text(last.elo)} ± {_half(last):.0f} Elo; lowest {elo_text(min(elos))}, "
        f"highest {elo_text(max(elos))}."
    )


def _band(scale: Scale, points: Sequence[ChartPoint]) -> str:
    """The 95% interval: a polygon along the upper ends and back along the lower ones;
    a lone point's is a short bar."""
    if len(points) == 1:
        p = points[0]
        top, bottom = scale.y(p.elo + _half(p)), scale.y(p.elo - _half(p))
        return (
            f'<rect class="band" x="{scale.x(p.time) - SINGLE_BAND_W / 2:.1f}" y="{top:.1f}" '
            f'width="{SINGLE_BAND_W}" height="{bottom - top:.1f}"/>'
        )
    upper = [f"{scale.x(p.time):.1f},{scale.y(p.elo + _half(p)):.1f}" for p in points]
    lower = [f"{scale.x(p.time):.1f},{scale.y(p.elo - _half(p)):.1f}" for p in reversed(points)]
    return f'<polygon class="band" points="{" ".join(upper + lower)}"/>'


def _axes(scale: Scale) -> str:
    bottom = HEIGHT - BOTTOM
    span = scale.end - scale.start
    parts = [
        f'<line class="axis" x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{bottom}"/>',
        f'<line class="axis" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{bottom}" y2="{bottom}"/>',
    ]
    for value in scale.elo_ticks():
        y = scale.y(value)
        parts.append(
            f'<line class="grid" x1="{LEFT + 1}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text class="elo-tick" x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">'
            f"{elo_text(value)}</text>"
        )
    ticks = scale.time_ticks()
    for i, seconds in enumerate(ticks):
        x = scale.x(seconds)
        anchor = "middle" if len(ticks) == 1 else ("start", "middle", "middle", "end")[i]
        parts.append(
            f'<line class="tick" x1="{x:.1f}" x2="{x:.1f}" y1="{bottom}" y2="{bottom + 5}"/>'
            f'<text class="time-tick" x="{x:.1f}" y="{bottom + 18}" text-anchor="{anchor}">'
            f"{_esc(date_text(seconds, span))}</text>"
        )
    mid_x, mid_y = (LEFT + WIDTH - RIGHT) / 2, (TOP + bottom) / 2
    parts.append(
        f'<text class="axis-label" x="{mid_x:.1f}" y="{HEIGHT - 8}" text-anchor="middle">'
        "time (UTC)</text>"
        f'<text class="axis-label" x="16" y="{mid_y:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 16 {mid_y:.1f})">Elo</text>'
    )
    return "".join(parts)


def rating_chart(points: Sequence[ChartPoint], what: str, chart_id: str) -> str:
    """The Elo of ``what`` (e.g. "rand, all games") over time, oldest point first, as an
    ``<svg role="img">`` labelled by its title and description."""
    ordered = sorted((p for p in points if math.isfinite(p.elo)), key=lambda p: p.time)
    scale = Scale(ordered)
    title = f"Elo of {what} over time"
    label = f"{chart_id}-title {chart_id}-desc"
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart rating-chart" '
        f'id="{_esc(chart_id)}" role="img" aria-labelledby="{_esc(label)}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}">'
        f'<title id="{_esc(chart_id)}-title">{_esc(title)}</title>'
        f'<desc id="{_esc(chart_id)}-desc">{_esc(describe(ordered, what))}</desc>'
    )
    if not ordered:
        return (
            head + _axes(scale) + f'<text class="empty" x="{(LEFT + WIDTH - RIGHT) / 2:.1f}" '
            f'y="{(TOP + HEIGHT - BOTTOM) / 2:.1f}" text-anchor="middle">'
            "No ratings recorded yet.</text></svg>"
        )
    span = ordered[-1].time - ordered[0].time
    line = " ".join(f"{scale.x(p.time):.1f},{scale.y(p.elo):.1f}" for p in ordered)
    dots = "".join(
        f'<circle class="point" cx="{scale.x(p.time):.1f}" cy="{scale.y(p.elo):.1f}" r="3" '
        f'data-time="{p.time!r}" data-elo="{p.elo!r}" data-ci95="{p.ci95!r}">'
        f"<title>{_esc(date_text(p.time, span))}: {_esc(elo_text(p.elo))} ± "
        f"{_half(p):.0f}{_esc(' (' + p.label + ')' if p.label else '')}</title></circle>"
        for p in ordered
    )
    return (
        head
        + _axes(scale)
        + _band(scale, ordered)
        + (f'<polyline class="elo" points="{line}"/>' if len(ordered) > 1 else "")
        + dots
        + "</svg>"
    )
