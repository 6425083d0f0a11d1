"""The author's view's HTML: the sign-in form, the author's page (their competitions'
daily submissions left, their bots and versions, recent matches with links to their
logs, the upload form), a match's logs, and the line the public pages' header shows a
signed-in author.

Every value goes through ``pages.esc``: bot names, log lines and the API's refusals are
written by people. Every form carries its CSRF token (``arena.web.sessions``). Pure: no
Starlette, no gRPC.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

from arena.hosting.package import MAX_PACKAGE_BYTES
from arena.hosting.runtimes import NAMES as RUNTIMES
from arena.v1 import arena_pb2
from arena.web.author_data import Daily
from arena.web.data import Match
from arena.web.pages import (
    AUTHOR_LINK,
    bot_url,
    empty_tbody,
    esc,
    game_title,
    link,
    page,
    result_text,
    td,
    thead,
    tournament_link,
    utc_text,
)

HOME = "/author/"
SIGN_IN = "/author/sign-in"
SIGN_OUT = "/author/sign-out"
SUBMIT = "/author/submit"
LOGS = "/author/logs"
CSRF_FIELD = "csrf"
STRIP = AUTHOR_LINK.encode()
"""Every public page's header ends with this link; for a signed-in author the site puts
``signed_in_strip`` in its place, and changes nothing else."""
STYLE = (
    "form.stack label { display: block; margin: 8px 0 2px; font-weight: 600; }"
    "form.stack input[type=text], form.stack input[type=password], form.stack select"
    " { width: 28em; max-width: 100%; padding: 4px; }"
    "form.stack button { margin-top: 12px; }"
    ".flash { background: #eef7ee; border-left: 5px solid #2e8b57; padding: 8px 14px; }"
    "td.wrap { white-space: normal; }"
)
PHASES: dict[int, str] = {
    arena_pb2.COMPETITION_PHASE_SCHEDULED: "scheduled",
    arena_pb2.COMPETITION_PHASE_OPEN: "open",
    arena_pb2.COMPETITION_PHASE_CLOSED: "closed",
    arena_pb2.COMPETITION_PHASE_FINAL: "final",
    arena_pb2.COMPETITION_PHASE_FINISHED: "finished",
    arena_pb2.COMPETITION_PHASE_CANCELLED: "cancelled",
}


def csrf_input(token: str) -> str:
    return f'<input type="hidden" name="{CSRF_FIELD}" value="{esc(token)}">'


def sign_out_form(csrf: str) -> str:
    return (
        f'<form class="sign-out" method="post" action="{SIGN_OUT}">'
        f'{csrf_input(csrf)}<button type="submit" id="sign-out">Sign out</button></form>'
    )


def signed_in_strip(author: str, csrf: str) -> bytes:
    """What a signed-in author sees at the end of every public page's header."""
    return (
        f'<span class="author-link" id="signed-in">Signed in as '
        f'<a href="{HOME}">{esc(author)}</a> {sign_out_form(csrf)}</span>'
    ).encode()


def logs_url(bot: str, match_id: str, tournament_id: str) -> str:
    return LOGS + "?" + urlencode({"bot": bot, "match": match_id, "tournament": tournament_id})


def _message(message: str, css: str = "error") -> str:
    return f'<div class="{css}" role="alert"><p id="message">{esc(message)}</p></div>'


