"""The leaderboard's HTTP layer: a Starlette application over a data ``Source``. The
routes are listed in ``arena.web``'s docstring; the HTML comes from the pure modules
(``pages``, ``standings``, ``bots``), the JSON from the API's messages.

JSON answers use the proto field names (``json_format`` with
``preserving_proto_field_name``), so the JSON and the gRPC API read the same, and
``openapi`` documents them. To add a route: a method on ``Site``, a ``Route`` in
``Site.routes``, and for a JSON one an entry in ``openapi.OPERATIONS``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sys
import time
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.types import Message as AsgiMessage

from arena import __version__
from arena.throttle import Throttle
from arena.v1 import arena_pb2, referee_pb2
from arena.web import bots, competitions, live, openapi, pages, relay, standings, viewer
from arena.web.author_app import POSTS, AuthorSite, SignedInStrip
from arena.web.data import DEFAULT_LIMIT, MAX_LIMIT, ArenaData, Match, Source, unknown_game
from arena.web.errors import HttpError, TooMany
from arena.web.matchlist import (
    Cursor,
    MatchFilter,
    MatchPage,
    fault_rates,
    page_matches,
    parse_cursor,
)
from arena.web.sessions import Sessions

INDEX_MATCHES = 20
BOT_MATCHES = 20
FAULT_WINDOW = 200
"""A bot page's fault rates cover its last this many matches: one bounded read."""
KEEPALIVE_S = 15.0
"""A comment line this often while a match's bots think: proxies close idle streams."""
ENDED = referee_pb2.MATCH_EVENT_KIND_ENDED
ALLOWED = ("GET", "HEAD")
MAX_DISCARDED_BODY = 1 << 20
# Only this site's own files may load: its stylesheet, and scripts and styles under
# /static/ (the replay viewer's); pages may add their own inline style. No other site
# may frame a page (clickjacking): frame-ancestors, and X-Frame-Options for browsers
# that predate it.
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (
        b"content-security-policy",
        b"default-src 'none'; style-src 'self' 'unsafe-inline'; script-src 'self'; "
        b"img-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
        b"form-action 'self'",
    ),
    (b"x-frame-options", b"DENY"),
    (b"server", f"card-arena-leaderboard/{__version__}".encode()),
]
_ID = re.compile(r"^[A-Za-z0-9_.-]{1,200}\Z")
_LIMIT = re.compile(r"^[0-9]{1,9}\Z")
_BOT = re.compile(r"^[A-Za-z0-9_.@-]{1,200}\Z")
_COMPETITION = re.compile(r"^[A-Za-z0-9_.-]{1,40}\Z")


class JSONResponse(Response):
    """Indented JSON with a final newline, readable with ``curl``."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return json.dumps(content, indent=1, ensure_ascii=False).encode() + b"\n"


class CompactJSONResponse(JSONResponse):
    """No indent, no spaces: for big answers (a replay's frames)."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def to_dict(message: Message) -> dict[str, Any]:
    return json_format.MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )


def match_json(match: Match) -> dict[str, Any]:
    record = match.record
    return {
        "tournament_id": match.tournament_id,
        "tournament_name": match.tournament_name,
        **to_dict(record),
        # None while the tournament runs: the replay would show a deal it keeps secret.
        "replay_url": pages.replay_url(match.tournament_id, record.match_id)
        if record.replay_id
        else None,
        "replay_json_url": pages.replay_url(match.tournament_id, record.match_id, api=True)
        if record.replay_id
        else None,
    }


def parse_limit(raw: str | None) -> int:
    """``?limit=``: a whole number from 1 to MAX_LIMIT; anything else is a 400."""
    if raw is None:
        return DEFAULT_LIMIT
    if not _LIMIT.match(raw) or not 1 <= int(raw) <= MAX_LIMIT:
        raise HttpError(400, f"limit must be a whole number from 1 to {MAX_LIMIT}, got {raw!r}")
    return int(raw)


