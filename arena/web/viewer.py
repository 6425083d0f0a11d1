"""The replay viewer: its frames, and what a seat was sent at one frame, as JSON.

The page is a shell: ``static/viewer.js`` fetches ``/api/replays/{t}/{m}/frames``
(``arena.replay.frames``) and draws the table, and fetches a frame's request from
``.../frames/{index}/sent`` when a seat's view is chosen; the replay as text stays in the
page for readers without JavaScript. The static files ship in the package
(``arena/web/static``, served at ``/static/``) and nothing is loaded from elsewhere.

Building frames plays the whole match again, so the last few built matches are kept
(``FramesCache``): stepping through a match asks for a request at every frame.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict
from typing import Any

from arena.replay.frames import Built, FramesRefused, NoRequest, build, check_version
from arena.replay.verify import ReplayMismatch
from arena.web.data import Replay
from arena.web.errors import HttpError

CACHED_MATCHES = 8
"""Built matches kept: a viewer or two stepping through matches, at a few MB each."""

CacheKey = tuple[str, str, str, str, str]


def checked(replay: Replay) -> None:
    """A replay of another format or version is refused, saying which (502: the referee
    sent what this site cannot read)."""
    try:
        check_version(replay.document)
    except FramesRefused as error:
        raise HttpError(
            502, f"replay unavailable: {replay.record.replay_id} cannot be shown: {error}"
        ) from None


def seat_names(replay: Replay) -> list[str] | None:
    """Each seat's bot by its registered name: the result's entry of the seat's team (a
    tournament plays one entry per team); None leaves the names the replay records."""
    entries = list(replay.record.entries)
    seats = replay.document.get("seats")
    if not isinstance(seats, list) or not all(isinstance(s, dict) for s in seats):
        return None
    teams = [s.get("team") for s in seats]
    if not entries or not all(isinstance(t, int) and 0 <= t < len(entries) for t in teams):
        return None
    return [entries[t] for t in teams]


def built(replay: Replay) -> Built:
    """The viewer's frames of a replay and their requests; one that does not verify is a
    502 saying where."""
    checked(replay)
    try:
        return build(replay.document, seat_names(replay))
    except ReplayMismatch as error:
        raise HttpError(
            502, f"replay unavailable: {replay.record.replay_id} does not verify: {error}"
        ) from None


def frames(replay: Replay) -> dict[str, Any]:
    """The viewer's frames of a replay (``built`` without the requests)."""
    return built(replay).frames


def sent(found: Built, index: str) -> dict[str, Any]:
    """Frame ``index``'s request: 400 if it is no integer, 404 if that frame has none."""
    count = len(found.requests)
    try:
        number = int(index)
    except ValueError:
        raise HttpError(
            400, f"frame index {index!r} is not an integer; this match has frames 0 to {count - 1}"
        ) from None
    try:
        return found.sent(number)
    except NoRequest as error:
        raise HttpError(404, str(error)) from None


def key_of(replay: Replay) -> CacheKey:
    """The match and its replay file's identity: a replay stored again under the same
    ids (a referee's directory restored, say) is built again."""
    digest = hashlib.sha256(replay.text.encode()).hexdigest()
    record = replay.record
    return (replay.tournament_id, record.match_id, record.referee, record.replay_id, digest)


class FramesCache:
    """The last ``size`` built matches, least recently used dropped first; each is built
    once, off the event loop, however many requests ask for it meanwhile."""

    def __init__(self, size: int = CACHED_MATCHES) -> None:
        if size < 1:
            raise ValueError(f"a frames cache holds at least 1 match, not {size}")
        self.size = size
        self._built: OrderedDict[CacheKey, asyncio.Future[Built]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._built)

    async def get(self, replay: Replay) -> Built:
        key = key_of(replay)
        future = self._built.get(key)
        if future is None:
            # Replaying the match through the engine is CPU work: off the event loop.
            future = asyncio.ensure_future(asyncio.to_thread(built, replay))
            self._built[key] = future
            future.add_done_callback(lambda done: self._settle(key, done))
        else:
            self._built.move_to_end(key)
        # Shielded: a reader who leaves does not cancel the build others wait for.
        return await asyncio.shield(future)

    def _settle(self, key: CacheKey, done: asyncio.Future[Built]) -> None:
        """A build that failed (a replay that does not verify) is not kept, so it pushes
        no good one out: the error goes to its readers and the next request tries again.
        One that succeeded pushes out the least recently used past the size."""
        if done.cancelled() or done.exception() is not None:
            if self._built.get(key) is done:
                del self._built[key]
            return
        while len(self._built) > self.size:
            self._built.popitem(last=False)
