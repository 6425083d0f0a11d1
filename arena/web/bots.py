"""A bot's page: what the registry knows of it (its versions and games), its rating
over time on every board it is on (a chart and a table each), its recent matches and its
fault rates by kind.

It uses the shared page and table helpers, and every value goes through ``esc``: bot
names, versions and events are users' words.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.ratings.texts import point_text, status_text
from arena.tournament.fair_play import PARTNERS_CAVEAT, partnership_games
from arena.v1 import arena_pb2
from arena.web.chart import STYLE, ChartPoint, rating_chart
from arena.web.data import BotFacts, Match
from arena.web.matchlist import UNRECORDED, FaultRates
from arena.web.pages import (
    empty_tbody,
    esc,
    game_title,
    link,
    matches_table,
    matches_url,
    page,
    td,
    thead,
    utc_text,
)
from arena.web.standings import facts_table

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
    if points:
        chart = rating_chart(points, f"{bot}, {board_name(series.game)}", "rating-chart-" + key)
    else:  # an empty chart would only say the same at more length
        latest = series.points[-1] if series.points else None
        chart = f'<p class="muted" id="rating-chart-{esc(key)}">No rating to chart yet' + (
            f": at the latest refit it was {esc(status_text(latest.status))}, "
            f"with {latest.pairs} pairs.</p>"
            if latest
            else ".</p>"
        )
    return (
        f'<section data-game="{esc(series.game)}"><h2>{heading}</h2>{chart}'
        f'<details class="points"><summary>Its {count} recorded point{"s" if count != 1 else ""} '
        "as a table</summary>"
        f"{points_table(series, 'rating-history-' + key)}</details></section>"
    )


KIND_TEXTS = {
    "timeout": "Timeouts (no answer in time)",
    "rpc_error": "Errors (the bot answered with a gRPC error)",
    "unreachable": "Unreachable (could not be called)",
    "illegal_action": "Illegal actions",
    "wrong_match": "Answers for another match or decision",
    UNRECORDED: "Kind not recorded (results stored before kinds were kept)",
}


def _games_text(games: Sequence[str]) -> str:
    return ", ".join(game_title(g) for g in games) or "none of the arena's"


def registry_section(facts: BotFacts) -> str:
    """Its registry entry, and a hosted bot's versions, newest first."""
    bot = facts.registered
    if bot is None:
        return (
            '<section><h2>Registry</h2><p id="not-registered">Not in the registry any more: '
            "it was removed; its results and ratings stay.</p></section>"
        )
    if bot.hosted:
        kind = "hosted: the arena runs its submitted package" + (
            f", by author {bot.author}" if bot.author else ", the operator's"
        )
    else:
        kind = "remote: the arena calls it at its address"
        if together := partnership_games(bot.games):
            kind += f"; in {_games_text(together)}: {PARTNERS_CAVEAT}"
    rows = [
        ("name", "Name", bot.name),
        ("kind", "Kind", kind),
        ("games", "Games", _games_text(bot.games)),
        ("hello", "Says it is", f"{bot.hello_name} {bot.version}".strip()),
    ]
    if bot.HasField("registered_at"):
        label = "Newest version submitted" if bot.hosted else "Registered"
        rows.append(("registered", label, utc_text(bot.registered_at)))
    parts = [f"<section><h2>Registry</h2>{facts_table(rows, 'bot-facts')}"]
    if facts.versions:
        columns = [
            ("Version", "text"),
            ("Submitted", "text"),
            ("Runtime", "text"),
            ("Games", "text"),
            ("Says it is", "text"),
            ("Package", "text"),
        ]
        rows_html = "".join(
            f'<tr data-version="{esc(v.version)}">{td(v.version, "text")}'
            f"{td(utc_text(v.submitted_at), 'text')}{td(v.runtime, 'text')}"
            f"{td(_games_text(v.games), 'text')}"
            f"{td(f'{v.hello_name} {v.hello_version}'.strip(), 'text')}"
            f'<td class="text" title="sha256 {esc(v.package_sha256)}">'
            f"{esc(v.package_sha256[:12])} ({v.package_bytes} bytes)</td></tr>"
            for v in facts.versions
        )
        parts.append(
            '<h3>Versions</h3><p class="muted">Newest first; tournaments play the newest '
            'unless an entry names one ("name@version").</p>'
            f'<table id="bot-versions">{thead(columns)}<tbody>{rows_html}</tbody></table>'
        )
    parts.append("</section>")
    return "".join(parts)


