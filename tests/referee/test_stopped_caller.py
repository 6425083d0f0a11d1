"""A caller that stops (a worker stopped, hung or cut off) must not leave a match
running that another worker may start again. Mid-match, the referee's own pings find
it and its match is abandoned within twice ``--caller-keepalive``, where it would
otherwise play on for as long as its bots take; a worker's lease on the match outlasts
that. Before the match, a request sent after its ``start_by`` (when the sender's lease
lapsed) is refused and plays nothing. So no two attempts at a match, and no two halves
of a duplicate pair, ever run at once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from arena import wire
from arena.processes import Service, arena_command, start_service
from arena.v1 import referee_pb2, referee_pb2_grpc
from tests.support.bots import BotFactory

CALLER = textwrap.dedent(
    """
    import sys, grpc
    from arena import wire
    from arena.v1 import referee_pb2, referee_pb2_grpc
    referee, hung, basic = sys.argv[1:]
    with grpc.insecure_channel(referee) as channel:
        referee_pb2_grpc.RefereeStub(channel).PlayMatch(
            referee_pb2.PlayMatchRequest(
                game="bid-euchre", bots=[hung, basic], seed=1,
                move_deadline=wire.duration(60.0), match_id="stalled-1",
            )
        )
    """
)


@pytest.fixture
def referee(tmp_path: Path) -> Iterator[Service]:
    service = start_service(
        arena_command(
            "referee", "serve", "--port", "0", "--replay-dir", str(tmp_path),
            "--caller-keepalive", "0.5",
        )
    )  # fmt: skip
    yield service
    service.stop()


def test_the_match_of_a_caller_that_stopped_answering_is_abandoned(
    referee: Service, start_bot: BotFactory, basic_bot: Service
) -> None:
    """The first seat's bot hangs (60 s to answer): played on, the match would still
    be waiting for it long after the caller stopped."""
    hung = start_bot("chaos", "--mode", "hang").address
    caller = subprocess.Popen(
        [sys.executable, "-c", CALLER, referee.address, hung, basic_bot.address],
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
    )
    try:
        with grpc.insecure_channel(referee.address) as channel:
            events = iter(
                referee_pb2_grpc.RefereeStub(channel).WatchMatch(
                    referee_pb2.WatchMatchRequest(match_id="stalled-1"), timeout=50
                )
            )
            for _ in range(400):  # until the match is in play
                try:
                    assert next(events).kind == referee_pb2.MATCH_EVENT_KIND_STARTED
                    break
                except grpc.RpcError as error:
                    assert error.code() == grpc.StatusCode.NOT_FOUND, error
                    threading.Event().wait(0.05)
                    events = iter(
                        referee_pb2_grpc.RefereeStub(channel).WatchMatch(
                            referee_pb2.WatchMatchRequest(match_id="stalled-1"), timeout=50
                        )
                    )
            caller.send_signal(signal.SIGSTOP)
            last = list(events)[-1]
    finally:
        caller.kill()
        caller.wait()
    assert last.kind == referee_pb2.MATCH_EVENT_KIND_ENDED
    assert "abandoned: the caller cancelled it" in last.text, last


def test_a_request_that_comes_after_its_start_by_is_refused_and_plays_nothing(
    referee: Service, basic_bot: Service
) -> None:
    """A worker that stalled between taking its lease and sending the match sends a
    start_by in the past: another worker may have played the match since."""
    bots = [basic_bot.address, basic_bot.address]
    with grpc.insecure_channel(referee.address) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)
        stale = referee_pb2.PlayMatchRequest(
            game="bid-euchre", bots=bots, seed=1, match_id="stale-1",
            start_by=wire.timestamp(time.time() - 5),
        )  # fmt: skip
        with pytest.raises(grpc.RpcError) as refused:
            stub.PlayMatch(stale)
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "after its start_by" in str(refused.value.details())
        with pytest.raises(grpc.RpcError) as unknown:  # nothing was played, nor kept
            stub.GetReplay(referee_pb2.GetReplayRequest(replay_id="stale-1"))
        assert unknown.value.code() == grpc.StatusCode.NOT_FOUND
        fresh = referee_pb2.PlayMatchRequest(
            game="bid-euchre", bots=bots, seed=1, match_id="stale-1",
            start_by=wire.timestamp(time.time() + 30), options={"max_hands": "1"},
        )  # fmt: skip
        assert stub.PlayMatch(fresh).end == referee_pb2.MATCH_END_COMPLETED
