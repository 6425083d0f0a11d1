"""A bot's page: its rating over time on every board it is on, a chart and a table each.

Minimal for now (a fuller bot page will grow here); it uses the shared page and table
helpers, and every value goes through ``esc``: bot names and events are users' words.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.ratings.texts import point_text, status_text
from arena.v1 import arena_pb2
from arena.web.chart import STYLE, ChartPoint, rating_chart
from arena.web.pages import empty_tbody, esc, game_title, link, page, td, thead

SHOWN = (arena_pb2.RATING_STATUS_UNSPECIFIED, arena_pb2.RATING_STATUS_RATED)
POINTS_STYLE = """
details.points { margin-top: 8px; }
details.points summary { cursor: pointer; color: var(--link); }
"""


def board_name(game: str) -> str:
    return game_title(game) if game else "All games"


def points_table(series: arena_pb2.RatingSeries, table_id: str) -> str:
    """The chart's points as a table, newest first: what the chart shows, to read or to
    reach by keyboard and screen reader."""
    columns = [
        ("Time (UTC)", "text"),
        ("Event", "text"),
        ("Elo ± 95%", "num"),
        ("Pairs", "num"),
        ("Status", "text"),
    ]
    rows = "".join(
        f'<tr data-time="{p.recorded_at.ToSeconds()}">'
        f"{td(p.recorded_at.ToDatetime().strftime('%Y-%m-%d %H:%M:%S'), 'text')}"
        f"{td(p.event, 'text')}{td(point_text(p))}{td(p.pairs)}"
        f"{td(status_text(p.status), 'text')}</tr>"
        for p in reversed(series.points)
    )
    body = f"<tbody>{rows}</tbody>" if rows else empty_tbody(len(columns), "No ratings yet.")
    return f'<table id="{esc(table_id)}">{thead(columns)}{body}</table>'


def _series_section(bot: str, series: arena_pb2.RatingSeries) -> str:
    key = series.game or "overall"
    points = [  # the ratings the board showed: not the provisional or missing ones
        ChartPoint(p.recorded_at.ToNanoseconds() / 1e9, p.elo, p.elo_ci95, p.event)
        for p in series.points
        if p.status in SHOWN
    ]
    heading = link("/games/" + series.game, board_name(series.game)) if series.game else "All games"
    count = len(series.points)
    return (
        f'<section data-game="{esc(series.game)}"><h2>{heading}</h2>'
        f"{rating_chart(points, f'{bot}, {board_name(series.game)}', 'rating-chart-' + key)}"
        f'<details class="points"><summary>The {count} rating{"s" if count != 1 else ""} '
        "as a table</summary>"
        f"{points_table(series, 'rating-history-' + key)}</details></section>"
    )


def bot_page(history: arena_pb2.RatingHistory, games: Sequence[str], note: str) -> str:
    """The bot's rating on each board over time; a bot not yet rated gets the overall
    chart, empty, and says so."""
    series = list(history.series) or [arena_pb2.RatingSeries(game="")]
    intro = (
        '<p class="muted">Its maximum-likelihood Elo each time the arena refitted its '
        "ratings (a tournament finished, or a ladder played on), with the 95% interval "
        "shaded. Ratings are relative to the bots rated at the time; the chart leaves out "
        "the times the board showed none (too few pairs, not in every game).</p>"
    )
    if not any(s.points for s in history.series):
        intro += f'<p id="no-history">{esc(history.bot)} has not been rated yet.</p>'
    body = f"<section>{intro}</section>" + "".join(_series_section(history.bot, s) for s in series)
    return page(f"Bot {history.bot}", body, games, note=note, style=STYLE + POINTS_STYLE)
