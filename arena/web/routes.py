"""Which URL shows what: a request target in, a ``Response`` out, with no sockets, so the
routing is testable on its own. The routes are listed in ``arena.web``'s docstring.

JSON answers use the proto field names (``json_format`` with
``preserving_proto_field_name``), so the JSON and the gRPC API read the same.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from google.protobuf import json_format
from google.protobuf.message import Message

from arena.v1 import arena_pb2
from arena.web import bots, pages, standings, viewer
from arena.web.data import Match, Source
from arena.web.errors import HttpError

DEFAULT_LIMIT = 50
MAX_LIMIT = 500
INDEX_MATCHES = 20
HTML = "text/html; charset=utf-8"
JSON = "application/json"
TEXT = "text/plain; charset=utf-8"
_ID = re.compile(r"^[A-Za-z0-9_.-]{1,200}\Z")
_LIMIT = re.compile(r"^[0-9]{1,9}\Z")
_BOT = re.compile(r"^[A-Za-z0-9_.@-]{1,200}\Z")


@dataclass(frozen=True)
class Response:
    status: int
    content_type: str
    body: bytes


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
    """``?limit=``: 1 or more, at most MAX_LIMIT (larger asks get MAX_LIMIT)."""
    if raw is None:
        return DEFAULT_LIMIT
    if not _LIMIT.match(raw) or int(raw) < 1:
        raise HttpError(400, f"limit must be a whole number from 1 to {MAX_LIMIT}, got {raw!r}")
    return min(int(raw), MAX_LIMIT)


def _ids(tournament_id: str, match_id: str) -> tuple[str, str]:
    for value in (tournament_id, match_id):
        if not _ID.match(value):
            raise HttpError(404, f"no match {value!r}: ids are letters, digits, '-', '_' and '.'")
    return tournament_id, match_id


def _tournament_id(value: str) -> str:
    if not _ID.match(value):
        raise HttpError(404, f"no tournament {value!r}: ids are letters, digits, '-', '_' and '.'")
    return value


def _bot(value: str) -> str:
    if not _BOT.match(value):
        raise HttpError(404, f"no bot {value!r}: names are letters, digits, '-', '_', '.' and '@'")
    return value


def is_api(path: str) -> bool:
    return path == "/api" or path.startswith("/api/")


class Site:
    """The leaderboard site over a data ``Source``; ``api`` is named in page footers."""

    def __init__(self, source: Source, api: str) -> None:
        self.source = source
        self.api = api

    def get(self, target: str) -> Response:
        """Answer a GET for ``target`` (path and query, as in the request line)."""
        split = urlsplit(target)
        try:
            return self._route(split.path, parse_qs(split.query, keep_blank_values=True))
        except HttpError as error:
            return self.error(split.path, error.status, error.message)

    def error(self, path: str, status: int, message: str) -> Response:
        """JSON under /api/, an HTML page elsewhere."""
        if is_api(path):
            return _json({"error": message, "status": status}, status)
        return _html(pages.error_page(status, message, self.source.games()), status)

    def _note(
        self, json_paths: str = "/api/leaderboard, /api/matches", reloads: bool = True
    ) -> str:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        reload = f"; this page reloads every {pages.REFRESH_S} s" if reloads else ""
        return (
            f"Read from the arena API at {self.api} at {stamp}{reload}. "
            f"The same data as JSON: {json_paths}."
        )

    def _route(self, path: str, query: dict[str, list[str]]) -> Response:
        parts = [unquote(p) for p in path.split("/") if p]

        def param(name: str) -> str | None:
            values = query.get(name)
            return values[-1] if values else None

        match parts:
            case []:
                return self._index()
            case ["healthz"]:
                return Response(200, TEXT, b"ok\n")
            case ["games", game]:
                board = self.source.leaderboard(game)
                matches = self.source.matches(DEFAULT_LIMIT, game)
                html = pages.game_page(board, matches, self.source.games(), self._note())
                return _html(html)
            case ["replays", tournament_id, match_id]:
                replay = self.source.replay(*_ids(tournament_id, match_id))
                return _html(pages.replay_page(replay, self.source.games()))
            case ["tournaments", tournament_id]:
                return self._tournament(_tournament_id(tournament_id))
            case ["bots", bot]:
                name = _bot(bot)
                history = self.source.rating_history(name)
                note = self._note(pages.bot_url(name, api=True), reloads=False)
                return _html(bots.bot_page(history, self.source.games(), note))
            case ["api", "bots", bot, "history"]:
                return _json(to_dict(self.source.rating_history(_bot(bot), param("game") or "")))
            case ["api", "tournaments", tournament_id]:
                return _json(to_dict(self.source.tournament(_tournament_id(tournament_id))))
            case ["api", "leaderboard"]:
                tournament = param("tournament") or ""
                if tournament:
                    _tournament_id(tournament)
                return _json(to_dict(self.source.leaderboard(param("game") or "", tournament)))
            case ["api", "matches"]:
                limit = parse_limit(param("limit"))
                game = param("game") or ""
                matches = self.source.matches(limit, game)
                return _json(
                    {"limit": limit, "game": game, "matches": [match_json(m) for m in matches]}
                )
            case ["api", "replays", tournament_id, match_id]:
                replay = self.source.replay(*_ids(tournament_id, match_id))
                return Response(200, JSON, replay.text.encode())
            case ["api", "replays", tournament_id, match_id, "frames"]:
                replay = self.source.replay(*_ids(tournament_id, match_id))
                return _json(viewer.frames(replay), compact=True)
            case ["static", name]:
                content_type, body = viewer.static_file(name)
                return Response(200, content_type, body)
        raise HttpError(
            404,
            f"nothing at {path}: see / for the leaderboard, /api/leaderboard and "
            "/api/matches for JSON",
        )

    def _index(self) -> Response:
        games = self.source.games()
        overall = self.source.leaderboard(los=True)
        per_game = [self.source.leaderboard(g) for g in games]
        matches = self.source.matches(INDEX_MATCHES)
        tournaments = self.source.tournaments()
        return _html(pages.index_page(overall, per_game, matches, tournaments, games, self._note()))

    def _tournament(self, tournament_id: str) -> Response:
        """The tournament and its standings; a round robin's or gauntlet's are its own
        leaderboard, fetched only for those."""
        t = self.source.tournament(tournament_id)
        board = (
            self.source.leaderboard(tournament_id=tournament_id)
            if t.spec.format in standings.LEADERBOARD_FORMATS
            else None
        )
        running = t.state == arena_pb2.TOURNAMENT_STATE_RUNNING
        note = self._note(pages.tournament_url(t.id, api=True), reloads=running)
        return _html(standings.tournament_page(t, board, self.source.games(), note))


def _html(text: str, status: int = 200) -> Response:
    return Response(status, HTML, text.encode())


def _json(value: object, status: int = 200, compact: bool = False) -> Response:
    """``compact`` for big answers (a replay's frames): no indent, no spaces."""
    text = (
        json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        if compact
        else json.dumps(value, indent=1, ensure_ascii=False)
    )
    return Response(status, JSON, text.encode() + b"\n")
