"""A referee's fault is not a bot's: when every remote bot of a match stops answering at
once, the referee has most likely lost its own network, so the match is abandoned
(UNAVAILABLE, nothing stored) to be played again elsewhere rather than stored as a
forfeit; a caller that says ``charge_cut_off`` (a worker after three failed attempts)
gets the forfeit. Both bots are real processes, killed together mid-match."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest

from arena import wire
from arena.processes import Service
from arena.v1 import referee_pb2, referee_pb2_grpc
from tests.support.bots import BotFactory


def play_and_cut(
    stub: referee_pb2_grpc.RefereeStub, start_bot: BotFactory, match_id: str, charge: bool
) -> tuple[referee_pb2.MatchResult | None, grpc.RpcError | None]:
    """Bid Euchre between two paced bots, both SIGKILLed once the match has begun."""
    bots: list[Service] = [start_bot("paced", "--delay-ms", "30") for _ in range(2)]
    request = referee_pb2.PlayMatchRequest(
        game="bid-euchre",
        bots=[b.address for b in bots],
        seed=4,
        match_id=match_id,
        move_deadline=wire.duration(0.5),
        fault_policy=referee_pb2.FaultPolicy(charge_cut_off=charge),
    )
    with ThreadPoolExecutor(1) as pool:
        match = pool.submit(stub.PlayMatch, request, timeout=120)
        watched = stub.WatchMatch(referee_pb2.WatchMatchRequest(match_id=match_id))
        for _ in range(400):
            try:
                for event in watched:
                    if event.kind == referee_pb2.MATCH_EVENT_KIND_GAME:
                        break  # a move was played: the match is under way
                break
            except grpc.RpcError as error:
                assert error.code() == grpc.StatusCode.NOT_FOUND, error
                threading.Event().wait(0.05)
                watched = stub.WatchMatch(referee_pb2.WatchMatchRequest(match_id=match_id))
        watched.cancel()  # type: ignore[no-untyped-call]
        for bot in bots:
            bot.kill()
        try:
            return match.result(), None
        except grpc.RpcError as error:
            return None, error


def test_every_bot_lost_at_once_abandons_the_match_and_stores_nothing(
    referee_stub: referee_pb2_grpc.RefereeStub, start_bot: BotFactory
) -> None:
    result, error = play_and_cut(referee_stub, start_bot, "cut-1", charge=False)
    assert result is None and error is not None
    assert error.code() == grpc.StatusCode.UNAVAILABLE
    assert "lost every bot of the match at once" in str(error.details())
    assert "nothing is stored" in str(error.details())
    with pytest.raises(grpc.RpcError) as unknown:
        referee_stub.GetReplay(referee_pb2.GetReplayRequest(replay_id="cut-1"))
    assert unknown.value.code() == grpc.StatusCode.NOT_FOUND


def test_a_caller_that_charges_cut_offs_gets_the_forfeit(
    referee_stub: referee_pb2_grpc.RefereeStub, start_bot: BotFactory
) -> None:
    result, error = play_and_cut(referee_stub, start_bot, "cut-2", charge=True)
    assert error is None and result is not None
    assert result.end == referee_pb2.MATCH_END_FORFEIT
    assert {f.kind for f in result.faults} == {referee_pb2.FAULT_KIND_UNREACHABLE}
