"""Referees and what they answer: a metered referee process, PlayMatch, a watcher's result."""

from __future__ import annotations

from pathlib import Path

from arena import wire
from arena.processes import Service, arena_command, free_port, start_service
from arena.v1 import referee_pb2, referee_pb2_grpc


def start_metered_referee(replay_dir: Path) -> tuple[Service, int]:
    """A referee process serving /metrics too; returns it and its metrics port."""
    port = free_port()
    service = start_service(
        arena_command(
            "referee", "serve", "--port", "0", "--replay-dir", str(replay_dir),
            "--metrics-port", str(port),
        )
    )  # fmt: skip
    return service, port


def with_addresses(
    watched: referee_pb2.MatchResult, result: referee_pb2.MatchResult
) -> referee_pb2.MatchResult:
    """A watcher's copy of ``result`` (WatchMatch names bots, never their addresses, and
    never sends the record) with the addresses and record put back, to compare with what
    the PlayMatch caller got."""
    assert not watched.HasField("log"), "a watcher got the match's record"
    restored = referee_pb2.MatchResult()
    restored.CopyFrom(watched)
    restored.log.CopyFrom(result.log)
    for team, played in zip(restored.teams, result.teams, strict=True):
        assert not set(team.bots) & set(played.bots), "a watcher learned a bot's address"
        team.bots[:] = played.bots
    return restored


def play(
    stub: referee_pb2_grpc.RefereeStub, bots: list[str], seed: int = 1, match_id: str = ""
) -> referee_pb2.MatchResult:
    request = referee_pb2.PlayMatchRequest(
        game="bid-euchre",
        bots=bots,
        seed=seed,
        move_deadline=wire.duration(2.0),
        match_id=match_id,
    )
    result: referee_pb2.MatchResult = stub.PlayMatch(request, timeout=120)
    return result
