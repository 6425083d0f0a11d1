"""The leaderboard's HTML, rendered on the server: one page per request, readable
without JavaScript, fetching only the site's own files from ``static/`` (served from the
package; no fonts or anything from another host): its stylesheet, and on the replay
page the viewer's script and styles, with the replay's text kept for readers without
JavaScript.

Every value that reaches the page goes through ``esc``: bot and tournament names are
chosen by users.
"""

from __future__ import annotations

import functools
import html
from collections.abc import Sequence
from datetime import UTC
from http import HTTPStatus
from urllib.parse import quote, urlencode

from google.protobuf.timestamp_pb2 import Timestamp

from arena.games import all_games
from arena.ratings.texts import elo_text, interval_text, rank_text, ranking_text, rating_text
from arena.replay.render import render
from arena.tournament.progress import STATE_NAMES, format_text, held_up_text
from arena.v1 import arena_pb2
from arena.web import viewer
from arena.web.data import Match, Replay
from arena.web.errors import HttpError
from arena.wording import count

REFRESH_S = 30
INDEX_TOURNAMENTS = 10

STYLESHEET = "/static/site.css"
FAVICON = "/static/favicon.svg"
"""Every page names its icon, so no browser asks for a missing /favicon.ico."""
AUTHOR_LINK = '<a class="author-link" href="/author/">Author sign-in</a>'
"""The header's last link; for a signed-in author the site puts who they are and a
sign-out button in its place (``arena.web.author.STRIP``)."""


def esc(value: object) -> str:
    """Text or attribute value, escaped (quotes too, so it is safe inside attributes)."""
    return html.escape(str(value), quote=True)


def path_part(value: str) -> str:
    """One URL path segment: every character that could end the segment is quoted."""
    return quote(value, safe="")


def replay_url(tournament_id: str, match_id: str, api: bool = False) -> str:
    prefix = "/api/replays" if api else "/replays"
    return f"{prefix}/{path_part(tournament_id)}/{path_part(match_id)}"


def bot_url(bot: str, api: bool = False) -> str:
    """The bot's page, or (``api``) its rating history as JSON."""
    return f"/api/bots/{path_part(bot)}/history" if api else f"/bots/{path_part(bot)}"


def tournament_url(tournament_id: str, api: bool = False) -> str:
    return f"{'/api' if api else ''}/tournaments/{path_part(tournament_id)}"


def matches_url(
    game: str = "",
    bot: str = "",
    tournament: str = "",
    cursor: str = "",
    limit: int | None = None,
    api: bool = False,
) -> str:
    """The match list, filtered by what is given (``/api/matches`` with ``api``)."""
    query = {
        k: v
        for k, v in (
            ("game", game),
            ("bot", bot),
            ("tournament", tournament),
            ("cursor", cursor),
            ("limit", "" if limit is None else str(limit)),
        )
        if v
    }
    path = "/api/matches" if api else "/matches"
    return path + ("?" + urlencode(query) if query else "")


def progress_text(t: arena_pb2.Tournament) -> str:
    """Matches done of the total; of those handed out so far when the format decides its
    total as it goes (an SPRT)."""
    if t.matches_total:
        return f"{t.matches_done}/{t.matches_total}"
    return f"{t.matches_done}/{t.matches_issued} issued"


@functools.cache
def _titles() -> dict[str, str]:
    return {g.info.name: g.info.title for g in all_games()}


def game_title(name: str) -> str:
    return _titles().get(name, name)


def result_text(record: arena_pb2.MatchRecord) -> str:
    entries = list(record.entries)
    if record.end == arena_pb2.RESULT_END_NO_CONTEST:
        return "no contest"
    if record.end == arena_pb2.RESULT_END_FORFEIT and record.HasField("forfeit_team"):
        return f"{entries[record.forfeit_team]} forfeits"
    if record.HasField("winner_team"):
        return f"{entries[record.winner_team]} wins"
    return "draw"


def thead(columns: Sequence[tuple[str, str]]) -> str:
    cells = "".join(f'<th scope="col" class="{css}">{esc(label)}</th>' for label, css in columns)
    return f"<thead><tr>{cells}</tr></thead>"


def empty_tbody(columns: int, text: str) -> str:
    return f'<tbody><tr><td class="empty" colspan="{columns}">{esc(text)}</td></tr></tbody>'