def sign_in_page(games: Sequence[str], form_token: str, message: str = "", name: str = "") -> str:
    """The sign-in form: the author's name and token, posted to the site, which checks
    them with the API."""
    shown = _message(message) if message else ""
    body = (
        f"<section>{shown}<h2>Sign in as an author</h2>"
        "<p>With the name and token the operator gave you (<code>arena author add</code>) "
        "or that <code>arena author join</code> printed. The site keeps the token in its "
        "memory for this session only and uses it for your own calls: your bots' logs and "
        "your submissions. Sessions end after 30 minutes unused, 12 hours at most, on "
        "signing out, or when the site restarts.</p>"
        f'<form class="stack" id="sign-in" method="post" action="{SIGN_IN}">'
        f"{csrf_input(form_token)}"
        '<label for="author">Author name</label>'
        f'<input type="text" id="author" name="author" value="{esc(name)}" required '
        'maxlength="40" autocomplete="username">'
        '<label for="token">Author token</label>'
        '<input type="password" id="token" name="token" required maxlength="512" '
        'autocomplete="current-password">'
        '<div><button type="submit">Sign in</button></div></form></section>'
    )
    return page("Card Arena: author sign-in", body, games, style=STYLE)


@dataclass(frozen=True)
class BotView:
    bot: arena_pb2.RegisteredBot
    versions: list[arena_pb2.HostedBotVersion]


@dataclass(frozen=True)
class Board:
    """A competition's board as the author sees it: every version of theirs, or why the
    API could not say."""

    competition: str
    versions: list[arena_pb2.CompetitionBoardRow]
    problem: str = ""


@dataclass(frozen=True)
class Home:
    author: str
    csrf: str
    bots: list[BotView]
    matches: list[Match]
    daily: list[Daily]
    boards: list[Board]


def _daily_table(daily: Sequence[Daily]) -> str:
    columns = [
        ("Competition", "text"),
        ("Phase", "text"),
        ("Per 24 h", "num"),
        ("Used", "num"),
        ("Left", "num"),
        ("Next allowed", "text"),
    ]
    rows = []
    for d in daily:
        submitting = d.phase in (
            arena_pb2.COMPETITION_PHASE_SCHEDULED,
            arena_pb2.COMPETITION_PHASE_OPEN,
        )
        left = d.remaining if submitting else 0
        when = (
            "closed to submissions"
            if not submitting
            else "now"
            if d.next_at is None
            else time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(d.next_at))
        )
        rows.append(
            f'<tr data-competition="{esc(d.competition)}">{td(d.competition, "text")}'
            f"{td(PHASES.get(d.phase, 'unknown'), 'text')}{td(d.limit)}{td(d.used)}"
            f'<td class="num left">{left}</td>{td(when, "text")}</tr>'
        )
    body = (
        f"<tbody>{''.join(rows)}</tbody>"
        if rows
        else empty_tbody(len(columns), "You have joined no competition: no daily limit.")
    )
    return (
        '<section><h2>Daily submissions</h2><table id="author-daily">'
        f"{thead(columns)}{body}</table>"
        '<p class="muted">As the arena counts them: over the last 24 hours (rolling, UTC), '
        "versions since removed included.</p></section>"
    )


def _boards(boards: Sequence[Board]) -> str:
    parts = []
    for b in boards:
        if b.problem:
            parts.append(f'<h3>{esc(b.competition)}</h3><p class="muted">{esc(b.problem)}</p>')
            continue
        columns = [("Rank", "num"), ("Version", "text"), ("Active", "text"), ("Elo", "num")]
        rows = "".join(
            f'<tr data-version="{esc(r.version)}">{td(r.rank or "")}{td(r.version, "text")}'
            f"{td('yes' if r.active else 'no', 'text')}{td(f'{r.rating.elo:.0f}')}</tr>"
            for r in b.versions
        )
        body = f"<tbody>{rows}</tbody>" if rows else empty_tbody(4, "No rated version yet.")
        parts.append(f"<h3>{esc(b.competition)}</h3><table>{thead(columns)}{body}</table>")
    if not parts:
        return ""
    return (
        '<section id="author-boards"><h2>Your versions on the boards</h2>'
        + "".join(parts)
        + "</section>"
    )


