"""WatchMatch streams public events only; health and reflection answer like any gRPC server."""

from __future__ import annotations

import json
import socket
import threading

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from arena import wire
from arena.processes import Service
from arena.referee.match import redact
from arena.v1 import bot_pb2, bot_pb2_grpc, referee_pb2, referee_pb2_grpc
from tests.support.bots import BotFactory
from tests.support.referee import with_addresses


def test_watch_streams_public_events_in_order_and_ends_with_the_result(
    referee: Service,
    referee_stub: referee_pb2_grpc.RefereeStub,
    basic_bot: Service,
    random_bot: Service,
) -> None:
    request = referee_pb2.PlayMatchRequest(
        game="bid-euchre",
        bots=[basic_bot.address, random_bot.address],
        seed=31,
        move_deadline=wire.duration(2.0),
        match_id="watched-31",
        bot_names=["basic", "rand"],
    )
    outcome: list[referee_pb2.MatchResult] = []
    player = threading.Thread(target=lambda: outcome.append(referee_stub.PlayMatch(request)))
    player.start()
    events: list[referee_pb2.MatchEvent] = []
    for _ in range(50):  # the match may not have reached the referee yet
        try:
            events = list(
                referee_stub.WatchMatch(referee_pb2.WatchMatchRequest(match_id="watched-31"))
            )
            break
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.NOT_FOUND
            threading.Event().wait(0.05)
    player.join()
    assert [e.sequence for e in events] == list(range(len(events)))
    assert events[0].kind == referee_pb2.MATCH_EVENT_KIND_STARTED
    assert events[-1].kind == referee_pb2.MATCH_EVENT_KIND_ENDED
    # Watchers get the caller's result, but bots by name: never where they listen.
    assert events[0].text.endswith("seat 0 basic, seat 1 rand, seat 2 basic, seat 3 rand")
    assert [list(t.bots) for t in outcome[0].teams] == [
        [basic_bot.address] * 2,
        [random_bot.address] * 2,
    ]
    assert [list(t.bots) for t in events[-1].result.teams] == [["basic"] * 2, ["rand"] * 2]
    assert with_addresses(events[-1].result, outcome[0]) == outcome[0]
    kinds = {e.game_kind for e in events if e.kind == referee_pb2.MATCH_EVENT_KIND_GAME}
    assert {"call", "play"} <= kinds
    assert "deal" not in kinds
    # Nothing private: no event text names a card that was still hidden at that moment.
    replay = json.loads(
        referee_stub.GetReplay(referee_pb2.GetReplayRequest(replay_id="watched-31")).json
    )
    private = [
        e["event"]["text"]
        for h in replay["hands"]
        for e in h["log"]
        if "event" in e and "visible_to" in e["event"]
    ]
    for address in (basic_bot.address, random_bot.address):
        assert address not in str(events) and address not in json.dumps(replay)
    assert [seat["bot"] for seat in replay["seats"]] == ["basic", "rand", "basic", "rand"]
    public_texts = {e.text for e in events}
    assert not public_texts & set(private)
    plays = [e for e in events if e.game_kind == "play"]
    decisions = [e["decision"] for h in replay["hands"] for e in h["log"] if "decision" in e]
    assert len(plays) == sum(d["text"].startswith("play") for d in decisions)


def test_watchers_never_learn_a_bot_address_from_a_fault(
    referee_stub: referee_pb2_grpc.RefereeStub, random_bot: Service
) -> None:
    """gRPC's own error text names the address it failed to reach; the fault's detail,
    which watchers and the replay see, names the bot instead."""
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        dead = f"127.0.0.1:{closed.getsockname()[1]}"
    result = referee_stub.PlayMatch(
        referee_pb2.PlayMatchRequest(
            game="seep", bots=[random_bot.address, dead], match_id="dead-seat"
        )
    )
    assert result.end == referee_pb2.MATCH_END_FORFEIT and result.forfeit_team == 1
    events = list(referee_stub.WatchMatch(referee_pb2.WatchMatchRequest(match_id="dead-seat")))
    replay = referee_stub.GetReplay(referee_pb2.GetReplayRequest(replay_id="dead-seat")).json
    faults = [e.fault for e in events if e.kind == referee_pb2.MATCH_EVENT_KIND_FAULT]
    assert faults and all(f.kind == referee_pb2.FAULT_KIND_UNREACHABLE for f in faults)
    port = dead.rpartition(":")[2]
    for seen in (str(events), replay, str(list(result.faults))):
        assert port not in seen and random_bot.address not in seen


def test_redaction_keeps_addresses_out_of_what_grpc_says() -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    for address in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"):
        with grpc.insecure_channel(address) as channel, pytest.raises(grpc.RpcError) as failed:
            bot_pb2_grpc.BotStub(channel).Hello(bot_pb2.HelloRequest(), timeout=5)
        said = failed.value.details() or ""
        assert str(port) in said, said  # what gRPC says names the address...
        public = redact(said, {address: "bot 2"})
        assert str(port) not in public and "127.0.0.1" not in public, public  # ...this not
    assert redact("allowed: addresses in 10.0.0.0/8", {}) == "allowed: addresses in 10.0.0.0/8"


def test_watching_an_unknown_match_is_not_found(referee_stub: referee_pb2_grpc.RefereeStub) -> None:
    try:
        list(referee_stub.WatchMatch(referee_pb2.WatchMatchRequest(match_id="never-played")))
    except grpc.RpcError as error:
        assert error.code() == grpc.StatusCode.NOT_FOUND
        assert "never-played" in (error.details() or "")
    else:
        raise AssertionError("WatchMatch of an unknown match must fail")


def test_health_service_reports_serving(referee: Service) -> None:
    with grpc.insecure_channel(referee.address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for service in ("", "arena.v1.Referee"):
            answer = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
            assert answer.status == health_pb2.HealthCheckResponse.SERVING


def test_reflection_lists_the_referee_service(referee: Service) -> None:
    with grpc.insecure_channel(referee.address) as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        response = next(stub.ServerReflectionInfo(iter([request]), timeout=5))
        names = {s.name for s in response.list_services_response.service}
    assert {"arena.v1.Referee", "grpc.health.v1.Health"} <= names


def test_watchers_are_released_when_the_caller_abandons_a_match(
    referee_stub: referee_pb2_grpc.RefereeStub, start_bot: BotFactory, basic_bot: Service
) -> None:
    slow = start_bot("chaos", "--mode", "hang")
    call = referee_stub.PlayMatch.future(
        referee_pb2.PlayMatchRequest(
            game="bid-euchre",
            bots=[slow.address, basic_bot.address],
            seed=1,
            move_deadline=wire.duration(30.0),
            match_id="abandoned-1",
        )
    )
    watch = referee_stub.WatchMatch(referee_pb2.WatchMatchRequest(match_id="abandoned-1"))
    for _ in range(100):
        try:
            first = next(iter(watch))
            break
        except grpc.RpcError:  # not started yet
            threading.Event().wait(0.05)
            watch = referee_stub.WatchMatch(referee_pb2.WatchMatchRequest(match_id="abandoned-1"))
    assert first.kind == referee_pb2.MATCH_EVENT_KIND_STARTED
    call.cancel()  # type: ignore[no-untyped-call]  # grpc-stubs: Call.cancel is unannotated
    rest = list(watch)
    assert rest[-1].kind == referee_pb2.MATCH_EVENT_KIND_ENDED
    assert "abandoned" in rest[-1].text
    assert not rest[-1].HasField("result")
