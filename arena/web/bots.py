"""A bot's page: what the registry knows of it (its versions and games), its rating
over time on every board it is on (a chart and a table each), its recent matches and its
fault rates by kind.

It uses the shared page and table helpers, and every value goes through ``esc``: bot
names, versions and events are users' words.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena import wording
from arena.ratings.texts import cell_text, every_row, point_text, rank_text, status_text
from arena.tournament.fair_play import PARTNERS_CAVEAT, partnership_games
from arena.v1 import arena_pb2
from arena.web.chart import STYLE, ChartPoint, rating_chart
from arena.web.data import BotFacts, Match
from arena.web.matchlist import UNRECORDED, FaultRates
from arena.web.pages import (
    bot_url,
    empty_tbody,
    esc,
    game_title,
    link,
    matches_table,
    matches_url,
    page,
    td,
    thead,
    tournament_url,
    utc_text,
)
from arena.web.standings import facts_table, suspension_text

SHOWN = (
    arena_pb2.RATING_STATUS_UNSPECIFIED,
    arena_pb2.RATING_STATUS_RATED,
    arena_pb2.RATING_STATUS_PROVISIONAL,
)
"""Statuses whose points have an estimate the boards showed."""


def charted(point: arena_pb2.RatingPoint) -> bool:
    """Whether the chart draws the point: the board showed its estimate and interval
    (established or provisional, from the first rated pair). A clean sweep's estimate
    is the prior's, so its bound is in the table and not drawn."""
    return point.status in SHOWN and point.pairs > 0 and not point.bound


POINTS_STYLE = """
details.points { margin-top: 8px; }
details.points summary { cursor: pointer; color: var(--link); }
"""


def board_name(game: str) -> str:
    return game_title(game) if game else "All games"


def points_table(series: arena_pb2.RatingSeries, table_id: str) -> str:
    """The chart's points as a table, newest first: what the chart shows, to read or to
    reach by keyboard and screen reader."""
    versions = any(p.version for p in series.points)  # a history across versions
    columns = [
        ("Time (UTC)", "text"),
        ("Event", "text"),
        *((("Version", "text"),) if versions else ()),
        ("Elo ± 95%", "num"),
        ("Pairs", "num"),
        ("Status", "text"),
    ]
    rows = "".join(
        f'<tr data-time="{p.recorded_at.ToSeconds()}">'
        f"{td(p.recorded_at.ToDatetime().strftime('%Y-%m-%d %H:%M:%S'), 'text')}"
        f"{td(p.event, 'text')}{td(p.version, 'text version') if versions else ''}"
        f"{td(point_text(p))}{td(p.pairs)}{td(status_text(p.status), 'text')}</tr>"
        for p in reversed(series.points)
    )
    body = f"<tbody>{rows}</tbody>" if rows else empty_tbody(len(columns), "No ratings yet.")
    return f'<table id="{esc(table_id)}">{thead(columns)}{body}</table>'


def _series_section(bot: str, series: arena_pb2.RatingSeries) -> str:
    key = series.game or "overall"
    points = [
        ChartPoint(
            p.recorded_at.ToNanoseconds() / 1e9,
            p.elo,
            p.elo_ci95,
            f"{bot}@{p.version}: {p.event}" if p.version else p.event,
        )
        for p in series.points
        if charted(p)
    ]
    heading = link("/games/" + series.game, board_name(series.game)) if series.game else "All games"
    count = len(series.points)
    if points:
        chart = rating_chart(points, f"{bot}, {board_name(series.game)}", "rating-chart-" + key)
    else:  # an empty chart would only say the same at more length
        latest = series.points[-1] if series.points else None
        if latest is None:
            why = "No rating to chart yet."
        elif latest.bound:
            swept = "won" if latest.bound == arena_pb2.RATING_BOUND_AT_LEAST else "lost"
            why = (
                f"No estimate to chart: at the latest refit it had {swept} every one of its "
                f"{latest.pairs} pairs, and the board showed its 95% bound, {point_text(latest)}."
            )
        else:
            why = (
                f"No rating to chart yet: at the latest refit it was "
                f"{status_text(latest.status)}, with {latest.pairs} pairs."
            )
        chart = f'<p class="muted" id="rating-chart-{esc(key)}">{esc(why)}</p>'
    return (
        f'<section data-game="{esc(series.game)}"><h2>{heading}</h2>{chart}'
        f'<details class="points"><summary>Its {wording.count(count, "recorded point")} '
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
            f'<tr data-version="{esc(v.version)}">'
            f'<td class="text">{link(bot_url(f"{bot.name}@{v.version}"), v.version)}</td>'
            f"{td(utc_text(v.submitted_at), 'text')}{td(v.runtime, 'text')}"
            f"{td(_games_text(v.games), 'text')}"
            f"{td(f'{v.hello_name} {v.hello_version}'.strip(), 'text')}"
            f'<td class="text" title="sha256 {esc(v.package_sha256)}">'
            f"{esc(v.package_sha256[:12])} ({v.package_bytes} bytes)</td></tr>"
            for v in facts.versions
        )
        parts.append(
            '<h3>Versions</h3><p class="muted">Newest first; tournaments play the newest '
            'unless an entry names one ("name@version"). Each version is rated on its own, '
            "as name@version: its page has its ratings.</p>"
            f'<table id="bot-versions">{thead(columns)}<tbody>{rows_html}</tbody></table>'
        )
    parts.append(suspended_list(facts))
    parts.append("</section>")
    return "".join(parts)