def _ids(tournament_id: str, match_id: str) -> tuple[str, str]:
    for value in (tournament_id, match_id):
        if not _ID.match(value):
            raise HttpError(404, f"no match {value!r}: ids are letters, digits, '-', '_' and '.'")
    return tournament_id, match_id


def _tournament_id(value: str) -> str:
    if not _ID.match(value):
        raise HttpError(404, f"no tournament {value!r}: ids are letters, digits, '-', '_' and '.'")
    return value


SCALE_PARAMETERS = {
    "anchor": str,
    "anchor_elo": float,
    "prior_sd": float,
    "bootstrap": int,
    "bootstrap_seed": int,
}
"""``/api/leaderboard``'s query parameters that ask for another scale: the fields of
``GetLeaderboardRequest`` of those names (docs/ratings.md, *The scale*)."""


def _scale(query: Mapping[str, str]) -> arena_pb2.GetLeaderboardRequest | None:
    """The scale the query asks for, or None; a number that does not parse is a 400 (the
    API refuses values out of range, also a 400, saying what is allowed)."""
    given = {k: v for k, v in query.items() if k in SCALE_PARAMETERS and v != ""}
    if not given:
        return None
    fields: dict[str, Any] = {}
    for name, text in given.items():
        kind = SCALE_PARAMETERS[name]
        try:
            fields[name] = kind(text)
        except ValueError:
            raise HttpError(
                400, f"{name} is a{'n integer' if kind is int else ' number'}, got {text!r}"
            ) from None
    try:
        return arena_pb2.GetLeaderboardRequest(**fields)
    except ValueError as error:  # an integer out of its field's range
        raise HttpError(400, f"out of range: {error}") from None


def _bot(value: str) -> str:
    if not _BOT.match(value):
        raise HttpError(404, f"no bot {value!r}: names are letters, digits, '-', '_', '.' and '@'")
    return value


def _competition(value: str) -> str:
    if not _COMPETITION.match(value):
        raise HttpError(
            404, f"no competition {value!r}: names are 1 to 40 letters, digits, '-', '_' and '.'"
        )
    return value


def is_api(path: str) -> bool:
    return path == "/api" or path.startswith("/api/")


FAVICON = resources.files("arena.web").joinpath("static", "favicon.svg").read_bytes()


def static_dir() -> str:
    """The package's ``static/`` directory (stylesheet, and the replay viewer's files)."""
    return str(resources.files("arena.web").joinpath("static"))


