"""Signed-in authors of the web site: sessions kept in the web process's memory, and the
checks every form post passes (CSRF).

A browser holds only a random session id, in an HttpOnly, SameSite=Strict cookie
(Secure over TLS); the author's token stays on the server, mapped from the id's SHA-256
(so a lookup's timing says nothing of a stored id). A session ends on sign-out, after
``IDLE_S`` without a request, after ``MAX_AGE_S`` whatever, or when the process
restarts: nothing is stored anywhere else, which is honest for a site run as one
process (``deploy/``: one replica), and signs everyone out on a restart. At most
``MAX_SESSIONS`` live at once (the least recently used goes first) and
``PER_AUTHOR`` of one author's.

Forms are protected twice (OWASP's synchronizer token and origin check): every post
carries the session's own CSRF token, compared in constant time, and its ``Origin``
(else its ``Referer``) must be this site. The sign-in form, before any session, carries
a token that must equal its HttpOnly cookie (a double submit).

Pure: no Starlette, no gRPC.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

COOKIE = "arena_author"
"""The session cookie: a random id, nothing else."""
SIGN_IN_COOKIE = "arena_sign_in"
"""The sign-in form's double-submit token, before any session exists."""
IDLE_S = 30 * 60.0
"""A session unused this long is over."""
MAX_AGE_S = 12 * 3600.0
"""A session is over this long after sign-in, however busy."""
SIGN_IN_FORM_S = 3600
"""How long a sign-in form stays good (its cookie's Max-Age)."""
MAX_SESSIONS = 10_000
"""Sessions held at once: each is a few hundred bytes, so memory stays bounded."""
PER_AUTHOR = 16
"""One author's sessions at once (browsers, devices); signing in again ends the oldest."""
ID_BYTES = 32


def _key(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


@dataclass
class Session:
    """One signed-in author (WhoAmI said the token is theirs); the API decides everything
    the token does."""

    author: str
    token: str = field(repr=False)
    csrf: str = field(repr=False)
    created: float
    seen: float


class Sessions:
    """The live sessions by the SHA-256 of their id, least recently used first. One
    event loop serves them all: no lock. ``clock`` is for tests."""

    def __init__(
        self,
        idle_s: float = IDLE_S,
        max_age_s: float = MAX_AGE_S,
        max_sessions: int = MAX_SESSIONS,
        per_author: int = PER_AUTHOR,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.idle_s = idle_s
        self.max_age_s = max_age_s
        self.max_sessions = max_sessions
        self.per_author = per_author
        self.clock = clock
        self._live: OrderedDict[str, Session] = OrderedDict()

    def __len__(self) -> int:
        return len(self._live)

    def start(self, author: str, token: str) -> tuple[str, Session]:
        """A new session (a new id: never one the browser had before, so no fixation)
        and its id, for the cookie."""
        self._expire()
        now = self.clock()
        mine = [k for k, s in self._live.items() if s.author == author]
        for key in mine[: max(0, len(mine) - self.per_author + 1)]:
            del self._live[key]
        while len(self._live) >= self.max_sessions:
            self._live.popitem(last=False)
        session_id = secrets.token_urlsafe(ID_BYTES)
        session = Session(author, token, secrets.token_urlsafe(ID_BYTES), now, now)
        self._live[_key(session_id)] = session
        return session_id, session

    def get(self, session_id: str | None) -> Session | None:
        """The live session of ``session_id``, marked as used now; None for no id, an
        unknown one or one that has expired (which is dropped)."""
        if not session_id or len(session_id) > 2 * ID_BYTES:
            return None
        key = _key(session_id)
        session = self._live.get(key)
        if session is None:
            return None
        now = self.clock()
        if self._expired(session, now):
            del self._live[key]
            return None
        session.seen = now
        self._live.move_to_end(key)
        return session

    def end(self, session_id: str | None) -> None:
        """Sign out: the session is forgotten (nothing for an unknown id)."""
        if session_id:
            self._live.pop(_key(session_id), None)

    def _expired(self, session: Session, now: float) -> bool:
        return now - session.seen > self.idle_s or now - session.created > self.max_age_s

    def _expire(self) -> None:
        """Drop expired sessions from the least recently used end, where they are."""
        now = self.clock()
        while self._live:
            key, session = next(iter(self._live.items()))
            if not self._expired(session, now):
                return
            del self._live[key]


def tokens_match(expected: str, sent: str | None) -> bool:
    """Whether a form's CSRF token is the one expected, in constant time."""
    return (
        bool(expected)
        and sent is not None
        and secrets.compare_digest(expected.encode(), sent.encode())
    )


def new_form_token() -> str:
    """The sign-in form's token (and its cookie's value)."""
    return secrets.token_urlsafe(ID_BYTES)


def same_origin(headers: Mapping[str, str], host: str) -> str | None:
    """Why a post's origin is not this site's, or None when it is: its ``Origin``, else
    its ``Referer``, must name ``host`` (the ``Host`` it was sent to, port included), by
    http or https; a post with neither is refused (browsers send ``Origin`` with every
    form post)."""
    origin = headers.get("origin")
    source = "Origin"
    if origin is None:
        origin, source = headers.get("referer"), "Referer"
    if not origin:
        return "the post says neither where it comes from (Origin) nor its page (Referer)"
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not host or parts.netloc.lower() != host.lower():
        return f"the post comes from another site ({source}: {origin[:200]})"
    return None


def cookie(name: str, value: str, *, secure: bool, max_age: int | None = None) -> str:
    """A ``Set-Cookie`` value: HttpOnly, SameSite=Strict, for the whole site (the public
    pages' header says who is signed in), Secure when served over TLS; without
    ``max_age``, a browser-session cookie (the server expires the session anyway)."""
    parts = [f"{name}={value}", "Path=/", "HttpOnly", "SameSite=Strict"]
    if max_age is not None:
        parts.append(f"Max-Age={max_age}")
    if secure:
        parts.append("Secure")
    return "; ".join(parts)


def clearing(name: str, *, secure: bool) -> str:
    """A ``Set-Cookie`` value that deletes the cookie ``name``."""
    return cookie(name, "", secure=secure, max_age=0)