def td(text: object, css: str = "num") -> str:
    """A cell holding ``text``, escaped."""
    return f'<td class="{css}">{esc(text)}</td>'


def link(href: str, text: str, css: str = "") -> str:
    attr = f' class="{css}"' if css else ""
    return f'<a{attr} href="{esc(href)}">{esc(text)}</a>'


def _leaderboard_row(
    row: arena_pb2.LeaderboardRow, games: Sequence[str], board: arena_pb2.Leaderboard
) -> str:
    status = arena_pb2.RatingStatus.Name(row.status).removeprefix("RATING_STATUS_").lower()
    elo = (
        f'<td class="num elo" data-elo="{row.elo!r}" data-ci95="{row.elo_ci95!r}">'
        f"{esc(rating_text(row, board))} "
        f'<span class="ci">{esc(interval_text(row))}</span></td>'
    )
    per_game = "".join(td(elo_text(row.game_elo[g]) if g in row.game_elo else "") for g in games)
    return (
        f'<tr data-bot="{esc(row.bot)}" data-status="{status}">{td(rank_text(row), "num rank")}'
        f'<td class="text bot">{link(bot_url(row.bot), row.bot)}{_older(row, board)}</td>'
        f"{elo}{td(row.pairs)}{td(f'{row.wins}-{row.draws}-{row.losses}')}{td(row.matches)}"
        f"{per_game}{td(row.note, 'text note muted')}</tr>"
    )


def _older(row: arena_pb2.LeaderboardRow, board: arena_pb2.Leaderboard) -> str:
    """The bot's older versions, folded under its newest one's name: each rated on its
    own results, none ranked."""
    if not row.older_versions:
        return ""
    items = "".join(
        f'<li data-bot="{esc(o.bot)}">{link(bot_url(o.bot), o.bot)} '
        f"{esc(rating_text(o, board))} {esc(interval_text(o))}, {count(o.pairs, 'pair')}</li>"
        for o in row.older_versions
    )
    older = count(len(row.older_versions), "older version")
    return f'<details class="older"><summary>{older}</summary><ul>{items}</ul></details>'


def leaderboard_table(board: arena_pb2.Leaderboard, table_id: str) -> str:
    """Rank, bot, Elo ± 95% interval (provisional ones marked), pairs, W-D-L, matches,
    (overall: one Elo column per game,) and the row's note: why it is not ranked or is
    provisional, a clean sweep, its group; under the table, the ranking rule when it
    ranks provisional rows."""
    games = [] if board.game else sorted({g for row in board.rows for g in row.game_elo})
    columns = [
        ("Rank", "num"),
        ("Bot", "text"),
        ("Elo ± 95%", "num"),
        ("Pairs", "num"),
        ("W-D-L", "num"),
        ("Matches", "num"),
        *((game_title(g), "num") for g in games),
        ("Note", "text"),
    ]
    if board.rows:
        rows = "".join(_leaderboard_row(r, games, board) for r in board.rows)
        body = f"<tbody>{rows}</tbody>"
    else:
        body = empty_tbody(len(columns), "No rated matches yet.")
    rule = ranking_text(board)
    legend = f'<p class="muted ranking" id="{esc(table_id)}-rule">{esc(rule)}</p>' if rule else ""
    return f'<table id="{esc(table_id)}">{thead(columns)}{body}</table>{legend}'


def ranks_someone(board: arena_pb2.Leaderboard) -> bool:
    return any(row.rank for row in board.rows)


def los_table(board: arena_pb2.Leaderboard) -> str:
    """The likelihood of superiority of the top bots, in percent: the chance that the
    row's bot is stronger than the column's, from the fit's covariance."""
    if not board.los:
        return ""
    bots = [row.bot for row in board.los]
    head = thead([("LOS %", "text"), *((bot, "num") for bot in bots)])
    rows = "".join(
        "<tr>"
        + td(row.bot, "text")
        + "".join(
            td("" if bot == row.bot else f"{100 * value:.0f}", "num")
            for bot, value in zip(bots, row.los, strict=True)
        )
        + "</tr>"
        for row in board.los
    )
    return (
        '<p class="muted">Likelihood of superiority: the chance, in percent, that the row\'s '
        "bot is stronger than the column's (from the full covariance of the fit).</p>"
        f'<table id="los-matrix">{head}<tbody>{rows}</tbody></table>'
    )