def _bots(bots: Sequence[BotView]) -> str:
    if not bots:
        return (
            '<section id="author-bots"><h2>Your bots</h2><p class="muted">None yet: submit '
            "one below.</p></section>"
        )
    parts = []
    columns = [
        ("Version", "text"),
        ("Submitted (UTC)", "text"),
        ("Runtime", "text"),
        ("SHA-256", "text"),
        ("Bytes", "num"),
        ("Games", "text"),
        ("Command", "text"),
    ]
    for view in bots:
        b = view.bot
        kind = "hosted" if b.hosted else "remote (registered at an address)"
        rows = "".join(
            f'<tr data-version="{esc(v.version)}">'
            f"{td(v.version + (' *' if n == 0 else ''), 'text')}"
            f"{td(utc_text(v.submitted_at), 'text')}{td(v.runtime, 'text')}"
            f"{td(v.package_sha256[:12], 'text')}{td(f'{v.package_bytes:,}')}"
            f"{td(', '.join(game_title(g) for g in v.games), 'text wrap')}"
            f"{td(v.command, 'text')}</tr>"
            for n, v in enumerate(view.versions)
        )
        body = (
            f"<tbody>{rows}</tbody>"
            if rows
            else empty_tbody(len(columns), "A remote bot has no versions.")
        )
        parts.append(
            f'<h3 data-bot="{esc(b.name)}">{link(bot_url(b.name), b.name)} '
            f'<span class="muted">{esc(kind)}</span></h3>'
            f'<table class="author-versions" data-bot="{esc(b.name)}">'
            f"{thead(columns)}{body}</table>"
        )
    return (
        '<section id="author-bots"><h2>Your bots</h2>'
        + "".join(parts)
        + '<p class="muted">* the version tournaments play unless an entry names one.</p></section>'
    )


def _matches(matches: Sequence[Match], mine: set[str]) -> str:
    columns = [
        ("Tournament", "text"),
        ("Game", "text"),
        ("Entries", "text"),
        ("Result", "text"),
        ("Finished", "text"),
        ("Logs", "text"),
    ]
    rows = []
    for m in matches:
        r = m.record
        own = [e for e in dict.fromkeys(r.entries) if e.partition("@")[0] in mine]
        if r.HasField("seed"):  # revealed: the API gives its logs (and replay) now
            logs = " ".join(
                link(logs_url(e.partition("@")[0], r.match_id, m.tournament_id), f"logs of {e}")
                for e in own
            )
        else:
            logs = '<span class="muted">when its tournament ends</span>'
        rows.append(
            f'<tr data-match="{esc(r.match_id)}"><td class="text">'
            f"{tournament_link(m.tournament_id, m.tournament_name)}</td>"
            f"{td(game_title(r.game), 'text')}{td(' v '.join(r.entries), 'text wrap')}"
            f"{td(result_text(r), 'text')}"
            f"{td(utc_text(r.finished_at) if r.HasField('finished_at') else '', 'text muted')}"
            f'<td class="text">{logs}</td></tr>'
        )
    body = (
        f"<tbody>{''.join(rows)}</tbody>"
        if rows
        else empty_tbody(len(columns), "No matches of your bots yet.")
    )
    return (
        '<section><h2>Recent matches</h2><table id="author-matches">'
        f"{thead(columns)}{body}</table>"
        '<p class="muted">A match\'s logs are given once its deal is no longer in play: '
        "when its tournament ends, or in an open ladder as soon as the match ends.</p></section>"
    )


