"""Live events for the site's viewers: one upstream ``WatchMatch`` per match, fanned out
to every viewer, and a bounded share of viewers for each client.

A viewer costs the site a place in a list, not a stream on a referee: a thousand people
watching one match hold one stream on its referee. Anyone who can reach the site may
watch, so a client (by its address, as uvicorn reports it: behind a proxy it trusts,
the ``X-Forwarded-For`` one) holds at most ``per_client`` viewers at once, and the site
at most ``max_matches`` upstream streams: one greedy client cannot keep another out.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import AsyncGenerator, Callable

from arena.v1 import referee_pb2
from arena.web.errors import HttpError, TooMany

MAX_MATCHES = 200
"""Matches the site follows at once, each one stream on its referee. Past it, 503."""
PER_CLIENT = 8
"""Viewers one client may hold at once (a few browser tabs). Past it, 429."""
RETRY_AFTER_S = 10
"""What a refused viewer is told to wait (``Retry-After``)."""

Watch = Callable[[str, str, bool], AsyncGenerator[referee_pb2.MatchEvent, None]]
"""``Source.watch``: a match's events from its referee, from the start."""

log = logging.getLogger(__name__)


class Upstream:
    """One match's events as its referee sent them, shared by all its viewers."""

    def __init__(self, events: AsyncGenerator[referee_pb2.MatchEvent, None]) -> None:
        self.events: list[referee_pb2.MatchEvent] = []
        self.ended = False
        """Its referee stream is over: the match ended, or the stream failed."""
        self.error: HttpError | None = None
        self.viewers = 0
        self._changed = asyncio.Event()
        self._task = asyncio.create_task(self._pump(events))

    async def _pump(self, events: AsyncGenerator[referee_pb2.MatchEvent, None]) -> None:
        try:
            async for event in events:
                self.events.append(event)
                self._wake()
        except HttpError as error:
            self.error = error
        except Exception as error:  # anything else ends the stream; a viewer reconnects
            log.warning("the events of a match stopped: %r", error)
            self.error = HttpError(502, f"the match's events stopped: {error}")
        finally:
            self.ended = True
            self._wake()
            await events.aclose()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def follow(self, after: int) -> AsyncGenerator[referee_pb2.MatchEvent, None]:
        """The events past sequence ``after``, as they come, to the end. Raises the
        referee's error (``HttpError``) if the stream failed before giving one."""
        position, sent = 0, False
        while True:
            while position < len(self.events):
                event = self.events[position]
                position += 1
                if event.sequence > after:
                    sent = True
                    yield event
            if self.ended:
                if self.error is not None and not sent:
                    raise self.error
                return
            await self._changed.wait()

    async def close(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


class Relay:
    """The site's upstreams by (referee, watch id), and its viewers by client. One event
    loop serves them all: no lock needed."""

    def __init__(
        self, watch: Watch, max_matches: int = MAX_MATCHES, per_client: int = PER_CLIENT
    ) -> None:
        self.watch = watch
        self.max_matches = max_matches
        self.per_client = per_client
        self.upstreams: dict[tuple[str, str], Upstream] = {}
        self.clients: Counter[str] = Counter()

    @property
    def viewers(self) -> int:
        return sum(self.clients.values())

    def join(self, client: str, referee: str, watch_id: str, starting: bool) -> Upstream:
        """A viewer of ``client`` for the match: its upstream, opened if none is."""
        if self.clients[client] >= self.per_client:
            raise TooMany(
                429,
                f"this address follows {self.per_client} matches from this site already, the "
                "most one client may at once; close one, or try again in a while",
                RETRY_AFTER_S,
            )
        key = (referee, watch_id)
        upstream = self.upstreams.get(key)
        if upstream is None or (upstream.ended and upstream.error is not None):
            if len(self.upstreams) >= self.max_matches:
                raise TooMany(
                    503,
                    f"{self.max_matches} matches are being followed from this site already, "
                    "its most at once; try again in a while",
                    RETRY_AFTER_S,
                )
            upstream = Upstream(self.watch(referee, watch_id, starting))
            self.upstreams[key] = upstream
        upstream.viewers += 1
        self.clients[client] += 1
        return upstream

    async def leave(self, client: str, upstream: Upstream) -> None:
        """A viewer left: the last one of a match closes its referee stream."""
        self.clients[client] -= 1
        if self.clients[client] <= 0:
            del self.clients[client]
        upstream.viewers -= 1
        if upstream.viewers == 0:
            for key, found in list(self.upstreams.items()):
                if found is upstream:
                    del self.upstreams[key]
            await upstream.close()
