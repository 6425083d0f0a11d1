"""The author's view's routes (``/author/...``) and the one change it makes to public
pages: a signed-in author's name and a sign-out button in their header.

Every other route of the site stays public and read-only; the site's guard
(``app.Guard``) lets a POST through to the three forms here only. A post is checked in
this order: its origin (403), the session (a redirect to the sign-in form; the sign-in
form needs none), its body's size and shape (413, 400), its CSRF token (403), then what
it asks. Pages of the author's are never cached (``no-store``); a public page shown to
a signed-in author is cached by the browser alone (``private``).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.types import Message as AsgiMessage

from arena import limits
from arena.hosting.package import MAX_PACKAGE_BYTES
from arena.throttle import Throttle
from arena.v1 import arena_pb2
from arena.web import author, uploads
from arena.web.author_data import AuthorData, Refused, SignInRefused, daily_of
from arena.web.data import Match, Source
from arena.web.errors import HttpError, TooMany
from arena.web.forms import Form, FormError, multipart, read_body, urlencoded
from arena.web.matchlist import MatchFilter, page_matches
from arena.web.sessions import (
    COOKIE,
    SIGN_IN_COOKIE,
    SIGN_IN_FORM_S,
    Session,
    Sessions,
    clearing,
    cookie,
    new_form_token,
    same_origin,
    tokens_match,
)

POSTS = frozenset({author.SIGN_IN, author.SIGN_OUT, author.SUBMIT})
"""The only paths of the site that take a POST."""
MAX_FORM_BYTES = 16 * 1024
MAX_UPLOAD_BYTES = MAX_PACKAGE_BYTES + 64 * 1024
"""A package at the limit and the form's other fields."""
UPLOADS_AT_ONCE = 4
"""Uploads held in memory at once (each up to ``MAX_UPLOAD_BYTES``); past it, 503."""
SIGN_INS_PER_S = 0.2
SIGN_IN_BURST = 10
"""Sign-in attempts per client: each costs the API a few calls."""
MATCH_BOTS = 8
"""The author's bots whose recent matches the page reads (each a bounded read)."""
BOT_MATCHES = 10
MATCHES_SHOWN = 20
NO_STORE = {"cache-control": "no-store"}
_TOKEN = re.compile(r"^[\x21-\x7e]{1,512}\Z")
_ID = re.compile(r"^[A-Za-z0-9_.-]{1,200}\Z")
_SUBMITTED = re.compile(r"^[A-Za-z0-9_.-]{1,40}@[A-Za-z0-9_.-]{1,40}\Z")


def _secure(request: Request) -> bool:
    return request.url.scheme == "https"


def _client(request: Request) -> str:
    return request.client.host if request.client is not None else ""


