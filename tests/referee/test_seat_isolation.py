"""What crosses the wire: each seat is asked for itself and sees only what it may know."""

from __future__ import annotations

import json
from pathlib import Path

from arena import wire
from arena.processes import Service
from arena.replay.record import seat_token
from arena.v1 import referee_pb2, referee_pb2_grpc
from tests.support.bots import BotFactory


def card_codes(node: object) -> set[str]:
    """Every card code anywhere in a JSON-decoded message."""
    if isinstance(node, dict):
        found = {node["code"]} if "code" in node and "rank" in node else set()
        for value in node.values():
            found |= card_codes(value)
        return found
    if isinstance(node, list):
        return set().union(*(card_codes(v) for v in node)) if node else set()
    return set()


def test_partners_are_separate_conversations_that_never_see_hidden_cards(
    tmp_path: Path,
    referee_stub: referee_pb2_grpc.RefereeStub,
    start_bot: BotFactory,
    basic_bot: Service,
) -> None:
    wiretap = tmp_path / "requests.jsonl"
    spy = start_bot("spy", "--out", str(wiretap))
    results = [
        referee_stub.PlayMatch(
            referee_pb2.PlayMatchRequest(
                game="bid-euchre",
                bots=[basic_bot.address, spy.address],
                seed=seed,
                move_deadline=wire.duration(2.0),
                match_id=f"isolation-{seed}",
            ),
            timeout=120,
        )
        for seed in range(1, 9)
    ]
    requests = [json.loads(line) for line in wiretap.read_text().splitlines()]
    assert {r["seat"] for r in requests} == {1, 3}
    assert all(r["team"] == 1 for r in requests)

    checked = 0
    for result in results:
        replay = json.loads(
            referee_stub.GetReplay(referee_pb2.GetReplayRequest(replay_id=result.replay_id)).json
        )
        # What each seat may know at each decision index: its deal, cards played so far,
        # and the cards of an ASK exchange it took part in.
        allowed: dict[int, dict[int, set[str]]] = {}
        for hand in replay["hands"]:
            played: set[str] = set()
            exchanged: dict[int, set[str]] = {s: set() for s in range(4)}
            for entry in hand["log"]:
                event = entry.get("event", {})
                if event.get("kind") in ("give", "return"):
                    for seat in event["visible_to"]:
                        exchanged[seat].add(event["data"]["card"])
                decision = entry.get("decision")
                if decision is None:
                    continue
                allowed[decision["index"]] = {
                    s: set(hand["deal"][s]) | played | exchanged[s] for s in range(4)
                }
                verb, _, card = decision["text"].partition(" ")
                if verb == "play":
                    played.add(card)
        for request in requests:
            seat = request["seat"]
            if request["matchId"] != seat_token(replay, seat):
                continue
            seen = card_codes(request["bidEuchre"])
            assert seen <= allowed[request.get("decisionIndex", 0)][seat], request
            hand = {c["code"] for c in request["bidEuchre"].get("hand", [])}
            assert hand <= allowed[request.get("decisionIndex", 0)][seat]
            checked += 1
    assert checked == len(requests) > 100
