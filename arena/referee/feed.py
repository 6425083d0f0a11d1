"""Public events of matches, for WatchMatch: replayed from the start, then live, or with
a broadcast delay, each event once it is that old."""

from __future__ import annotations

import asyncio
import bisect
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from typing import NamedTuple

from arena.v1 import referee_pb2


class _GameEvent(NamedTuple):
    """A game event as posted: made into a ``MatchEvent`` only if someone watches."""

    seat: int | None
    kind: str
    text: str
    scores: Sequence[int]
    table: str


class MatchFeed:
    """Append-only list of one match's public events; posting never waits on watchers.

    A watcher is only a position in this one list, so a slow one costs nothing here: it
    holds back its own gRPC stream, whose flow control suspends ``follow`` while the
    client reads nothing, and the referee buffers at most a flow-control window for it."""

    def __init__(self, match_id: str, delay_s: float = 0.0) -> None:
        self.match_id = match_id
        self.delay_s = delay_s
        self._items: list[referee_pb2.MatchEvent | _GameEvent | bytes] = []
        self._posted: list[float] = []
        """When each item was posted (monotonic), kept only with a delay."""
        self.done = False
        self._wakeup: asyncio.Event | None = None  # only while someone waits
        self.watched = False
        """Someone has followed the feed: from then on the match posts the public table
        with its events (``arena.replay.public_table``), which costs the referee a table
        a move, so an unwatched match does without."""
        self.snapshot: Callable[[], str] | None = None
        """The public table as it stands, set by the match once it has a state: posted
        for the first watcher of a match under way."""

    def post(self, event: referee_pb2.MatchEvent, *, last: bool = False) -> None:
        self._append(event)
        if last:
            self.close()

    def close(self) -> None:
        """No more events: watchers get the rest, then their streams end."""
        if self.done:
            return
        self.done = True
        self._seal()
        if self._wakeup is not None:
            self._wakeup.set()
            self._wakeup = None

    def _seal(self) -> None:
        """Keep a finished match's events as their bytes: the referee keeps hundreds of
        finished feeds for late watchers, and a tuple, a string and a list of scores per
        event, kept for minutes among short-lived objects, cost several times as much and
        fragment the heap (``bench.referee_memory``). Of the public tables, only the last
        is kept: a late watcher sees where the match ended, and its replay every step."""
        self.snapshot = None
        events = [self.event(n) for n in range(len(self._items))]
        tabled = [n for n, event in enumerate(events) if event.table_json]
        for n in tabled[:-1]:
            events[n].ClearField("table_json")
        self._items = [event.SerializeToString() for event in events]

    def post_game(
        self, seat: int | None, kind: str, text: str, scores: Sequence[int], table: str = ""
    ) -> None:
        """A game event: the referee posts one per public engine event, so it stays a
        tuple until a watcher asks for it."""
        self._append(_GameEvent(seat, kind, text, scores, table))

    def _append(self, item: referee_pb2.MatchEvent | _GameEvent | bytes) -> None:
        self._items.append(item)
        if self.delay_s:
            self._posted.append(time.monotonic())
        if self._wakeup is not None:
            self._wakeup.set()
            self._wakeup = None

    def event(self, sequence: int) -> referee_pb2.MatchEvent:
        item = self._items[sequence]
        if isinstance(item, bytes):  # sealed: numbered already, and not kept parsed
            return referee_pb2.MatchEvent.FromString(item)
        if isinstance(item, _GameEvent):
            item = referee_pb2.MatchEvent(
                kind=referee_pb2.MATCH_EVENT_KIND_GAME,
                seat=item.seat,
                game_kind=item.kind,
                text=item.text,
                scores=item.scores,
                table_json=item.table,
            )
        item.match_id = self.match_id
        item.sequence = sequence
        self._items[sequence] = item
        return item

    async def follow(self) -> AsyncIterator[referee_pb2.MatchEvent]:
        if not self.watched:
            self.watched = True
            if not self.done and self.snapshot is not None:
                self.post(
                    referee_pb2.MatchEvent(
                        kind=referee_pb2.MATCH_EVENT_KIND_TABLE,
                        text="The table as it stands",
                        table_json=self.snapshot(),
                    )
                )
        sent = 0
        while True:
            if sent < len(self._items):
                end = await self._due(sent) if self.delay_s else len(self._items)
                for sequence in range(sent, end):
                    yield self.event(sequence)
                sent = end
            elif self.done:
                return
            else:
                if self._wakeup is None:
                    self._wakeup = asyncio.Event()
                await self._wakeup.wait()

    async def _due(self, first: int) -> int:
        """Wait until item ``first`` is ``delay_s`` old; then the end of the items that
        are (at least ``first + 1``)."""
        wait = self._posted[first] + self.delay_s - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        return bisect.bisect_right(self._posted, time.monotonic() - self.delay_s, lo=first + 1)


class FeedRegistry:
    """Feeds of running matches and of the most recent finished ones."""

    def __init__(self, keep_finished: int = 512) -> None:
        self._feeds: OrderedDict[str, MatchFeed] = OrderedDict()
        self.keep_finished = keep_finished

    def __contains__(self, match_id: str) -> bool:
        return match_id in self._feeds

    def open(self, match_id: str, delay_s: float = 0.0) -> MatchFeed:
        feed = MatchFeed(match_id, delay_s)
        self._feeds[match_id] = feed
        finished = [k for k, f in self._feeds.items() if f.done]
        for key in finished[: max(0, len(finished) - self.keep_finished)]:
            del self._feeds[key]
        return feed

    def get(self, match_id: str) -> MatchFeed | None:
        return self._feeds.get(match_id)