def _match_row(match: Match) -> str:
    r = match.record
    winner = r.winner_team if r.HasField("winner_team") else None
    teams = "".join(
        td(entry, "text winner" if team == winner else "text")
        for team, entry in enumerate(r.entries)
    )
    if r.replay_id:
        links = (
            link(replay_url(match.tournament_id, r.match_id), "replay", "replay")
            + " "
            + link(replay_url(match.tournament_id, r.match_id, api=True), "json", "muted")
        )
    else:  # its deal is still in play: the replay would show cards kept secret
        links = (
            '<span class="muted sealed" title="a replay is published once no match still '
            "to be played shares its deal: when the tournament ends, or as soon as the "
            'match ends in an open ladder">not published yet</span>'
        )

    return (
        f'<tr data-match="{esc(r.match_id)}">'
        f'<td class="text" title="{esc(match.tournament_id)}">'
        f"{tournament_link(match.tournament_id, match.tournament_name)}</td>"
        f'<td class="text">{link("/games/" + path_part(r.game), game_title(r.game))}</td>'
        f"{td(r.deal if r.HasField('deal') else '')}{teams}{td(' : '.join(map(str, r.scores)))}"
        f"{td(result_text(r), 'text')}"
        f"{td(utc_text(r.finished_at) if r.HasField('finished_at') else '', 'text muted')}"
        f'<td class="text">{links}</td></tr>'
    )


def utc_text(stamp: Timestamp) -> str:
    return stamp.ToDatetime(tzinfo=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def matches_table(matches: Sequence[Match], table_id: str = "recent-matches") -> str:
    """Most recent first: tournament, game, deal, both teams, score, result, when it
    finished, replay links."""
    columns = [
        ("Tournament", "text"),
        ("Game", "text"),
        ("Deal", "num"),
        ("Team 0", "text"),
        ("Team 1", "text"),
        ("Score", "num"),
        ("Result", "text"),
        ("Finished", "text"),
        ("Replay", "text"),
    ]
    if matches:
        body = "<tbody>" + "".join(_match_row(m) for m in matches) + "</tbody>"
    else:
        body = empty_tbody(len(columns), "No matches yet.")
    return f'<table id="{esc(table_id)}">{thead(columns)}{body}</table>'


def page(
    title: str,
    body: str,
    games: Sequence[str],
    *,
    note: str = "",
    refresh: bool = False,
    style: str = "",
    head: str = "",
) -> str:
    """A whole HTML document: header with links to every game, ``body``, a footer;
    ``style`` adds to the shared stylesheet, inline, for a page's own parts; ``head`` to
    the head (the replay viewer's stylesheet and script)."""
    nav = (
        '<a href="/">Overall</a>'
        + "".join(f'<a href="/games/{esc(path_part(g))}">{esc(game_title(g))}</a>' for g in games)
        + '<a href="/live">Live</a><a href="/matches">Matches</a>'
        + '<a href="/competitions">Competitions</a>'
        + AUTHOR_LINK
    )
    meta = f'<meta http-equiv="refresh" content="{REFRESH_S}">' if refresh else ""
    footer = f"<footer>{esc(note)}</footer>" if note else ""
    own_style = f"<style>{style}</style>" if style else ""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'{meta}<title>{esc(title)}</title><link rel="icon" href="{FAVICON}" type="image/svg+xml">'
        f'<link rel="stylesheet" href="{STYLESHEET}">'
        f"{own_style}{head}</head>"
        f"<body><header><h1>{esc(title)}</h1><nav>{nav}</nav></header>"
        f"<main>{body}{footer}</main></body></html>\n"
    )


def _game_sections(boards: Sequence[arena_pb2.Leaderboard]) -> str:
    """A table per game with rated matches, those that rank someone first, then one line
    naming the games without."""
    rated = sorted((b for b in boards if b.rows), key=lambda b: not ranks_someone(b))
    unrated = [b for b in boards if not b.rows]
    parts = [
        f"<h3>{link('/games/' + path_part(b.game), game_title(b.game))}"
        f' <span class="muted">({b.matches} matches)</span></h3>'
        + leaderboard_table(b, "leaderboard-" + b.game)
        for b in rated
    ]
    if unrated:
        links = ", ".join(link("/games/" + path_part(b.game), game_title(b.game)) for b in unrated)
        parts.append(f'<p class="muted" id="unrated-games">No rated matches yet: {links}.</p>')
    return "".join(parts)


