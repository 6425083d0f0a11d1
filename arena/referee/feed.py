"""Public events of matches, for WatchMatch: replayed from the start, then live."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import AsyncIterator

from arena.v1 import referee_pb2


class MatchFeed:
    """Append-only list of one match's public events; posting never waits on watchers."""

    def __init__(self, match_id: str) -> None:
        self.match_id = match_id
        self.events: list[referee_pb2.MatchEvent] = []
        self.done = False
        self._wakeup = asyncio.Event()

    def post(self, event: referee_pb2.MatchEvent, *, last: bool = False) -> None:
        event.match_id = self.match_id
        event.sequence = len(self.events)
        self.events.append(event)
        self.done = self.done or last
        self._wakeup.set()
        self._wakeup = asyncio.Event()

    async def follow(self) -> AsyncIterator[referee_pb2.MatchEvent]:
        sent = 0
        while True:
            if sent < len(self.events):
                batch = self.events[sent:]
                sent += len(batch)
                for event in batch:
                    yield event
            elif self.done:
                return
            else:
                await self._wakeup.wait()


class FeedRegistry:
    """Feeds of running matches and of the most recent finished ones."""

    def __init__(self, keep_finished: int = 512) -> None:
        self._feeds: OrderedDict[str, MatchFeed] = OrderedDict()
        self.keep_finished = keep_finished

    def __contains__(self, match_id: str) -> bool:
        return match_id in self._feeds

    def open(self, match_id: str) -> MatchFeed:
        feed = MatchFeed(match_id)
        self._feeds[match_id] = feed
        finished = [k for k, f in self._feeds.items() if f.done]
        for key in finished[: max(0, len(finished) - self.keep_finished)]:
            del self._feeds[key]
        return feed

    def get(self, match_id: str) -> MatchFeed | None:
        return self._feeds.get(match_id)
