"""Provable fair deals: the first public event commits to the seed, the replay reveals it,
and ``arena replay verify`` re-deals from it and checks every recorded move."""

from __future__ import annotations

import copy
import hashlib
import json
import re
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena import wire
from arena.games import game_names
from arena.processes import Service, arena_command, free_port, start_service
from arena.replay.verify import ReplayMismatch, verify_replay
from arena.v1 import referee_pb2, referee_pb2_grpc
from tests.support.bots import BotFactory
from tests.support.referee import with_addresses

Doc = dict[str, Any]


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(arena_command(*args), capture_output=True, text=True, timeout=120)


def independent_commitment(match_id: str, seed: int, salt: str) -> str:
    """The documented formula, recomputed here without the arena's code."""
    return hashlib.sha256(f"arena.v2 deal {match_id} {seed} {salt}".encode()).hexdigest()


@pytest.fixture(scope="module")
def house_bot() -> Iterator[Service]:
    service = start_service(arena_command("bot", "serve", "house", "--port", "0"))
    yield service
    service.stop()


def play(
    stub: referee_pb2_grpc.RefereeStub,
    game: str,
    bots: list[str],
    seed: int,
    match_id: str = "",
    max_faults: int = 0,
    options: dict[str, str] | None = None,
    deadline_s: float = 5.0,
) -> referee_pb2.MatchResult:
    request = referee_pb2.PlayMatchRequest(
        game=game,
        bots=bots,
        seed=seed,
        move_deadline=wire.duration(deadline_s),
        match_id=match_id,
        fault_policy=referee_pb2.FaultPolicy(max_faults=max_faults),
        options=options or {},
    )
    result: referee_pb2.MatchResult = stub.PlayMatch(request, timeout=120)
    return result


def replay_of(stub: referee_pb2_grpc.RefereeStub, result: referee_pb2.MatchResult) -> Doc:
    text = stub.GetReplay(referee_pb2.GetReplayRequest(replay_id=result.replay_id)).json
    document: Doc = json.loads(text)
    return document


def decisions(doc: Doc) -> list[Doc]:
    return [e["decision"] for h in doc["hands"] for e in h["log"] if "decision" in e]


def test_first_event_commits_to_the_seed_that_the_replay_reveals(
    referee_stub: referee_pb2_grpc.RefereeStub, basic_bot: Service, random_bot: Service
) -> None:
    match_id, seed = "fair-deal-41", 41
    outcome: list[referee_pb2.MatchResult] = []
    player = threading.Thread(
        target=lambda: outcome.append(
            play(
                referee_stub, "bid-euchre", [basic_bot.address, random_bot.address], seed, match_id
            )
        )
    )
    player.start()
    events: list[referee_pb2.MatchEvent] = []
    for _ in range(100):  # the match may not have reached the referee yet
        try:
            events = list(referee_stub.WatchMatch(referee_pb2.WatchMatchRequest(match_id=match_id)))
            break
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.NOT_FOUND
            threading.Event().wait(0.05)
    player.join()
    result = outcome[0]
    assert re.fullmatch("[0-9a-f]{32}", result.deal_salt)
    expected = independent_commitment(match_id, seed, result.deal_salt)
    first = events[0]
    assert first.kind == referee_pb2.MATCH_EVENT_KIND_STARTED
    assert first.deal_commitment == expected
    assert expected[:16] in first.text
    assert "seed" not in first.text  # the seed stays secret until the match is over
    assert [e.deal_commitment for e in events[1:]] == [""] * (len(events) - 1)
    assert result.deal_salt not in "".join(e.text for e in events[:-1])
    # After the match: the result and the replay reveal the seed that was committed to.
    assert with_addresses(events[-1].result, result) == result
    assert result.seed == seed and result.deal_commitment == expected
    replay = replay_of(referee_stub, result)
    assert replay["seed"] == seed
    assert replay["deal_commitment"] == expected
    assert replay["deal_salt"] == result.deal_salt
    assert (
        independent_commitment(replay["match_id"], replay["seed"], replay["deal_salt"]) == expected
    )
    verified = verify_replay(replay)
    assert verified.summary() == (
        f"verified: {match_id} (bid-euchre, seed {seed}, {result.decisions} decisions, "
        "commitment OK)"
    )


