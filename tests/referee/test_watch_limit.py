"""``--max-watchers``: WatchMatch, open to anyone, holds at most N streams per referee
process; past it RESOURCE_EXHAUSTED, and a watcher who leaves frees its place."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TypeAlias

import grpc
import pytest

from arena import wire
from arena.processes import Service, arena_command, free_port, start_service
from arena.v1 import referee_pb2, referee_pb2_grpc
from tests.support.bots import BotFactory
from tests.support.metrics import samples, scrape

LIMIT = 2
WAIT_S = 120.0  # a bound only: how long a match may take on a loaded machine
# A WatchMatch call: an iterator of events that can be cancelled (grpc-stubs' name only).
Stream: TypeAlias = "grpc.CallIterator[referee_pb2.MatchEvent]"


@pytest.fixture
def capped(tmp_path: Path) -> Iterator[tuple[Service, int]]:
    metrics_port = free_port()
    service = start_service(
        arena_command(
            "referee", "serve", "--port", "0", "--replay-dir", str(tmp_path),
            "--max-watchers", str(LIMIT), "--metrics-port", str(metrics_port),
        )
    )  # fmt: skip
    yield service, metrics_port
    service.stop()


def watchers(metrics_port: int) -> float:
    values = samples(scrape(f"http://127.0.0.1:{metrics_port}/metrics"))
    return values[("arena_referee_watchers", ())]


def test_watchers_past_the_limit_are_refused_until_one_leaves(
    capped: tuple[Service, int], start_bot: BotFactory, basic_bot: Service
) -> None:
    referee, metrics_port = capped
    hung = start_bot("chaos", "--mode", "hang").address
    with grpc.insecure_channel(referee.address) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)
        request = referee_pb2.WatchMatchRequest(match_id="capped-1")
        play = stub.PlayMatch.future(
            referee_pb2.PlayMatchRequest(
                game="bid-euchre",
                bots=[hung, basic_bot.address],
                seed=1,
                move_deadline=wire.duration(30.0),
                match_id="capped-1",
            )
        )

        def started() -> Stream:
            """A stream that has had its first event (the match is in play)."""
            for _ in range(200):
                stream = stub.WatchMatch(request)
                try:
                    assert next(iter(stream)).kind == referee_pb2.MATCH_EVENT_KIND_STARTED
                    return stream
                except grpc.RpcError as error:
                    if error.code() not in (
                        grpc.StatusCode.NOT_FOUND,  # the match has not reached it yet
                        grpc.StatusCode.RESOURCE_EXHAUSTED,  # a cancelled one not yet freed
                    ):
                        raise
                    threading.Event().wait(0.05)
            raise AssertionError("no place for a watcher came free")

        try:
            first, second = started(), started()
            assert watchers(metrics_port) == LIMIT
            with pytest.raises(grpc.RpcError) as refused:
                next(iter(stub.WatchMatch(request)))
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert f"already streams {LIMIT} WatchMatch calls" in (refused.value.details() or "")
            assert "retry later" in (refused.value.details() or "")

            # The watcher goes away: its place is free again.
            first.cancel()  # type: ignore[no-untyped-call]  # grpc-stubs: Call.cancel is unannotated
            third = started()
            assert watchers(metrics_port) == LIMIT
        finally:
            play.cancel()  # type: ignore[no-untyped-call]  # grpc-stubs: Call.cancel is unannotated
        # The match ends (abandoned): its streams end, and their places are free.
        assert list(second)[-1].kind == referee_pb2.MATCH_EVENT_KIND_ENDED
        assert list(third)[-1].kind == referee_pb2.MATCH_EVENT_KIND_ENDED
        for _ in range(200):
            if watchers(metrics_port) == 0:
                break
            threading.Event().wait(0.05)
        assert watchers(metrics_port) == 0


def test_a_limit_below_one_is_refused(tmp_path: Path) -> None:
    finished = subprocess.run(
        arena_command("referee", "serve", "--max-watchers", "0", "--replay-dir", str(tmp_path)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert finished.returncode != 0
    assert "--max-watchers must be 1 or more, not 0" in finished.stderr


def test_a_watcher_that_reads_nothing_holds_up_neither_the_match_nor_other_watchers(
    referee_stub: referee_pb2_grpc.RefereeStub, start_bot: BotFactory
) -> None:
    """Watchers share the match's one list of events, each at its own place in it: one
    that stops reading costs the referee its place, not a queue of what it missed."""
    paced = start_bot("paced", "--delay-ms", "1").address
    play = referee_stub.PlayMatch.future(
        referee_pb2.PlayMatchRequest(
            game="bid-euchre",
            bots=[paced, paced],
            seed=5,
            move_deadline=wire.duration(5.0),
            match_id="unread-1",
        )
    )
    request = referee_pb2.WatchMatchRequest(match_id="unread-1")
    for _ in range(200):
        stalled = referee_stub.WatchMatch(request)
        try:
            first = next(iter(stalled))
            break
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.NOT_FOUND  # not started yet
            threading.Event().wait(0.05)
    else:
        raise AssertionError("the match never reached the referee")
    result = play.result(timeout=WAIT_S)  # played to the end while ``stalled`` reads nothing
    assert result.end == referee_pb2.MATCH_END_COMPLETED
    everything = list(referee_stub.WatchMatch(request))
    assert everything[-1].kind == referee_pb2.MATCH_EVENT_KIND_ENDED
    seen = [first, *stalled]
    # A finished match keeps its last public table only; the stalled watcher got them all.
    assert [e.table_json for e in everything if e.table_json] == [
        [e.table_json for e in seen if e.table_json][-1]
    ]
    for event in [*seen, *everything]:
        event.ClearField("table_json")
    assert seen == everything  # and it missed nothing
