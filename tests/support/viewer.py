"""The replay viewer served in process from recorded replays, and what its pages should show."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena.v1 import arena_pb2
from arena.web.data import Replay
from arena.web.errors import HttpError
from tests.replay.matches import Played
from tests.support.fake_source import HOSTILE, FakeSource
from tests.support.http import get

TOURNAMENT = "t1"


class ReplaySource(FakeSource):
    """The fake API, holding real replays by match id; a result's entries are the
    seat's names as a tournament registers them."""

    def __init__(self, replays: dict[str, dict[str, Any]]) -> None:
        super().__init__()
        self.replays = replays

    async def replay(self, tournament_id: str, match_id: str) -> Replay:
        doc = self.replays.get(match_id)
        if tournament_id != TOURNAMENT or doc is None:
            raise HttpError(
                404, f"tournament {tournament_id} has no result for match {match_id!r} (yet)"
            )
        teams = max(s["team"] for s in doc["seats"]) + 1
        record = arena_pb2.MatchRecord(
            match_id=match_id,
            game=doc["game"],
            entries=[f"{HOSTILE}{t}" for t in range(teams)],
            scores=doc["result"]["scores"],
            replay_id=f"{match_id}-r",
            referee="127.0.0.1:1",
            seed=doc["seed"],
        )
        return Replay(tournament_id, record, json.dumps(doc), doc)


THROWN_IN = "seep-thrown"


@dataclass
class Served:
    played: Played
    url: str
    requests: list[tuple[str, int]] = field(default_factory=list)
    """Every request's path and status, in order."""


def noting(app: ASGIApp, seen: list[tuple[str, int]]) -> ASGIApp:
    """``app``, noting each HTTP request's path and status in ``seen``."""

    async def noted(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                seen.append((scope["path"], message["status"]))
            await send(message)

        await app(scope, receive, sending)

    return noted


def frames_of(served: Served, match: str) -> dict[str, Any]:
    status, headers, body = get(f"{served.url}/api/replays/{TOURNAMENT}/{match}/frames")
    assert status == 200, body[:500]
    assert headers["Content-Type"] == "application/json"
    found: dict[str, Any] = json.loads(body)
    return found


def sent_of(served: Served, match: str, index: int | str) -> tuple[int, Any]:
    url = f"{served.url}/api/replays/{TOURNAMENT}/{match}/frames/{index}/sent"
    status, headers, body = get(url)
    assert headers["Content-Type"] == "application/json", body[:500]
    return status, json.loads(body)


def expected_rows(frame: dict[str, Any]) -> dict[str, list[str]]:
    rows = {f"hand-{s}": hand for s, hand in enumerate(frame["table"]["hands"])}
    rows.update({f"pile-{i}": p["cards"] for i, p in enumerate(frame["table"]["piles"])})
    return rows


RANKS = {"A": "ace", "K": "king", "Q": "queen", "J": "jack", "T": "10"}


SUITS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


SPECIALS = {"GC": "Grand Colon", "RC": "Royal Colon", "LC": "Little Colon"}


def card_name(code: str) -> str:
    """A card's text alternative, as a screen reader gets it."""
    if code in SPECIALS:
        return SPECIALS[code]
    if code[0] == "X":
        return f"joker {code[1]}"
    return f"{RANKS.get(code[0], code[0])} of {SUITS[code[1]]}"
