"""A referee process mirrors a sibling's match for its own watchers: however many watch
it there, one private stream carries it from the process that plays it, every watcher
gets every event once and in order, and the stream ends with the last watcher. Two
referees in process, siblings over their private unix sockets, real gRPC."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest

from arena.referee import siblings
from arena.referee.processes import Siblings
from arena.referee.service import start_server
from arena.v1 import referee_pb2, referee_pb2_grpc

WATCHERS = 5
GAME = referee_pb2.MATCH_EVENT_KIND_GAME
Call = grpc.aio.UnaryStreamCall[referee_pb2.WatchMatchRequest, referee_pb2.MatchEvent]


async def sequence(call: Call) -> int | None:
    """The next event's sequence number; None at the end of the stream."""
    event = await call.read()
    return event.sequence if isinstance(event, referee_pb2.MatchEvent) else None


def test_many_watchers_of_a_siblings_match_share_one_private_stream(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    watch = siblings.PrivateWatch.WatchMatch

    async def counted(
        self: siblings.PrivateWatch, request: referee_pb2.WatchMatchRequest, context: object
    ) -> AsyncIterator[referee_pb2.MatchEvent]:
        asked.append(request.match_id)
        async for event in watch(self, request, context):  # type: ignore[arg-type]
            yield event

    monkeypatch.setattr(siblings.PrivateWatch, "WatchMatch", counted)
    sockets = (f"unix:{tmp_path}/a.sock", f"unix:{tmp_path}/b.sock")

    async def scenario() -> list[list[int | None]]:
        a, _ = await start_server(port=0, siblings=Siblings(0, sockets))
        b, b_port = await start_server(port=0, siblings=Siblings(1, sockets))
        feed = a.service.feeds.open("m1")  # played by A
        feed.post(referee_pb2.MatchEvent(kind=referee_pb2.MATCH_EVENT_KIND_STARTED))
        channels = [grpc.aio.insecure_channel(f"127.0.0.1:{b_port}") for _ in range(WATCHERS)]
        calls = [
            referee_pb2_grpc.RefereeStub(c).WatchMatch(referee_pb2.WatchMatchRequest(match_id="m1"))
            for c in channels
        ]
        try:
            seen = [[await sequence(call)] for call in calls]
            assert asked == ["m1"]  # one private stream for all five
            assert b.service.relay.mirrors["m1"].watchers == WATCHERS
            for n in range(3):
                feed.post(referee_pb2.MatchEvent(kind=GAME, text=f"play {n}"))
            feed.post(referee_pb2.MatchEvent(kind=referee_pb2.MATCH_EVENT_KIND_ENDED), last=True)
            for got, call in zip(seen, calls, strict=True):
                while (number := await sequence(call)) is not None:
                    got.append(number)
            for _ in range(100):  # the last watcher's leaving ends the mirror
                if not b.service.relay.mirrors:
                    break
                await asyncio.sleep(0.01)
            assert not b.service.relay.mirrors
            return seen
        finally:
            for channel in channels:
                await channel.close(None)
            await b.stop(grace=None)
            await a.stop(grace=None)

    assert asyncio.run(scenario()) == [[0, 1, 2, 3, 4]] * WATCHERS