def test_a_real_match_of_every_game_verifies(
    referee_stub: referee_pb2_grpc.RefereeStub,
    replay_dir: Path,
    house_bot: Service,
    random_bot: Service,
) -> None:
    results: dict[str, referee_pb2.MatchResult] = {}

    def run(game: str) -> None:
        results[game] = play(referee_stub, game, [house_bot.address, random_bot.address], 77)

    threads = [threading.Thread(target=run, args=(game,)) for game in game_names()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == game_names()
    for game, result in results.items():
        assert result.end == referee_pb2.MATCH_END_COMPLETED, game
        doc = replay_of(referee_stub, result)
        verified = verify_replay(doc)
        assert (verified.game, verified.seed, verified.end) == (game, 77, "completed")
        assert verified.decisions == result.decisions == len(decisions(doc)) > 0
        assert verified.hands == len(doc["hands"]) > 0
    # The command itself, by id in the referee's replay directory and as a file.
    seep = results["seep"]
    by_id = arena("replay", "verify", seep.replay_id, "--replay-dir", str(replay_dir))
    assert (by_id.returncode, by_id.stderr) == (0, "")
    assert by_id.stdout == (
        f"verified: {seep.match_id} (seep, seed 77, {seep.decisions} decisions, commitment OK)\n"
    )
    path = replay_dir / f"{seep.replay_id}.json"
    as_json = arena("replay", "verify", str(path), "--json")
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout) == {
        "verified": True,
        "match_id": seep.match_id,
        "game": "seep",
        "seed": 77,
        "deal_commitment": seep.deal_commitment,
        "hands": len(json.loads(path.read_text())["hands"]),
        "decisions": seep.decisions,
        "end": "completed",
    }
    shown = arena("replay", "show", str(path))
    assert shown.stdout.splitlines()[1] == f"deal commitment: {seep.deal_commitment}"


def test_substituted_moves_verify_whether_the_match_completes_or_is_forfeited(
    referee_stub: referee_pb2_grpc.RefereeStub, start_bot: BotFactory, random_bot: Service
) -> None:
    chaos = start_bot("chaos", "--mode", "illegal", "--after", "3")
    bots = [chaos.address, random_bot.address]
    # With room for every fault, the referee plays the rest of the chaos team's moves.
    patient = play(referee_stub, "bid-euchre", bots, 8, max_faults=1000, options={"max_hands": "8"})
    assert patient.end == referee_pb2.MATCH_END_COMPLETED
    doc = replay_of(referee_stub, patient)
    substituted = [d for d in decisions(doc) if d["substituted"]]
    assert len(substituted) == len(patient.faults) > 10
    assert verify_replay(doc).decisions == patient.decisions
    # A substitute is fixed by the seed: neither it nor its fault can be rewritten.
    forged = copy.deepcopy(doc)
    fault = next(e["fault"] for h in forged["hands"] for e in h["log"] if "fault" in e)
    fault["substituted_action"] = "forged move"
    with pytest.raises(
        ReplayMismatch, match=r"the seed's substitute is '.+', the fault records 'forged move'"
    ):
        verify_replay(forged)
    forged = copy.deepcopy(doc)
    next(d for d in decisions(forged) if d["substituted"])["substituted"] = False
    with pytest.raises(ReplayMismatch, match="a fault precedes it, but the bot's own move"):
        verify_replay(forged)
    # With the default policy, the third fault forfeits: verified as far as it was played.
    strict = play(referee_stub, "bid-euchre", bots, seed=8)
    assert strict.end == referee_pb2.MATCH_END_FORFEIT and strict.forfeit_team == 0
    doc = replay_of(referee_stub, strict)
    assert sum(d["substituted"] for d in decisions(doc)) == 2
    verified = verify_replay(doc)
    assert (verified.end, verified.decisions) == ("forfeit", strict.decisions)


def test_a_match_that_never_started_verifies_as_far_as_it_went(
    referee_stub: referee_pb2_grpc.RefereeStub, random_bot: Service
) -> None:
    def closed_address() -> str:
        return f"127.0.0.1:{free_port()}"

    seatings = {
        "forfeit": [closed_address(), random_bot.address],
        "no_contest": [closed_address(), closed_address()],
    }
    results: dict[str, referee_pb2.MatchResult] = {}

    def run(end: str) -> None:
        # The referee waits max(2 s, deadline) for each Hello.
        results[end] = play(referee_stub, "baloot", seatings[end], seed=3, deadline_s=0.5)

    threads = [threading.Thread(target=run, args=(end,)) for end in seatings]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for end, result in results.items():
        doc = replay_of(referee_stub, result)
        assert doc["hands"] == [] and doc["faults"]
        verified = verify_replay(doc)
        assert (verified.end, verified.decisions, verified.hands) == (end, 0, 0)


@pytest.fixture(scope="module")
def played(
    referee_stub: referee_pb2_grpc.RefereeStub, house_bot: Service, random_bot: Service
) -> Doc:
    """A finished Bid Euchre match of a few hands, to tamper with."""
    result = play(referee_stub, "bid-euchre", [house_bot.address, random_bot.address], 19)
    doc = replay_of(referee_stub, result)
    assert len(doc["hands"]) >= 3
    return doc


def nth_decision(doc: Doc, hand: int, n: int = 4) -> Doc:
    """The nth decision logged in hand ``hand`` (1-based)."""
    found: list[Doc] = [e["decision"] for e in doc["hands"][hand - 1]["log"] if "decision" in e]
    return found[n]


def change_seed(doc: Doc) -> None:
    doc["seed"] += 1


def change_commitment(doc: Doc) -> None:
    doc["deal_commitment"] = "0" * 64


