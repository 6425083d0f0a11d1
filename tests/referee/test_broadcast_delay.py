"""A broadcast delay: watchers get every event of a match, in order, each no sooner than
the delay after it happened, so a bot that watches its own match learns its plays only
that long after the fact. The feed itself, then through a real referee over gRPC."""

from __future__ import annotations

import asyncio
import threading
import time

import grpc
import pytest

from arena import wire
from arena.processes import Service
from arena.referee.feed import MatchFeed
from arena.v1 import referee_pb2, referee_pb2_grpc

DELAY_S = 0.3


def test_each_event_reaches_watchers_no_sooner_than_the_delay_after_it_was_posted() -> None:
    async def scenario() -> tuple[list[float], list[tuple[int, float]], list[tuple[int, float]]]:
        feed = MatchFeed("m", DELAY_S)
        posted: list[float] = []
        early: list[tuple[int, float]] = []
        late: list[tuple[int, float]] = []

        async def watch(into: list[tuple[int, float]]) -> None:
            async for event in feed.follow():
                into.append((event.sequence, time.monotonic()))

        watching = asyncio.create_task(watch(early))
        for n in range(5):
            posted.append(time.monotonic())
            kind = referee_pb2.MATCH_EVENT_KIND_GAME
            feed.post(referee_pb2.MatchEvent(kind=kind, text=f"play {n}"), last=n == 4)
            await asyncio.sleep(0.05 * (n % 3))
        await watch(late)  # a watcher who comes once the match is over waits all the same
        await watching
        return posted, early, late

    posted, early, late = asyncio.run(scenario())
    for received in (early, late):
        assert [sequence for sequence, _ in received] == [0, 1, 2, 3, 4]
        for sequence, at in received:
            assert at >= posted[sequence] + DELAY_S


def test_without_a_delay_a_watcher_gets_what_is_posted_at_once() -> None:
    async def scenario() -> list[int]:
        feed = MatchFeed("m")
        feed.post(referee_pb2.MatchEvent(text="a"))
        feed.post(referee_pb2.MatchEvent(text="b"), last=True)
        return [event.sequence async for event in feed.follow()]

    assert asyncio.run(scenario()) == [0, 1]


def test_the_referee_holds_a_delayed_matchs_events_back_from_its_watchers(
    referee_stub: referee_pb2_grpc.RefereeStub, basic_bot: Service
) -> None:
    delay_s = 1.0
    request = referee_pb2.PlayMatchRequest(
        game="bid-euchre",
        bots=[basic_bot.address, basic_bot.address],
        seed=11,
        options={"max_hands": "1"},
        move_deadline=wire.duration(5.0),
        match_id="delayed-match",
        broadcast_delay=wire.duration(delay_s),
    )
    received: list[tuple[referee_pb2.MatchEvent, float]] = []

    def watch() -> None:
        watching = referee_pb2.WatchMatchRequest(match_id="delayed-match")
        for _ in range(200):  # until the match reaches the referee
            try:
                for event in referee_stub.WatchMatch(watching, timeout=120):
                    received.append((event, time.monotonic()))
                return
            except grpc.RpcError as error:
                assert error.code() == grpc.StatusCode.NOT_FOUND
                time.sleep(0.01)

    asked = time.monotonic()
    watcher = threading.Thread(target=watch)
    watcher.start()
    result = referee_stub.PlayMatch(request, timeout=120)
    watcher.join(timeout=120)
    assert result.end == referee_pb2.MATCH_END_COMPLETED
    sequences = [event.sequence for event, _ in received]
    assert sequences == list(range(len(received))) and len(received) > 10
    assert received[-1][0].kind == referee_pb2.MATCH_EVENT_KIND_ENDED
    assert received[0][1] >= asked + delay_s  # nothing before the delay had passed


@pytest.mark.parametrize("seconds", [-1, 3601])
def test_a_broadcast_delay_out_of_range_is_refused_saying_what_is_allowed(
    referee_stub: referee_pb2_grpc.RefereeStub, basic_bot: Service, seconds: int
) -> None:
    request = referee_pb2.PlayMatchRequest(
        game="bid-euchre",
        bots=[basic_bot.address, basic_bot.address],
        broadcast_delay=wire.duration(seconds),
    )
    with pytest.raises(grpc.RpcError) as refused:
        referee_stub.PlayMatch(request, timeout=30)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.value.details() == (
        f"broadcast_delay must be 0 to 3600 s (an hour), got {seconds} s"
    )