class AuthorSite:
    """The author's routes over the API at ``api``; ``source`` is the site's data
    source (public reads: tournaments and their results, the installed games)."""

    def __init__(
        self,
        api: str,
        source: Callable[[], Source],
        sessions: Sessions | None = None,
        sign_ins: Throttle | None = None,
    ) -> None:
        self.api = api
        self._source = source
        self.sessions = sessions if sessions is not None else Sessions()
        self.sign_ins = (
            sign_ins if sign_ins is not None else Throttle(SIGN_INS_PER_S, SIGN_IN_BURST)
        )
        self._data: AuthorData | None = None
        self._uploading = 0

    @property
    def data(self) -> AuthorData:
        if self._data is None:
            raise HttpError(503, "the author's view is not started: no API channel yet")
        return self._data

    def open(self) -> None:
        """In the event loop that serves (a grpc.aio channel belongs to one loop)."""
        self._data = AuthorData(self.api)

    async def close(self) -> None:
        if self._data is not None:
            await self._data.close()
            self._data = None

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/author", self.to_home),
            Route(author.HOME, self.home),
            Route(author.SIGN_IN, self.sign_in_form, methods=["GET", "HEAD"]),
            Route(author.SIGN_IN, self.sign_in, methods=["POST"]),
            Route(author.SIGN_OUT, self.sign_out, methods=["POST"]),
            Route(author.SUBMIT, self.submit, methods=["POST"]),
            Route(author.LOGS, self.logs),
        ]

    def games(self) -> list[str]:
        return self._source().games()

    # Sessions and checks

    def signed_in(self, request: Request) -> Session | None:
        return self.sessions.get(request.cookies.get(COOKIE))

    def _to_sign_in(self) -> Response:
        return RedirectResponse(author.SIGN_IN, 303, headers=NO_STORE)

    def _check_origin(self, request: Request) -> None:
        why = same_origin(request.headers, request.headers.get("host", ""))
        if why is not None:
            raise HttpError(403, f"refused: {why}; this site's forms post only from its own pages")

    @staticmethod
    def _check_csrf(expected: str, form: Form) -> None:
        if not tokens_match(expected, form.fields.get(author.CSRF_FIELD)):
            raise HttpError(
                403,
                "refused: the form's security token is missing or not this session's (a form "
                "from an older session, or from another site); load the page again and retry",
            )

    async def _form(self, request: Request, allowed: tuple[str, ...]) -> Form:
        try:
            body = await read_body(
                request.stream(), MAX_FORM_BYTES, request.headers.get("content-length")
            )
            return urlencoded(body, allowed)
        except FormError as error:
            raise HttpError(error.status, str(error)) from None

    def _page(self, html: str, status: int = 200) -> HTMLResponse:
        return HTMLResponse(html, status, headers=NO_STORE)

    # Routes

    async def to_home(self, request: Request) -> Response:
        return RedirectResponse(author.HOME, 308)

    async def sign_in_form(
        self, request: Request, message: str = "", name: str = "", status: int = 200
    ) -> Response:
        """The form, with a fresh double-submit token in its cookie and its field."""
        if not message and self.signed_in(request) is not None:
            return RedirectResponse(author.HOME, 303, headers=NO_STORE)
        token = new_form_token()
        response = self._page(author.sign_in_page(self.games(), token, message, name), status)
        response.headers.append(
            "set-cookie",
            cookie(SIGN_IN_COOKIE, token, secure=_secure(request), max_age=SIGN_IN_FORM_S),
        )
        return response

    async def sign_in(self, request: Request) -> Response:
        self._check_origin(request)
        wait = self.sign_ins.take(_client(request))
        if wait is not None:
            raise TooMany(429, f"too many sign-ins from this address; try again in {wait} s", wait)
        form = await self._form(request, (author.CSRF_FIELD, "author", "token"))
        self._check_csrf(request.cookies.get(SIGN_IN_COOKIE, ""), form)
        name, token = form.get("author").strip(), form.get("token").strip()
        if not limits.BOT_NAME.match(name):
            return await self.sign_in_form(
                request, f"bad author name {name!r}: use {uploads.NAMES_ALLOWED}", "", 400
            )
        if not _TOKEN.match(token):
            return await self.sign_in_form(
                request, "an author token is one word of printable characters", name, 400
            )
        try:
            signed = await self.data.identify(name, token)
        except SignInRefused as refused:
            return await self.sign_in_form(request, f"not signed in: {refused}", name, 403)
        self.sessions.end(request.cookies.get(COOKIE))
        session_id, _ = self.sessions.start(signed, token)
        response = RedirectResponse(author.HOME, 303, headers=NO_STORE)
        secure = _secure(request)
        response.headers.append("set-cookie", cookie(COOKIE, session_id, secure=secure))
        response.headers.append("set-cookie", clearing(SIGN_IN_COOKIE, secure=secure))
        return response

    async def sign_out(self, request: Request) -> Response:
        self._check_origin(request)
        session = self.signed_in(request)
        if session is None:
            return self._to_sign_in()
        self._check_csrf(session.csrf, await self._form(request, (author.CSRF_FIELD,)))
        self.sessions.end(request.cookies.get(COOKIE))
        response = RedirectResponse("/", 303, headers=NO_STORE)
        response.headers.append("set-cookie", clearing(COOKIE, secure=_secure(request)))
        return response

    async def home(self, request: Request) -> Response:
        session = self.signed_in(request)
        if session is None:
            return self._to_sign_in()
        submitted = request.query_params.get("submitted") or ""
        flash = f"Submitted {submitted}." if _SUBMITTED.match(submitted) else ""
        return self._page(author.home_page(await self._home(session), self.games(), flash=flash))

    async def logs(self, request: Request) -> Response:
        session = self.signed_in(request)
        if session is None:
            return self._to_sign_in()
        query = request.query_params
        bot, match_id, tournament_id = (query.get(k) or "" for k in ("bot", "match", "tournament"))
        if not limits.BOT_NAME.match(bot) or not _ID.match(match_id):
            raise HttpError(400, "give the bot (bot=) and the match (match=) whose logs to show")
        if tournament_id and not _ID.match(tournament_id):
            raise HttpError(400, f"no tournament {tournament_id!r}")
        try:
            found = await self.data.logs(session.token, bot, match_id, tournament_id)
        except Refused as refused:
            return self._page(
                author.refused_page(refused.status, refused.message, self.games()), refused.status
            )
        shown_in = tournament_id or match_id.partition("-")[0]
        return self._page(author.logs_page(found, shown_in, self.games()))

    async def submit(self, request: Request) -> Response:
        self._check_origin(request)
        session = self.signed_in(request)
        if session is None:
            return self._to_sign_in()
        if self._uploading >= UPLOADS_AT_ONCE:
            raise TooMany(
                503, "the site is receiving other packages; try again in a few seconds", 5
            )
        self._uploading += 1
        try:
            return await self._submit(request, session)
        finally:
            self._uploading -= 1

    async def _submit(self, request: Request, session: Session) -> Response:
        try:
            body = await read_body(
                request.stream(), MAX_UPLOAD_BYTES, request.headers.get("content-length")
            )
            form = await asyncio.to_thread(
                multipart,
                body,
                request.headers.get("content-type", ""),
                uploads.FIELDS,
                uploads.FILE,
            )
        except FormError as error:
            raise HttpError(error.status, str(error)) from None
        del body
        self._check_csrf(session.csrf, form)
        values = {k: form.get(k) for k in ("name", "version", "runtime", "command")}
        try:
            submit = await asyncio.to_thread(uploads.submission, form)
            version = await self.data.submit(session.token, submit)
        except uploads.BadUpload as bad:
            return await self._refused(session, str(bad), 400, values)
        except Refused as refused:
            return await self._refused(session, refused.message, refused.status, values)
        return RedirectResponse(
            f"{author.HOME}?submitted={version.name}@{version.version}", 303, headers=NO_STORE
        )

    async def _refused(
        self, session: Session, message: str, status: int, values: dict[str, str]
    ) -> Response:
        html = author.home_page(
            await self._home(session), self.games(), error=message, values=values
        )
        return self._page(html, status)

    async def _home(self, session: Session) -> author.Home:
        """Everything the author's page shows: public reads for their bots, versions,
        competitions and matches; their token only for their boards."""
        data, name = self.data, session.author
        bots, competitions, who = await asyncio.gather(
            data.bots_of(name), data.competitions_of(name), data.who(session.token)
        )
        versions = await asyncio.gather(
            *(data.versions(b.name) if b.hosted else _none() for b in bots)
        )
        views = [author.BotView(b, v) for b, v in zip(bots, versions, strict=True)]
        daily = [daily_of(c, who) for c in competitions]
        boards = await asyncio.gather(
            *(self._board(session, c) for c in competitions if c.ladder_tournament_id)
        )
        matches = await self._matches([b.name for b in bots[:MATCH_BOTS]])
        return author.Home(name, session.csrf, views, matches, daily, list(boards))

    async def _board(self, session: Session, competition: arena_pb2.Competition) -> author.Board:
        name = competition.spec.name
        try:
            board = await self.data.board(session.token, name)
        except Refused as refused:
            return author.Board(name, [], refused.message)
        return author.Board(name, [r for r in board.versions if r.author == session.author])

    async def _matches(self, bots: list[str]) -> list[Match]:
        """The latest matches of the author's bots, newest finished first."""
        if not bots:
            return []
        source = self._source()
        tournaments = await source.tournaments()
        pages = await asyncio.gather(
            *(
                page_matches(
                    tournaments, source.latest_results, MatchFilter(bot=b), BOT_MATCHES, None
                )
                for b in bots
            )
        )
        seen: dict[tuple[str, str], Match] = {}
        for found in pages:
            for m in found.matches:
                seen.setdefault((m.tournament_id, m.record.match_id), m)
        ordered = sorted(
            seen.values(), key=lambda m: m.record.finished_at.ToNanoseconds(), reverse=True
        )
        return ordered[:MATCHES_SHOWN]