class Site:
    """The leaderboard site over a data ``Source``; ``api`` is named in page footers.

    Without a source, the application opens an ``ArenaData`` on ``api`` when it starts
    (a grpc.aio channel belongs to the event loop that serves), with the API's read
    token if given, and closes it at the end.
    """

    def __init__(
        self,
        api: str,
        source: Source | None = None,
        max_streams: int = relay.MAX_MATCHES,
        per_client: int = relay.PER_CLIENT,
        costly: Throttle | None = None,
        read_token: str = "",
        sessions: Sessions | None = None,
    ) -> None:
        self.api = api
        self._read_token = read_token
        self._source = source
        self.costly = costly if costly is not None else Throttle()
        """Each client's budget of replay reads, which cost the engine real work."""
        self.relay = relay.Relay(self._watch, max_streams, per_client)
        """Live matches' events: one referee stream per match, shared by its viewers."""
        self.built = viewer.FramesCache()
        """The replay viewer's last built matches: their frames, and requests by frame."""
        self.author = AuthorSite(api, lambda: self.source, sessions)
        """The author's view (``/author/``): sessions, and calls made with their token."""

    @property
    def source(self) -> Source:
        if self._source is None:
            raise RuntimeError("the leaderboard is not started: no data source yet")
        return self._source

    def routes(self) -> list[BaseRoute]:
        # ``{x:path}`` where an id stands last: a decoded "%2F" still reaches the check
        # that says what was not found, instead of a bare "nothing at".
        return [
            Route("/", self.index),
            Route("/livez", self.livez),
            Route("/healthz", self.livez),
            Route("/readyz", self.readyz),
            Route("/favicon.ico", self.favicon),
            Route("/games/{game}", self.game),
            Route("/tournaments/{tournament:path}", self.tournament),
            Route("/replays/{tournament}/{match}", self.replay),
            Route("/bots/{bot:path}", self.bot),
            Route("/matches", self.matches),
            Route("/live", self.live_list),
            Route("/live/{tournament}/{match}", self.live_match),
            Route("/competitions", self.competitions),
            Route("/competitions/{name:path}", self.competition),
            Route("/api/openapi.json", self.openapi),
            Route("/api/leaderboard", self.api_leaderboard),
            Route("/api/tournaments/{tournament:path}", self.api_tournament),
            Route("/api/matches", self.api_matches),
            Route("/api/replays/{tournament}/{match}", self.api_replay),
            Route("/api/replays/{tournament}/{match}/frames", self.api_frames),
            Route("/api/replays/{tournament}/{match}/frames/{index}/sent", self.api_sent),
            Route("/api/bots/{bot:path}/history", self.api_history),
            Route("/api/live", self.api_live),
            Route("/api/live/{tournament}/{match}/events", self.api_events),
            Route("/api/competitions", self.api_competitions),
            Route("/api/competitions/{name}/board", self.api_competition_board),
            Route("/api/competitions/{name:path}", self.api_competition),
            *self.author.routes(),
            Mount("/static", StaticFiles(directory=static_dir()), name="static"),
        ]

    def error(self, path: str, status: int, message: str) -> Response:
        """JSON under /api/, an HTML page elsewhere."""
        if is_api(path):
            return JSONResponse({"error": message, "status": status}, status)
        return HTMLResponse(pages.error_page(status, message, self.source.games()), status)

    def _note(
        self, json_paths: str = "/api/leaderboard, /api/matches", reloads: bool = True
    ) -> str:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        reload = f"; this page reloads every {pages.REFRESH_S} s" if reloads else ""
        return (
            f"Read from the arena API at {self.api} at {stamp}{reload}. "
            f"The same data as JSON: {json_paths}."
        )

    async def livez(self, request: Request) -> Response:
        """The process answers; says nothing of the API, so a restart will not help."""
        return PlainTextResponse("ok\n")

    async def favicon(self, request: Request) -> Response:
        """The site's icon (``static/favicon.svg``, which every page names) for a browser
        that asks the usual place: showing an API answer, say."""
        return Response(
            FAVICON, media_type="image/svg+xml", headers={"cache-control": "max-age=86400"}
        )

    async def readyz(self, request: Request) -> Response:
        """Ready when the API answers: a page served now would otherwise be a 502."""
        problem = await self.source.ready()
        if problem is not None:
            return PlainTextResponse(f"not ready: {problem}\n", 503)
        return PlainTextResponse("ok\n")

    async def index(self, request: Request) -> Response:
        source = self.source
        games = source.games()
        overall, per_game, matches, tournaments = await asyncio.gather(
            source.leaderboard(los=True),
            asyncio.gather(*(source.leaderboard(g) for g in games)),
            source.matches(INDEX_MATCHES),
            source.tournaments(),
        )
        html = pages.index_page(overall, per_game, matches, tournaments, games, self._note())
        return HTMLResponse(html)

    async def game(self, request: Request) -> Response:
        game = request.path_params["game"]
        board, matches = await asyncio.gather(
            self.source.leaderboard(game), self.source.matches(DEFAULT_LIMIT, game)
        )
        return HTMLResponse(pages.game_page(board, matches, self.source.games(), self._note()))

    async def tournament(self, request: Request) -> Response:
        """The tournament and its standings; a round robin's or gauntlet's are its own
        leaderboard, fetched only for those."""
        t = await self.source.tournament(_tournament_id(request.path_params["tournament"]))
        board = (
            await self.source.leaderboard(tournament_id=t.id)
            if standings.shows_leaderboard(t)
            else None
        )
        running = t.state == arena_pb2.TOURNAMENT_STATE_RUNNING
        note = self._note(pages.tournament_url(t.id, api=True), reloads=running)
        return HTMLResponse(standings.tournament_page(t, board, self.source.games(), note))

    def _costly(self, request: Request) -> None:
        """Spend one of the client's costly reads, or refuse with 429 and when to retry."""
        client = request.client.host if request.client is not None else ""
        wait = self.costly.take(client)
        if wait is not None:
            raise TooMany(
                429,
                f"this address reads replays faster than {self.costly.rate_per_s:g} a second "
                f"(bursts of {self.costly.burst}), this site's most for one client; try again "
                f"in {wait} s",
                wait,
            )

    async def replay(self, request: Request) -> Response:
        p = request.path_params
        self._costly(request)
        replay = await self.source.replay(*_ids(p["tournament"], p["match"]))
        return HTMLResponse(pages.replay_page(replay, self.source.games()))

    async def bot(self, request: Request) -> Response:
        """Registry facts, where the bot stands now on every board (the cached boards of
        the front page), rating charts, recent matches and fault rates; the matches are
        one bounded page of the match list (``FAULT_WINDOW``)."""
        name = _bot(request.path_params["bot"])
        source = self.source
        history, facts, boards = await asyncio.gather(
            source.rating_history(name),
            source.bot(name),
            asyncio.gather(*(source.leaderboard(game) for game in ("", *source.games()))),
        )
        recent = await page_matches(
            await source.tournaments(),
            source.latest_results,
            MatchFilter(bot=name),
            FAULT_WINDOW,
            None,
        )
        rates = fault_rates(recent.matches, name)
        json_paths = f"{pages.bot_url(name, api=True)}, {pages.matches_url(bot=name, api=True)}"
        note = self._note(json_paths, reloads=False)
        html = bots.bot_page(
            history, source.games(), note, facts, recent.matches[:BOT_MATCHES], rates, boards
        )
        return HTMLResponse(html)

    async def _match_page(
        self, request: Request
    ) -> tuple[MatchFilter, int, Cursor | None, MatchPage]:
        """The match list's query checked (paging first: a 400 needs no lookup; then an
        unknown game, bot or tournament is a 404 naming it) and its page read."""
        query = request.query_params
        limit = parse_limit(query.get("limit"))
        cursor = parse_cursor(query.get("cursor"))
        game, bot, tournament = (query.get(k) or "" for k in ("game", "bot", "tournament"))
        if game and game not in self.source.games():
            raise unknown_game(game)
        filters = MatchFilter(
            game, _bot(bot) if bot else "", _tournament_id(tournament) if tournament else ""
        )
        source = self.source
        if tournament:  # the API's NOT_FOUND for an unknown one is a 404
            listed, _ = await asyncio.gather(
                source.tournament(tournament), source.bot(bot) if bot else _nothing()
            )
            tournaments = [listed]
        else:
            tournaments, _ = await asyncio.gather(
                source.tournaments(), source.bot(bot) if bot else _nothing()
            )
        found = await page_matches(tournaments, source.latest_results, filters, limit, cursor)
        return filters, limit, cursor, found

    async def matches(self, request: Request) -> Response:
        filters, limit, cursor, found = await self._match_page(request)
        api = pages.matches_url(
            filters.game,
            filters.bot,
            filters.tournament_id,
            cursor.text() if cursor else "",
            limit if limit != DEFAULT_LIMIT else None,
            api=True,
        )
        html = pages.match_list_page(
            found.matches,
            game=filters.game,
            bot=filters.bot,
            tournament=filters.tournament_id,
            limit=limit,
            cursor=cursor.text() if cursor else "",
            next_cursor=found.next_cursor.text() if found.next_cursor else "",
            games=self.source.games(),
            note=self._note(api, reloads=False),
        )
        return HTMLResponse(html)

    async def openapi(self, request: Request) -> Response:
        return JSONResponse(openapi.document())

    async def api_leaderboard(self, request: Request) -> Response:
        tournament = request.query_params.get("tournament") or ""
        if tournament:
            _tournament_id(tournament)
        game = request.query_params.get("game") or ""
        scale = _scale(request.query_params)
        return JSONResponse(to_dict(await self.source.leaderboard(game, tournament, scale=scale)))

    async def api_tournament(self, request: Request) -> Response:
        tournament_id = _tournament_id(request.path_params["tournament"])
        return JSONResponse(to_dict(await self.source.tournament(tournament_id)))

    async def api_matches(self, request: Request) -> Response:
        filters, limit, cursor, found = await self._match_page(request)
        after = found.next_cursor.text() if found.next_cursor else None
        return JSONResponse(
            {
                "limit": limit,
                "game": filters.game,
                "bot": filters.bot,
                "tournament": filters.tournament_id,
                "cursor": cursor.text() if cursor else None,
                "next_cursor": after,
                "next_url": pages.matches_url(
                    filters.game, filters.bot, filters.tournament_id, after, limit, api=True
                )
                if after
                else None,
                "matches": [match_json(m) for m in found.matches],
            }
        )

    async def api_replay(self, request: Request) -> Response:
        p = request.path_params
        self._costly(request)
        replay = await self.source.replay(*_ids(p["tournament"], p["match"]))
        return Response(replay.text, media_type="application/json")

    async def api_frames(self, request: Request) -> Response:
        p = request.path_params
        self._costly(request)
        replay = await self.source.replay(*_ids(p["tournament"], p["match"]))
        return CompactJSONResponse((await self.built.get(replay)).frames)

    async def api_sent(self, request: Request) -> Response:
        p = request.path_params
        self._costly(request)
        # The replay says whether it may be shown yet (the site keeps only published ones).
        replay = await self.source.replay(*_ids(p["tournament"], p["match"]))
        return CompactJSONResponse(viewer.sent(await self.built.get(replay), p["index"]))

    async def api_history(self, request: Request) -> Response:
        bot = _bot(request.path_params["bot"])
        game = request.query_params.get("game") or ""
        return JSONResponse(to_dict(await self.source.rating_history(bot, game)))

    async def _watched(self, tournament_id: str, match_id: str) -> Watched:
        """Where the match's events are: its referee and the id to watch, from the live
        list while it runs, else from its result; 404 saying why when neither has it."""
        running = await self.source.live_matches(tournament_id)
        for match in running.matches:
            if match.match_id == match_id:
                return Watched(match.referee, match.watch_id, match.game, list(match.entries))
        record = await self.source.result(tournament_id, match_id)
        if record is None:
            raise HttpError(
                404,
                f"match {match_id!r} of tournament {tournament_id} is not being played where "
                "it may be watched, and has no result: it is queued, unknown, or half of a "
                "duplicate pair, whose deal stays secret until the tournament ends",
            )
        watch_id = record.referee_match_id if live.watchable(record) else ""
        return Watched(record.referee, watch_id, record.game, list(record.entries), record)

    async def live_list(self, request: Request) -> Response:
        reply = await self.source.live_matches()
        html = live.live_list_page(reply, self.source.games(), self._note("/api/live"))
        return HTMLResponse(html)

    async def live_match(self, request: Request) -> Response:
        p = request.path_params
        tournament_id, match_id = _ids(p["tournament"], p["match"])
        w = await self._watched(tournament_id, match_id)
        html = live.follow_page(
            tournament_id,
            match_id,
            w.game,
            w.entries,
            w.record,
            bool(w.watch_id),
            self.source.games(),
        )
        return HTMLResponse(html)

    def _board_game(self, request: Request) -> str:
        game = request.query_params.get("game") or ""
        if game and game not in self.source.games():
            raise unknown_game(game)
        return game

    async def competitions(self, request: Request) -> Response:
        found = await self.source.competitions()
        note = self._note(competitions.competition_url(api=True))
        return HTMLResponse(competitions.list_page(found, self.source.games(), note))

    async def competition(self, request: Request) -> Response:
        """The competition, and while it is open its public board (read only then: the
        final's versions and board come with the competition itself)."""
        name = _competition(request.path_params["name"])
        game = self._board_game(request)
        found = await self.source.competition(name)
        board = None
        if competitions.shows_open_board(found):
            try:
                board = await self.source.competition_board(name, game)
            except HttpError as error:
                if error.status != 404:
                    raise
                # Its ladder is recorded but not stored yet (a worker between the two
                # steps): the page says the board is on its way, rather than 404.
        json_paths = competitions.competition_url(name, api=True)
        if board is not None:
            json_paths += ", " + competitions.competition_url(name, api=True, board=True)
        note = self._note(json_paths, reloads=competitions.live(found))
        html = competitions.competition_page(found, board, self.source.games(), note, game)
        return HTMLResponse(html)

    async def api_competitions(self, request: Request) -> Response:
        return JSONResponse(to_dict(await self.source.competitions()))

    async def api_competition(self, request: Request) -> Response:
        name = _competition(request.path_params["name"])
        return JSONResponse(to_dict(await self.source.competition(name)))

    async def api_competition_board(self, request: Request) -> Response:
        name = _competition(request.path_params["name"])
        board = await self.source.competition_board(name, self._board_game(request))
        return JSONResponse(to_dict(board))

    async def api_live(self, request: Request) -> Response:
        tournament = request.query_params.get("tournament") or ""
        if tournament:
            _tournament_id(tournament)
        return JSONResponse(to_dict(await self.source.live_matches(tournament)))

    async def api_events(self, request: Request) -> Response:
        """The match's public events as server-sent events, after ``Last-Event-ID``.
        Errors come before the stream starts, so they are statuses: 404 for a match or
        events not to be had, and 204 (which tells a browser to stop reconnecting) when
        every event up to the end was sent already."""
        p = request.path_params
        tournament_id, match_id = _ids(p["tournament"], p["match"])
        after = live.last_event_id(request.headers.get("last-event-id"))
        w = await self._watched(tournament_id, match_id)
        if not w.watch_id:
            raise HttpError(
                404,
                f"the events of match {match_id} are shown when tournament {tournament_id} "
                "ends: its deal is shared with another match",
            )
        client = request.client.host if request.client is not None else ""
        upstream = self.relay.join(client, w.referee, w.watch_id, starting=w.record is None)
        events = upstream.follow(after)
        try:
            first = await anext(events, None)
        except BaseException:
            await events.aclose()
            await self.relay.leave(client, upstream)
            raise
        if first is None:
            await self.relay.leave(client, upstream)
            return Response(status_code=204)
        return StreamingResponse(
            self._viewing(client, upstream, _event_stream(first, events)),
            media_type="text/event-stream",
            headers={"cache-control": "no-cache", "x-accel-buffering": "no"},
        )

    def _watch(
        self, referee: str, watch_id: str, starting: bool
    ) -> AsyncGenerator[referee_pb2.MatchEvent, None]:
        return self.source.watch(referee, watch_id, starting=starting)

    async def _viewing(
        self, client: str, upstream: relay.Upstream, stream: AsyncGenerator[bytes, None]
    ) -> AsyncIterator[bytes]:
        """``stream``, a viewer of ``upstream`` until it ends or its reader leaves."""
        try:
            async for chunk in stream:
                yield chunk
        finally:
            await stream.aclose()
            await self.relay.leave(client, upstream)

    async def http_error(self, request: Request, error: Exception) -> Response:
        """An ``HttpError`` from a page, or Starlette's own (no route, no static file)."""
        path = request.url.path
        if isinstance(error, HttpError):
            response = self.error(path, error.status, error.message)
            if isinstance(error, TooMany):
                response.headers["retry-after"] = str(error.retry_after_s)
            return response
        assert isinstance(error, HTTPException)
        if error.status_code == 404:
            return self.error(
                path,
                404,
                f"nothing at {path}: see / for the leaderboard, /api/leaderboard and "
                "/api/matches for JSON, /api/openapi.json for their schema",
            )
        return self.error(path, error.status_code, str(error.detail))

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        self.author.open()
        try:
            if self._source is not None:
                yield
                return
            data = ArenaData(self.api, self._read_token)
            self._source = data
            try:
                yield
            finally:
                self._source = None
                await data.close()
        finally:
            await self.author.close()