def caveats(board: arena_pb2.Leaderboard) -> str:
    """What the API says a reader should know before trusting the board."""
    return "".join(f'<p class="caveat">Note: {esc(c)}.</p>' for c in board.caveats)


def tournament_link(tournament_id: str, name: str = "") -> str:
    """The tournament's name (its id if it has none), linking to its page."""
    return link(tournament_url(tournament_id), name or tournament_id)


def running_table(running: Sequence[arena_pb2.Tournament]) -> str:
    """Tournaments in progress, and why one waits if it does."""
    rows = "".join(
        f'<tr data-tournament="{esc(t.id)}"><td class="text">'
        f"{tournament_link(t.id, t.spec.name)}</td>{td(progress_text(t))}"
        f"{td(held_up_text(t) or 'playing', 'text waiting' if held_up_text(t) else 'text')}"
        "</tr>"
        for t in running
    )
    head = thead([("Tournament", "text"), ("Matches", "num"), ("Status", "text")])
    return f'<table id="running-tournaments">{head}<tbody>{rows}</tbody></table>'


def ended_table(ended: Sequence[arena_pb2.Tournament]) -> str:
    """Finished and cancelled tournaments, newest first, each with where its format ended."""
    rows = "".join(
        f'<tr data-tournament="{esc(t.id)}"><td class="text">{tournament_link(t.id, t.spec.name)}'
        f"</td>{td(format_text(t), 'text')}{td(progress_text(t))}"
        f"{td(STATE_NAMES.get(t.state, '?'), 'text')}</tr>"
        for t in ended
    )
    head = thead(
        [("Tournament", "text"), ("Format", "text"), ("Matches", "num"), ("State", "text")]
    )
    return f'<table id="recent-tournaments">{head}<tbody>{rows}</tbody></table>'


def index_page(
    overall: arena_pb2.Leaderboard,
    per_game: Sequence[arena_pb2.Leaderboard],
    matches: Sequence[Match],
    tournaments: Sequence[arena_pb2.Tournament],
    games: Sequence[str],
    note: str,
) -> str:
    """The overall and per-game boards (the games first when the overall board ranks
    nobody and a game's does), recent matches; tournaments in progress first and the
    last few that ended after (``tournaments`` newest first, as the API lists them)."""
    running = [t for t in tournaments if t.state == arena_pb2.TOURNAMENT_STATE_RUNNING]
    ended = [
        t
        for t in tournaments
        if t.state in (arena_pb2.TOURNAMENT_STATE_FINISHED, arena_pb2.TOURNAMENT_STATE_CANCELLED)
    ][:INDEX_TOURNAMENTS]
    boards = [
        '<section id="overall"><h2>Overall</h2><p class="muted">Maximum-likelihood Elo over '
        f"all games, from {overall.matches} matches; each duplicate pair counts once, and "
        "so does each match of an open tournament (a deal of its own).</p>"
        f"{caveats(overall)}{leaderboard_table(overall, 'leaderboard-overall')}"
        f"{los_table(overall)}</section>",
        f'<section id="by-game"><h2>By game</h2>{_game_sections(per_game)}</section>',
    ]
    if not ranks_someone(overall) and any(ranks_someone(b) for b in per_game):
        boards.reverse()  # lead with the boards that rank someone
    sections = [
        *boards,
        f"<section><h2>Recent matches</h2>{matches_table(matches)}"
        f"<p>{link(matches_url(), 'All matches', 'all-matches')}</p></section>",
    ]
    if ended:
        sections.append(f"<section><h2>Recent tournaments</h2>{ended_table(ended)}</section>")
    if running:
        sections.insert(0, f"<section><h2>In progress</h2>{running_table(running)}</section>")
    return page("Card Arena leaderboard", "".join(sections), games, note=note, refresh=True)


def game_page(
    board: arena_pb2.Leaderboard, matches: Sequence[Match], games: Sequence[str], note: str
) -> str:
    title = game_title(board.game)
    body = (
        f'<section><h2>{esc(title)}</h2><p class="muted">{board.matches} matches.</p>'
        f"{caveats(board)}{leaderboard_table(board, 'leaderboard-' + board.game)}</section>"
        f"<section><h2>Recent {esc(title)} matches</h2>{matches_table(matches)}"
        f"<p>{link(matches_url(game=board.game), f'All {title} matches', 'all-matches')}</p>"
        "</section>"
    )
    return page(f"Card Arena leaderboard: {title}", body, games, note=note, refresh=True)