def suspended_list(facts: BotFacts) -> str:
    """The running ladders that do not pair it (or a version of it) for now, and why."""
    if not facts.suspensions:
        return ""
    items = "".join(
        f'<li data-tournament="{esc(s.tournament_id)}" data-entry="{esc(s.suspension.entry)}">'
        f"{link(tournament_url(s.tournament_id), s.tournament_name or s.tournament_id)}: "
        f"{esc(s.suspension.entry)} {esc(suspension_text(s.suspension))}</li>"
        for s in facts.suspensions
    )
    return f'<h3>Suspended</h3><ul id="bot-suspensions">{items}</ul>'


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


def rated_as(bot: str, facts: BotFacts | None) -> list[str]:
    """The names the boards rate this bot under: a hosted bot's versions, newest first
    (``name@version``, each rated on its own), else its own name."""
    if facts is not None and facts.versions and "@" not in bot:
        return [f"{bot}@{v.version}" for v in facts.versions]
    return [bot]


def standing_section(bot: str, boards: Sequence[arena_pb2.Leaderboard], names: list[str]) -> str:
    """Where the bot stands now on each board, as the boards show it: rank, Elo with its
    interval (provisional ones marked), pairs, status, the row's note."""
    columns = [
        ("Board", "text"),
        ("Bot", "text"),
        ("Rank", "num"),
        ("Elo ± 95%", "num"),
        ("Pairs", "num"),
        ("Status", "text"),
        ("Note", "text"),
    ]
    rows = "".join(
        f'<tr data-game="{esc(board.game)}" data-bot="{esc(row.bot)}">'
        f"{td(board_name(board.game), 'text')}{td(row.bot, 'text')}{td(rank_text(row))}"
        f"{td(cell_text(row))}{td(row.pairs)}{td(status_text(row.status), 'text')}"
        f"{td(row.note, 'text note muted')}</tr>"
        for board in boards
        for row in every_row(board)
        if row.bot in names
    )
    body = (
        f"<tbody>{rows}</tbody>"
        if rows
        else empty_tbody(len(columns), f"{bot} is on no board yet: it has no rated match.")
    )
    return (
        '<section><h2>Now</h2><p class="muted">Its rows on the leaderboards as they are '
        "now, from every stored result.</p>"
        f'<table id="bot-standing">{thead(columns)}{body}</table></section>'
    )


def _no_history(bot: str, names: list[str]) -> str:
    """Why there is no chart: the ratings are under its versions' names, or none was
    recorded yet (points are taken when the arena refits, not at every result)."""
    if names != [bot]:
        links = ", ".join(link(bot_url(name), name) for name in names)
        return (
            f'<p id="no-history">{esc(bot)} has no rating recorded yet. Each version is '
            f"rated on its own results, and its chart follows the newest one: {links}.</p>"
        )
    return (
        f'<p id="no-history">{esc(bot)} has no rating recorded yet: points are recorded '
        "when a tournament finishes and as a ladder plays on; the leaderboards show the "
        "ratings of every result so far.</p>"
    )


def bot_page(
    history: arena_pb2.RatingHistory,
    games: Sequence[str],
    note: str,
    facts: BotFacts | None = None,
    matches: Sequence[Match] = (),
    rates: FaultRates | None = None,
    boards: Sequence[arena_pb2.Leaderboard] | None = None,
) -> str:
    """The registry's facts, where the bot stands now on the ``boards`` (when given: all
    games together and each game), its rating on each board over time (a bot with no
    point gets the overall chart, empty, and says why), recent matches, fault rates."""
    series = list(history.series) or [arena_pb2.RatingSeries(game="")]
    names = rated_as(history.bot, facts)
    intro = (
        '<p class="muted">Its maximum-likelihood Elo each time the arena refitted its '
        "ratings (a tournament finished, or a ladder played on), with the 95% interval "
        "shaded, provisional ones too (marked ? in the table: fewer pairs than an "
        "established rating has). Ratings are relative to the bots rated at the time; the "
        "chart leaves out the times the board showed no estimate (no rated pair, not in "
        "every game, or a clean sweep, whose bound the table gives).</p>"
    )
    if not any(s.points for s in history.series):
        intro += _no_history(history.bot, names)
    charts = "".join(_series_section(history.bot, s) for s in series)
    body = (
        (registry_section(facts) if facts is not None else "")
        + (standing_section(history.bot, boards, names) if boards is not None else "")
        + f"<section><h2>Rating</h2>{intro}</section>{charts}"
        + (matches_section(history.bot, matches) if facts is not None else "")
        + (faults_section(rates, history.bot) if rates is not None else "")
    )
    return page(f"Bot {history.bot}", body, games, note=note, style=STYLE + POINTS_STYLE)