@dataclass(frozen=True)
class Watched:
    """Where a match's events are: ``watch_id`` is empty when they may not be shown."""

    referee: str
    watch_id: str
    game: str
    entries: list[str]
    record: arena_pb2.MatchRecord | None = None


async def _event_stream(
    first: referee_pb2.MatchEvent, events: AsyncGenerator[referee_pb2.MatchEvent, None]
) -> AsyncGenerator[bytes, None]:
    """``first`` and the rest, as server-sent events, to the ENDED event; a comment
    every ``KEEPALIVE_S`` of silence. A referee lost mid-stream ends the stream: the
    browser reconnects, and resumes after the last event it got."""
    yield live.retry_field() + live.sse(first)
    if first.kind == ENDED:
        await events.aclose()
        return
    queue: asyncio.Queue[referee_pb2.MatchEvent | None] = asyncio.Queue()

    async def pump() -> None:
        try:
            async for event in events:
                await queue.put(event)
        except HttpError:
            pass
        finally:
            await queue.put(None)

    task = asyncio.create_task(pump())
    try:
        while True:
            try:
                event = await asyncio.wait_for(queue.get(), KEEPALIVE_S)
            except TimeoutError:
                yield b": still playing\n\n"
                continue
            if event is None:
                return
            yield live.sse(event)
            if event.kind == ENDED:
                return
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await events.aclose()