def faults_section(rates: FaultRates, bot: str) -> str:
    """Faults by kind, per match: the record counts decisions for the whole match, not
    for each team, so per match is the rate it supports; and the fault policy counts per
    match too (a team forfeits at its max_faults-th fault in one match)."""
    intro = (
        f'<p class="muted">Over its last {rates.matches} match'
        f"{'es' if rates.matches != 1 else ''} ({rates.decisions} decisions by all seats): "
        "the faults its seats made, per match. Per match, not per decision: a result "
        "counts the decisions of the whole match, not each team's, and a team forfeits on "
        "its third fault in one match (by default). The referee plays a legal action for "
        "every fault.</p>"
    )
    columns = [("Kind", "text"), ("Faults", "num"), ("Per match", "num")]
    rows = [
        f'<tr data-kind="{esc(kind)}">{td(KIND_TEXTS.get(kind, kind), "text")}{td(count)}'
        f"{td(f'{rates.per_match(kind):.3f}')}</tr>"
        for kind, count in rates.faults.items()
    ]
    forfeit_rate = rates.forfeits / rates.matches if rates.matches else 0.0
    rows.append(
        f'<tr data-kind="forfeit">{td("Forfeits (matches lost to faults)", "text")}'
        f"{td(rates.forfeits)}{td(f'{forfeit_rate:.3f}')}</tr>"
    )
    body = f"<tbody>{''.join(rows)}</tbody>"
    if not rates.matches:
        body = empty_tbody(len(columns), "No matches yet.")
    elif not rates.faults and not rates.forfeits:
        intro += f'<p id="no-faults">{esc(bot)} made no fault in these matches.</p>'
    table = f'<table id="bot-faults">{thead(columns)}{body}</table>'
    return f"<section><h2>Faults</h2>{intro}{table}</section>"


def matches_section(bot: str, matches: Sequence[Match]) -> str:
    return (
        f"<section><h2>Recent matches</h2>{matches_table(matches, 'bot-matches')}"
        f"<p>{link(matches_url(bot=bot), f'All matches of {bot}', 'all-matches')}</p></section>"
    )


def bot_page(
    history: arena_pb2.RatingHistory,
    games: Sequence[str],
    note: str,
    facts: BotFacts | None = None,
    matches: Sequence[Match] = (),
    rates: FaultRates | None = None,
) -> str:
    """The registry's facts, the bot's rating on each board over time (a bot not yet
    rated gets the overall chart, empty, and says so), recent matches, fault rates."""
    series = list(history.series) or [arena_pb2.RatingSeries(game="")]
    intro = (
        '<p class="muted">Its maximum-likelihood Elo each time the arena refitted its '
        "ratings (a tournament finished, or a ladder played on), with the 95% interval "
        "shaded. Ratings are relative to the bots rated at the time; the chart leaves out "
        "the times the board showed none (too few pairs, not in every game).</p>"
    )
    if not any(s.points for s in history.series):
        intro += f'<p id="no-history">{esc(history.bot)} has not been rated yet.</p>'
    charts = "".join(_series_section(history.bot, s) for s in series)
    body = (
        (registry_section(facts) if facts is not None else "")
        + f"<section><h2>Rating</h2>{intro}</section>{charts}"
        + (matches_section(history.bot, matches) if facts is not None else "")
        + (faults_section(rates, history.bot) if rates is not None else "")
    )
    return page(f"Bot {history.bot}", body, games, note=note, style=STYLE + POINTS_STYLE)