def change_seed_and_commit_to_it(doc: Doc) -> None:
    doc["seed"] += 1
    doc["deal_commitment"] = independent_commitment(doc["match_id"], doc["seed"], doc["deal_salt"])


def change_action(doc: Doc) -> None:
    decision = nth_decision(doc, 2)
    decision["action"] = 999


def change_action_text(doc: Doc) -> None:
    decision = nth_decision(doc, 2)
    decision["text"] = "pass" if decision["text"] != "pass" else "call 3"


def change_dealt_card(doc: Doc) -> None:
    hand = doc["hands"][1]["deal"][2]
    hand[0] = "AS" if hand[0] != "AS" else "AH"


def change_final_score(doc: Doc) -> None:
    doc["result"]["scores"][1] += 1


def drop_last_decision(doc: Doc) -> None:
    log = doc["hands"][-1]["log"]
    last = max(i for i, e in enumerate(log) if "decision" in e)
    del log[last]


def remove_commitment(doc: Doc) -> None:
    del doc["deal_commitment"]


def mark_a_move_as_substituted(doc: Doc) -> None:
    nth_decision(doc, 1, 0)["substituted"] = True


def number_of_decision(doc: Doc, hand: int, n: int = 4) -> int:
    index: int = nth_decision(doc, hand, n)["index"]
    return index


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        (
            change_seed,
            r"^deal commitment mismatch: sha256\('arena\.v2 deal \S+ 20 [0-9a-f]{32}'\) is "
            r"[0-9a-f]{64}, "
            r"the replay records [0-9a-f]{64}$",
        ),
        (change_commitment, r"^deal commitment mismatch: .* the replay records 0{64}$"),
        (change_seed_and_commit_to_it, r"^hand 1: seed 20 deals seat 0 .+, the replay says .+$"),
        (
            change_action,
            r"^hand 2, decision {d2} \(seat \d\): action id 999 \('[^']+'\) is not legal; "
            r"the legal ids are \d+ \(.+\)",
        ),
        (
            change_action_text,
            r"^hand 2, decision {d2} \(seat \d\): action id \d+ is '[^']+', "
            r"the replay's text is '(pass|call 3)'$",
        ),
        (
            change_dealt_card,
            r"^hand 2: seed 19 deals seat 2 (\w\w ){5}\w\w, the replay says A[SH]( \w\w){5}$",
        ),
        (
            change_final_score,
            r"^final scores are (-?\d+) : (-?\d+) by the engine, the replay says \1 : (?!\2)",
        ),
        (
            drop_last_decision,
            r"^hand \d+, after decision \d+: the replay logs event 'play' \('Seat \d plays .+'\), "
            r"but the engine has no further event there \(seat \d is to act first; "
            r"a decision missing\?\)$",
        ),
        (remove_commitment, r"^it records no deal commitment"),
        (
            mark_a_move_as_substituted,
            r"^hand 1, decision 0 \(seat \d\): marked as played by the referee, but no fault",
        ),
    ],
)
def test_tampering_is_caught_with_a_precise_message(
    played: Doc, tamper: Callable[[Doc], None], message: str
) -> None:
    assert verify_replay(played).end == "completed"
    doc = copy.deepcopy(played)
    tamper(doc)
    with pytest.raises(ReplayMismatch) as caught:
        verify_replay(doc)
    expected = message.replace("{d2}", str(number_of_decision(played, 2)))
    assert re.search(expected, str(caught.value)), str(caught.value)


def test_the_command_reports_a_tampered_or_garbled_replay_in_one_line(
    played: Doc, tmp_path: Path
) -> None:
    doc = copy.deepcopy(played)
    change_dealt_card(doc)
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(doc))
    done = arena("replay", "verify", str(tampered))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (f"arena: error: replay {tampered} does not verify: {_reason(doc)}\n")
    as_json = arena("replay", "verify", str(tampered), "--json")
    assert as_json.returncode == 1
    assert json.loads(as_json.stdout) == {
        "verified": False,
        "replay": str(tampered),
        "reason": _reason(doc),
    }

    truncated = tmp_path / "truncated.json"
    truncated.write_text(json.dumps(played)[:5000])
    garbled = tmp_path / "garbled.json"
    garbled.write_bytes(b"\xff\xfe{not json")
    not_a_replay = tmp_path / "list.json"
    not_a_replay.write_text("[1, 2, 3]")
    for path, reason in [
        (truncated, "does not verify: not valid JSON ("),
        (garbled, "is not a Card Arena replay (not UTF-8 text)"),
        (not_a_replay, "does not verify: the replay is not a JSON object"),
    ]:
        done = arena("replay", "verify", str(path))
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr.startswith("arena: error: ") and done.stderr.count("\n") == 1
        assert reason in done.stderr, done.stderr
        assert "Traceback" not in done.stderr


def _reason(doc: Doc) -> str:
    try:
        verify_replay(doc)
    except ReplayMismatch as mismatch:
        return str(mismatch)
    raise AssertionError("the tampered replay verified")