class Guard:
    """Around every request: only GET and HEAD (405 otherwise, as the site's error), but a
    POST to the author's forms (``author_app.POSTS``); the
    security headers on every answer; a failure is one line on stderr and a plain 500,
    never a traceback to the reader."""

    def __init__(self, app: ASGIApp, site: Site) -> None:
        self.app = app
        self.site = site

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        started = False

        async def send_guarded(message: AsgiMessage) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = [
                    (name, value) for name, value in message.get("headers", []) if name != b"server"
                ]
                if not any(name == b"cache-control" for name, _ in headers):
                    headers.append((b"cache-control", b"no-cache"))
                message = {**message, "headers": headers + SECURITY_HEADERS}
            await send(message)

        method = scope["method"]
        if method not in ALLOWED and not (method == "POST" and path in POSTS):
            await _discard_body(receive)
            message = f"the leaderboard is read-only: {method} is not allowed, only GET and HEAD"
            response = self.site.error(path, 405, message)
            response.headers["Allow"] = ", ".join(ALLOWED)
            await response(scope, receive, send_guarded)
            return
        try:
            await self.app(scope, receive, send_guarded)
        except Exception as error:  # a bug: one line in the log, a plain 500 for the reader
            print(f"leaderboard: {method} {path} failed: {error!r}", file=sys.stderr, flush=True)
            if started:
                raise
            response = self.site.error(path, 500, "internal error; the server log has the details")
            await response(scope, receive, send_guarded)