async def _none() -> list[arena_pb2.HostedBotVersion]:
    return []


class SignedInStrip:
    """Puts a signed-in author's name and sign-out button in a public page's header, in
    place of the sign-in link (``author.STRIP``), and changes nothing else: the page is
    the public one, marked ``private`` so no shared cache keeps it. Pages of the
    author's view, the JSON and the static files pass as they are."""

    def __init__(self, app: ASGIApp, author_site: AuthorSite) -> None:
        self.app = app
        self.author_site = author_site

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope.get("path", "")
        if (
            scope["type"] != "http"
            or scope["method"] != "GET"
            or path.startswith(("/author", "/api/", "/static/"))
        ):
            await self.app(scope, receive, send)
            return
        session = self.author_site.signed_in(Request(scope))
        if session is None:
            await self.app(scope, receive, send)
            return
        strip = author.signed_in_strip(session.author, session.csrf)
        start: AsgiMessage | None = None
        chunks: list[bytes] = []

        async def rewrite(message: AsgiMessage) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                headers: list[tuple[bytes, bytes]] = list(message.get("headers", []))
                kind = next((v for k, v in headers if k.lower() == b"content-type"), b"")
                if kind.startswith(b"text/html"):
                    start = message
                    return
            elif message["type"] == "http.response.body" and start is not None:
                chunks.append(message.get("body", b""))
                if message.get("more_body", False):
                    return
                body = b"".join(chunks).replace(author.STRIP, strip, 1)
                kept = [
                    (k, v)
                    for k, v in start.get("headers", [])
                    if k.lower() not in (b"content-length", b"cache-control")
                ]
                kept += [
                    (b"content-length", str(len(body)).encode()),
                    (b"cache-control", b"private, no-store"),
                    (b"vary", b"Cookie"),
                ]
                await send({**start, "headers": kept})
                await send({"type": "http.response.body", "body": body})
                return
            await send(message)

        await self.app(scope, receive, rewrite)