def submit_form(csrf: str, bots: Sequence[str], values: dict[str, str] | None = None) -> str:
    """The upload form: a package as ``arena bot submit`` sends one (a tar.gz of the
    bot's directory, as ``arena bot template`` lays it out), its name, version label,
    runtime and command."""
    values = values or {}
    chosen = values.get("runtime", "python3.11")
    options = "".join(
        f'<option value="{esc(r)}"{" selected" if r == chosen else ""}>{esc(r)}</option>'
        for r in RUNTIMES
    )
    known = "".join(f'<option value="{esc(b)}">' for b in bots)
    return (
        '<section id="author-submit"><h2>Submit a version</h2>'
        "<p>The package is a <code>.tar.gz</code> of the bot's files (<code>tar czf "
        f"bot.tar.gz -C DIR .</code>), at most {MAX_PACKAGE_BYTES:,} bytes. The site checks it "
        "as <code>arena bot submit</code> does, then the arena starts the bot and asks its "
        "Hello before it takes the version.</p>"
        f'<form class="stack" id="submit" method="post" action="{SUBMIT}" '
        'enctype="multipart/form-data">'
        f"{csrf_input(csrf)}"
        '<label for="bot-name">Bot name</label>'
        f'<input type="text" id="bot-name" name="name" list="own-bots" required maxlength="40" '
        f'value="{esc(values.get("name", ""))}"><datalist id="own-bots">{known}</datalist>'
        '<label for="bot-version">Version label (empty: the time, as the command does)</label>'
        f'<input type="text" id="bot-version" name="version" maxlength="40" '
        f'value="{esc(values.get("version", ""))}">'
        '<label for="bot-runtime">Runtime</label>'
        f'<select id="bot-runtime" name="runtime">{options}</select>'
        '<label for="bot-command">Command</label>'
        f'<input type="text" id="bot-command" name="command" required maxlength="1000" '
        f'value="{esc(values.get("command", "python3 bot.py"))}">'
        '<label for="bot-package">Package (.tar.gz)</label>'
        '<input type="file" id="bot-package" name="package" required '
        'accept=".tar.gz,.tgz,application/gzip">'
        '<div><button type="submit">Submit</button></div></form></section>'
    )


def home_page(
    home: Home,
    games: Sequence[str],
    *,
    flash: str = "",
    error: str = "",
    values: dict[str, str] | None = None,
) -> str:
    """The author's page; ``flash`` says what just succeeded, ``error`` why an upload
    was refused (the API's words), with the form filled in again."""
    top = (_message(flash, "flash") if flash else "") + (_message(error) if error else "")
    body = (
        f'<section id="author">{top}<p>Signed in as <strong id="author-name">'
        f"{esc(home.author)}</strong>. {sign_out_form(home.csrf)}</p></section>"
        + _daily_table(home.daily)
        + _boards(home.boards)
        + _bots(home.bots)
        + _matches(home.matches, {v.bot.name for v in home.bots})
        + submit_form(home.csrf, [v.bot.name for v in home.bots], values)
    )
    return page(f"Card Arena: {home.author}'s bots", body, games, style=STYLE)


def logs_page(logs: arena_pb2.BotLogs, tournament_id: str, games: Sequence[str]) -> str:
    """A match's logs of one bot of the author's: each seat's output as the bot wrote it,
    shown as text."""
    parts = []
    for seat in logs.seats:
        cut = (
            '<p class="muted">The output was longer; the middle was dropped.</p>'
            if seat.truncated
            else ""
        )
        parts.append(
            f'<section class="seat-log" data-seat="{seat.seat}"><h3>{esc(logs.bot)}@'
            f"{esc(logs.version)}, seat {seat.seat}: {esc(seat.exit)}</h3>"
            f"<pre>{esc(seat.output)}</pre>{cut}</section>"
        )
    body = (
        f"<section><p>Match {esc(logs.match_id)} of {tournament_link(tournament_id)}. "
        f'<a href="{HOME}">Back to your bots</a></p></section>' + "".join(parts)
    )
    return page(f"Logs of {logs.bot} in {logs.match_id}", body, games, style=STYLE)


def refused_page(status: int, message: str, games: Sequence[str]) -> str:
    """An author's call the API (or the site) refused: its message, as it is."""
    body = (
        f'<section><div class="error"><h2>{status}</h2><p id="message">{esc(message)}</p></div>'
        f'<p><a href="{HOME}">Back to your bots</a></p></section>'
    )
    return page("Card Arena: refused", body, games, style=STYLE)