async def _nothing() -> None:
    return None


async def _discard_body(receive: Receive) -> None:
    """Read what the client sent (up to a limit), so closing the connection does not reset
    it before the client has read the answer."""
    read = 0
    while read <= MAX_DISCARDED_BODY:
        message = await receive()
        if message["type"] != "http.request":
            return
        read += len(message.get("body", b""))
        if not message.get("more_body", False):
            return


def create_app(
    api: str,
    source: Source | None = None,
    max_streams: int = relay.MAX_MATCHES,
    per_client: int = relay.PER_CLIENT,
    costly: Throttle | None = None,
    read_token: str = "",
    sessions: Sessions | None = None,
) -> Starlette:
    """The site for the arena API at ``api``, calling it with ``read_token`` if any;
    ``source`` replaces the API in tests, ``sessions`` the authors' (shorter ones)."""
    site = Site(api, source, max_streams, per_client, costly, read_token, sessions)
    handlers: dict[Any, Any] = {HttpError: site.http_error, HTTPException: site.http_error}
    app = Starlette(
        routes=site.routes(),
        middleware=[
            Middleware(Guard, site=site),
            Middleware(SignedInStrip, author_site=site.author),
        ],
        exception_handlers=handlers,
        lifespan=site.lifespan,
    )
    app.state.site = site
    return app
