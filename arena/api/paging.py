"""ListResults' pages (AIP-158): what a request may ask, and its opaque page tokens.

A token names the last match id its page showed, so the next page starts after that id
whatever was stored meanwhile: a boundary repeats and skips nothing. It also carries the
request it was given for, so a token replayed on another listing is refused rather than
read as a position in it, and which ids it counts in: public ids while the tournament
runs, the schedule's once it has ended (a token of one is no position in the other).
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass

from arena.v1 import arena_pb2

MAX_PAGE_SIZE = 1000
ORDERS = {"": False, "match_id": False, "match_id desc": True}
"""``order_by`` values, and whether each is descending."""


class InvalidPage(ValueError):
    """A request's paging fields that no listing can answer; the message says why."""


@dataclass(frozen=True)
class PageRequest:
    """Where a ListResults page starts, and how many results it holds (0: every one)."""

    tournament_id: str
    descending: bool
    after: str
    """Start after this match id in the order ('' at the first)."""
    size: int
    origin: str
    """The request's own ``after_match_id``, which a token must have been given for."""
    public_ids: bool | None = None
    """Whether the token's position is a public id (given while the tournament ran);
    None without a token."""

    def next_token(self, last_match_id: str, public_ids: bool) -> str:
        fields = {"t": self.tournament_id, "d": self.descending, "o": self.origin}
        body = json.dumps(
            {**fields, "a": last_match_id} | ({"p": True} if public_ids else {}),
            separators=(",", ":"),
        )
        return base64.urlsafe_b64encode(body.encode()).decode().rstrip("=")


def page_request(request: arena_pb2.ListResultsRequest) -> PageRequest:
    """The page ``request`` asks for, or InvalidPage saying what is wrong and what is allowed."""
    if not 0 <= request.page_size <= MAX_PAGE_SIZE:
        raise InvalidPage(
            f"page_size must be 0 (every result) or 1 to {MAX_PAGE_SIZE}, got {request.page_size}"
        )
    order = " ".join(request.order_by.split())
    if order not in ORDERS:
        raise InvalidPage(
            f"order_by must be 'match_id' or 'match_id desc' (or empty), got {request.order_by!r}"
        )
    page = PageRequest(
        request.tournament_id,
        ORDERS[order],
        request.after_match_id,
        request.page_size,
        request.after_match_id,
    )
    if not request.page_token:
        return page
    token, after = _decode(request.page_token)
    if (token.get("t"), token.get("d"), token.get("o")) != (
        page.tournament_id,
        page.descending,
        page.origin,
    ):
        raise InvalidPage(
            "page_token was given for another listing: tournament_id, order_by and "
            "after_match_id must be as in the request whose next_page_token it is"
        )
    return PageRequest(
        page.tournament_id,
        page.descending,
        after,
        page.size,
        page.origin,
        public_ids=token.get("p") is True,
    )


def _decode(raw: str) -> tuple[dict[str, object], str]:
    """The token's fields and the match id its page ended at."""
    refused = InvalidPage(
        f"page_token {raw[:40]!r} is not a next_page_token of ListResults: pass one unchanged, "
        "or none for the first page"
    )
    try:
        body = json.loads(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)))
    except (binascii.Error, ValueError):
        raise refused from None
    after = body.get("a") if isinstance(body, dict) else None
    if not isinstance(after, str) or not after:
        raise refused
    return body, after
