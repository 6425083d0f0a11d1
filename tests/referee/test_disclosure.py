"""What bots and watchers learn of a match, by the request's disclosure: bots know a
match only by an opaque token, and a deal another match shares reaches nobody but the
PlayMatch caller."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena import wire
from arena.processes import Service
from arena.replay.record import seat_token
from arena.replay.verify import verify_replay
from arena.v1 import referee_pb2, referee_pb2_grpc
from tests.support.bots import BotFactory
from tests.support.referee import with_addresses

TOKEN = re.compile(r"[0-9a-f]{32}")


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def replay_of(
    stub: referee_pb2_grpc.RefereeStub, result: referee_pb2.MatchResult
) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(
        stub.GetReplay(referee_pb2.GetReplayRequest(replay_id=result.replay_id)).json
    )
    return document


def play(
    stub: referee_pb2_grpc.RefereeStub,
    bots: list[str],
    seed: int,
    match_id: str,
    disclosure: referee_pb2.DealDisclosure.ValueType = referee_pb2.DEAL_DISCLOSURE_UNSPECIFIED,
) -> tuple[referee_pb2.MatchResult, referee_pb2.MatchResult]:
    """The PlayMatch answer, and the result as a watcher's ENDED event shows it."""
    result: referee_pb2.MatchResult = stub.PlayMatch(
        referee_pb2.PlayMatchRequest(
            game="bid-euchre",
            bots=bots,
            seed=seed,
            move_deadline=wire.duration(5.0),
            match_id=match_id,
            disclosure=disclosure,
        ),
        timeout=120,
    )
    events = list(stub.WatchMatch(referee_pb2.WatchMatchRequest(match_id=match_id)))
    assert events[-1].kind == referee_pb2.MATCH_EVENT_KIND_ENDED
    return result, events[-1].result


@pytest.fixture
def spy(start_bot: BotFactory, tmp_path: Path) -> tuple[Service, Path, Path]:
    acts, ended = tmp_path / "acts.jsonl", tmp_path / "ended.jsonl"
    return start_bot("spy", "--out", str(acts), "--ended-out", str(ended)), acts, ended


def test_bots_know_a_match_only_by_an_opaque_token(
    referee_stub: referee_pb2_grpc.RefereeStub,
    basic_bot: Service,
    spy: tuple[Service, Path, Path],
) -> None:
    bot, acts, ended = spy
    ids = ["t0ab12-bid-euchre-3-7-a-1f2e3d4c", "t0ab12-bid-euchre-3-7-b-5a6b7c8d"]
    # As a worker plays an open tournament's matches (a public match would name its
    # replay, the match id, in MatchEnded).
    bots = [basic_bot.address, bot.address]
    results = [play(referee_stub, bots, 7, i, referee_pb2.DEAL_DISCLOSURE_BOTS)[0] for i in ids]
    seat_of = {r["matchId"]: r["seat"] for r in lines(acts)}
    tokens = set(seat_of)
    # One token per seat and match: the spy's two seats (partners) were told different
    # ones, so neither partners nor tables can be matched up by it.
    assert len(tokens) == 4 and all(TOKEN.fullmatch(t) for t in tokens)
    assert {r["matchId"] for r in lines(ended)} == tokens
    for result in results:
        replay = replay_of(referee_stub, result)
        # The replay lets its author find the match: it names each seat's token.
        assert {seat_token(replay, 1), seat_token(replay, 3)} <= tokens
        assert all(seat_of[seat_token(replay, s)] == s for s in (1, 3))
        assert len({seat_token(replay, s) for s in range(4)}) == 4
    # Nothing a bot receives names the tournament, the game's pairing, the deal or the half.
    sent = acts.read_text() + ended.read_text()
    assert "t0ab12" not in sent and "-7-" not in sent


def test_a_deal_kept_for_the_caller_reaches_neither_watchers_nor_bots(
    referee_stub: referee_pb2_grpc.RefereeStub,
    basic_bot: Service,
    spy: tuple[Service, Path, Path],
) -> None:
    bot, _, ended = spy
    result, watched = play(
        referee_stub,
        [basic_bot.address, bot.address],
        8,
        "kept-8",
        referee_pb2.DEAL_DISCLOSURE_CALLER,
    )
    # The caller gets everything, under an unguessable replay id.
    assert (
        result.seed == 8 and TOKEN.fullmatch(result.deal_salt) and TOKEN.fullmatch(result.replay_id)
    )
    replay = replay_of(referee_stub, result)
    assert verify_replay(replay).seed == 8
    # Watchers see the score and the commitment, not what would deal the cards.
    assert watched.deal_withheld and watched.deal_commitment == result.deal_commitment
    assert watched.seed == 0 and watched.deal_salt == "" and watched.replay_id == ""
    assert [t.score for t in watched.teams] == [t.score for t in result.teams]
    with pytest.raises(grpc.RpcError) as missing:
        referee_stub.GetReplay(referee_pb2.GetReplayRequest(replay_id="kept-8"))
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND
    # The bots learn how it ended (once per seat), not the deal another match may share.
    notices = lines(ended)
    assert sorted(n["seat"] for n in notices) == [1, 3]
    for notice in notices:
        assert "deals" not in notice and "replayId" not in notice and notice["scores"]


def test_a_deal_of_the_bots_alone_reaches_them_but_not_the_watchers(
    referee_stub: referee_pb2_grpc.RefereeStub,
    basic_bot: Service,
    spy: tuple[Service, Path, Path],
) -> None:
    bot, _, ended = spy
    result, watched = play(
        referee_stub, [basic_bot.address, bot.address], 9, "own-9", referee_pb2.DEAL_DISCLOSURE_BOTS
    )
    assert watched.deal_withheld and watched.seed == 0 and watched.replay_id == ""
    replay = replay_of(referee_stub, result)
    dealt = [hand["deal"] for hand in replay["hands"]]
    for notice in lines(ended):
        assert "replayId" not in notice
        told = [
            [[c["code"] for c in s.get("cards", [])] for s in d["seats"]] for d in notice["deals"]
        ]
        assert told == dealt


def test_a_public_deal_is_the_default_and_reaches_everyone(
    referee_stub: referee_pb2_grpc.RefereeStub,
    basic_bot: Service,
    spy: tuple[Service, Path, Path],
) -> None:
    bot, _, ended = spy
    result, watched = play(referee_stub, [basic_bot.address, bot.address], 10, "public-10")
    assert with_addresses(watched, result) == result and not watched.deal_withheld
    assert result.replay_id == "public-10"
    for notice in lines(ended):
        assert notice["replayId"] == "public-10" and notice["deals"]


def test_an_unknown_disclosure_is_refused(referee_stub: referee_pb2_grpc.RefereeStub) -> None:
    with pytest.raises(grpc.RpcError) as refused:
        referee_stub.PlayMatch(
            referee_pb2.PlayMatchRequest(
                game="bid-euchre",
                bots=["127.0.0.1:1", "127.0.0.1:2"],
                disclosure=7,  # type: ignore[arg-type]
            )
        )
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.value.details() == (
        "unknown disclosure 7; allowed: DEAL_DISCLOSURE_PUBLIC, DEAL_DISCLOSURE_BOTS, "
        "DEAL_DISCLOSURE_CALLER"
    )