def match_list_page(
    matches: Sequence[Match],
    *,
    game: str,
    bot: str,
    tournament: str,
    limit: int,
    cursor: str,
    next_cursor: str,
    games: Sequence[str],
    note: str,
) -> str:
    """A page of the match list, a form to filter it, and links to the first and next
    pages (a cursor pages forwards only: see ``arena.web.matchlist``)."""
    chosen = [
        f"{label} {value}"
        for label, value in (
            ("game", game_title(game) if game else ""),
            ("bot", bot),
            ("tournament", tournament),
        )
        if value
    ]
    what = "Matches" + (f" ({', '.join(chosen)})" if chosen else "")
    options = '<option value="">every game</option>' + "".join(
        f'<option value="{esc(g)}"{" selected" if g == game else ""}>{esc(game_title(g))}</option>'
        for g in games
    )
    form = (
        '<form id="match-filter" method="get" action="/matches">'
        f'<label>Game <select name="game">{options}</select></label> '
        f'<label>Bot <input name="bot" value="{esc(bot)}" size="16"></label> '
        f'<label>Tournament <input name="tournament" value="{esc(tournament)}" size="16">'
        f'</label> <input type="hidden" name="limit" value="{limit}">'
        '<button type="submit">Filter</button></form>'
    )
    pager = []
    if cursor:
        first = matches_url(game, bot, tournament, limit=limit)
        pager.append(f'<a id="first-page" href="{esc(first)}">First page</a>')
    if next_cursor:
        after = matches_url(game, bot, tournament, next_cursor, limit)
        pager.append(f'<a id="next-page" rel="next" href="{esc(after)}">Next page</a>')
    body = (
        f'<section><h2>{esc(what)}</h2><p class="muted">Newest tournament first, and in '
        f"each the latest scheduled match first; {limit} a page.</p>{form}"
        f"{matches_table(matches, 'matches')}"
        f'<nav class="pager">{" · ".join(pager)}</nav></section>'
    )
    return page("Card Arena matches", body, games, note=note)


def replay_page(replay: Replay, games: Sequence[str]) -> str:
    """The replay viewer (``static/viewer.js`` draws it from the frames JSON), and the
    replay as ``arena replay show`` prints it, for readers without JavaScript."""
    r = replay.record
    viewer.checked(replay)
    try:
        text = render(replay.document)
    except (KeyError, TypeError, ValueError, IndexError) as error:
        raise HttpError(
            502, f"replay unavailable: {r.replay_id} is not a Card Arena replay ({error!r})"
        ) from None
    json_link = replay_url(replay.tournament_id, r.match_id, api=True)
    frames_link = json_link + "/frames"
    summary = (
        f"{game_title(r.game)}, tournament {replay.tournament_id}, deal {r.deal}: "
        f"{' vs '.join(r.entries)}, scores {' : '.join(map(str, r.scores))}, {result_text(r)}"
    )
    # One line above the table, the rest under it: the whole table fits a 1400x900 window.
    body = (
        f'<section><p class="page-note"><span class="summary">{esc(summary)}</span></p>'
        f'<div id="viewer" data-frames="{esc(frames_link)}">'
        '<p class="muted" id="viewer-status">Loading the replay viewer…</p>'
        "<noscript><p>The table view needs JavaScript; the whole replay is below as text."
        "</p></noscript></div>"
        f'<p class="muted">Replay {esc(r.replay_id)} from the '
        f'referee at {esc(r.referee)} · <a href="{esc(json_link)}">JSON</a> · '
        f'<a href="{esc(frames_link)}">frames JSON</a></p>'
        '<details id="replay-text"><summary>The replay as text</summary>'
        f'<pre id="replay">{esc(text)}</pre></details></section>'
    )
    head = (
        '<link rel="stylesheet" href="/static/viewer.css">'
        '<script src="/static/cards.js" defer></script>'
        '<script src="/static/viewer.js" defer></script>'
    )
    return page(f"Replay of {r.match_id}", body, games, head=head)


def error_page(status: int, message: str, games: Sequence[str]) -> str:
    phrase = HTTPStatus(status).phrase
    body = (
        f'<section><div class="error"><h2>{status} {esc(phrase)}</h2>'
        f'<p id="message">{esc(message)}</p></div>'
        '<p><a href="/">Back to the leaderboard</a></p></section>'
    )
    return page(f"Card Arena leaderboard: {phrase}", body, games)
