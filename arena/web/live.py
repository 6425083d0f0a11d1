"""Live matches: the page listing the matches being played, the page that follows one
(``static/live.js`` draws the table each event carries, as the referee's engine sees it
with everything hidden taken out, with the replay viewer's ``static/cards.js``), and the
server-sent events it reads.

The events are the referee's ``WatchMatch`` stream, public by construction (no hands;
no seed while the deal is secret), relayed with ``id:`` set to the event's sequence:
a browser that loses the connection reconnects with ``Last-Event-ID`` and the site,
which asks the referee again from the start, skips what was already sent.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from google.protobuf import json_format

from arena.games import UnknownGameError, get_game
from arena.replay.tables import play_direction
from arena.v1 import arena_pb2, referee_pb2
from arena.web.errors import HttpError
from arena.web.pages import (
    esc,
    game_title,
    link,
    page,
    path_part,
    result_text,
    td,
    thead,
    tournament_link,
)

RETRY_MS = 2000
"""How long a browser waits before reconnecting (the ``retry:`` field)."""


def live_url(tournament_id: str, match_id: str) -> str:
    return f"/live/{path_part(tournament_id)}/{path_part(match_id)}"


def events_url(tournament_id: str, match_id: str) -> str:
    return f"/api/live/{path_part(tournament_id)}/{path_part(match_id)}/events"


def watchable(record: arena_pb2.MatchRecord) -> bool:
    """Whether a finished match's events may be shown: its deal is its own (an open
    tournament's match), or its tournament has revealed every deal. A duplicate half's
    plays would otherwise show the cards of its other half, which may still be played."""
    return bool(record.referee_match_id) and (
        record.HasField("seed") or record.pair_key == record.match_id
    )


def last_event_id(raw: str | None) -> int:
    """The sequence a reconnecting browser last received; -1 for a first connection."""
    if raw is None or raw == "":
        return -1
    if not raw.isdigit() or len(raw) > 9:
        raise HttpError(400, f"Last-Event-ID must be an event's sequence number, got {raw!r}")
    return int(raw)


def event_json(event: referee_pb2.MatchEvent) -> dict[str, object]:
    data: dict[str, object] = json_format.MessageToDict(
        event, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    return data


def sse(event: referee_pb2.MatchEvent) -> bytes:
    """One server-sent event: its sequence as the id, the MatchEvent as one line of JSON."""
    data = json.dumps(event_json(event), separators=(",", ":"), ensure_ascii=False)
    return f"id: {event.sequence}\ndata: {data}\n\n".encode()


def retry_field() -> bytes:
    return f"retry: {RETRY_MS}\n\n".encode()


def live_table(matches: Sequence[arena_pb2.LiveMatch]) -> str:
    columns = [
        ("Tournament", "text"),
        ("Game", "text"),
        ("Team 0", "text"),
        ("Team 1", "text"),
        ("Started", "text"),
        ("Follow", "text"),
    ]
    if not matches:
        return (
            f'<table id="live-matches">{thead(columns)}<tbody><tr><td class="empty" '
            f'colspan="{len(columns)}">No match is being played now.</td></tr></tbody></table>'
        )
    rows = "".join(
        f'<tr data-tournament="{esc(m.tournament_id)}" data-match="{esc(m.match_id)}">'
        f'<td class="text">{tournament_link(m.tournament_id, m.tournament_name)}</td>'
        f"{td(game_title(m.game), 'text')}"
        + "".join(td(e, "text") for e in m.entries)
        + f"{td(m.started_at.ToDatetime().strftime('%H:%M:%S UTC'), 'text')}"
        f'<td class="text">{link(live_url(m.tournament_id, m.match_id), m.match_id)}</td></tr>'
        for m in matches
    )
    return f'<table id="live-matches">{thead(columns)}<tbody>{rows}</tbody></table>'


def live_list_page(
    reply: arena_pb2.ListLiveMatchesResponse, games: Sequence[str], note: str
) -> str:
    withheld = (
        f'<p class="muted" id="live-withheld">{reply.withheld} more being played are halves '
        "of duplicate pairs, whose deals stay secret until their tournaments end (their "
        "replays are published then).</p>"
        if reply.withheld
        else ""
    )
    body = f"<section>{live_table(reply.matches)}{withheld}</section>"
    return page("Live matches", body, games, note=note, refresh=True)


def seats_of(game: str, entries: Sequence[str]) -> list[dict[str, object]] | None:
    """Each seat of a match, its team and the entry playing it, as the table names them;
    None for a game this site does not know, or entries that are not one per team."""
    try:
        info = get_game(game).info
    except UnknownGameError:
        return None
    if len(entries) != info.num_teams or play_direction(game) is None:
        return None
    return [
        {"seat": seat, "team": team, "name": entries[team]}
        for seat, team in enumerate(info.seat_teams)
    ]


def follow_page(
    tournament_id: str,
    match_id: str,
    game: str,
    entries: Sequence[str],
    record: arena_pb2.MatchRecord | None,
    events: bool,
    games: Sequence[str],
) -> str:
    """The page following one match: ``live.js`` draws the table and fills the log of
    events and the result. For a finished match (``record``) it says so, with the
    result, whether or not its events can still be shown (``events``)."""
    summary = (
        f"{game_title(game)}, tournament {tournament_link(tournament_id)}: "
        f"{esc(' vs '.join(entries))}"
    )
    # One line above the table, so that the whole of it fits a 1400x900 window.
    if record is None:
        state = '<span id="live-status">Connecting to the referee…</span>'
    else:
        scores = " : ".join(map(str, record.scores))
        state = (
            f'<span id="live-final" data-end="ended">This match has ended: '
            f"scores {esc(scores)}, {esc(result_text(record))}.</span> "
            + (
                '<span id="live-status">Its events, from the referee that played it…</span>'
                if events
                else '<span id="live-status">Its events are shown once its tournament ends: '
                "its deal is shared with another match.</span>"
            )
        )
    seats = seats_of(game, entries)
    attrs = ""
    if events:
        attrs = (
            f' data-events="{esc(events_url(tournament_id, match_id))}"'
            f' data-entries="{esc(json.dumps(list(entries)))}" data-game="{esc(game)}"'
        )
        if seats is not None:
            attrs += (
                f' data-seats="{esc(json.dumps(seats))}"'
                f' data-direction="{esc(play_direction(game) or "")}"'
                # Every seat its own team: scores count per seat.
                f' data-per-seat="{json.dumps(len(seats) == len({s["team"] for s in seats}))}"'
            )
    body = (
        f'<section id="live"{attrs}><p class="page-note"><span class="summary">{summary}</span>'
        f"{state}</p>"
        '<div id="live-app"></div><p id="live-result"></p>'
        "<noscript><p>Following a match needs JavaScript; its events are at "
        f"{esc(events_url(tournament_id, match_id))} (text/event-stream).</p></noscript>"
        "</section>"
    )
    head = (
        '<link rel="stylesheet" href="/static/viewer.css">'
        '<script src="/static/cards.js" defer></script>'
        '<script src="/static/live.js" defer></script>'
    )
    return page(f"Match {match_id}", body, games, head=head)
