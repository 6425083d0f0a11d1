"""The referee plays matches only for holders of its token: PlayMatch is refused
without it, the reads stay open, and the CLI and the workers send it."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.access import bearer
from arena.local_redis import LocalRedis
from arena.processes import Service, arena_command, start_service
from arena.v1 import arena_pb2, referee_pb2, referee_pb2_grpc
from tests.support.arena import Arena
from tests.support.bots import BotFactory
from tests.support.database import next_database

TOKEN = "referee-operator-token"


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "referee-token"
    path.write_text(TOKEN + "\n")
    return path


@pytest.fixture
def guarded_referee(token_file: Path, tmp_path: Path) -> Iterator[Service]:
    referee = start_service(
        arena_command(
            "referee", "serve", "--port", "0", "--replay-dir", str(tmp_path / "replays"),
            "--token-file", str(token_file),
        )
    )  # fmt: skip
    yield referee
    referee.stop()


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "ARENA_REFEREE_TOKEN"}
    return subprocess.run(
        arena_command(*args), capture_output=True, text=True, timeout=120, env={**environment, **(env or {})}
    )  # fmt: skip


def test_play_match_needs_the_token_and_reads_do_not(
    guarded_referee: Service, start_bot: BotFactory
) -> None:
    bot = start_bot("random")
    request = referee_pb2.PlayMatchRequest(game="seep", bots=[bot.address] * 2, match_id="m1")
    with grpc.insecure_channel(guarded_referee.address) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)
        with pytest.raises(grpc.RpcError) as missing:
            stub.PlayMatch(request)
        assert missing.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert missing.value.details() == (
            "PlayMatch makes the referee play a match and dial its bots and needs the "
            "operator's token: send the metadata 'authorization: Bearer TOKEN' (the arena "
            "command: --referee-token or $ARENA_REFEREE_TOKEN)"
        )
        with pytest.raises(grpc.RpcError) as wrong:
            stub.PlayMatch(request, metadata=(bearer("guess"),))
        assert wrong.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert "ARENA_REFEREE_TOKEN" in (wrong.value.details() or "")
        # Nothing was played: the id is still free, and no replay exists.
        with pytest.raises(grpc.RpcError) as absent:
            stub.GetReplay(referee_pb2.GetReplayRequest(replay_id="m1"))
        assert absent.value.code() == grpc.StatusCode.NOT_FOUND

        played = stub.PlayMatch(request, metadata=(bearer(TOKEN),))
        assert played.end == referee_pb2.MATCH_END_COMPLETED
        # Reads need nothing.
        assert stub.ListGames(referee_pb2.ListGamesRequest()).games
        assert stub.GetReplay(referee_pb2.GetReplayRequest(replay_id="m1")).json
        events = list(stub.WatchMatch(referee_pb2.WatchMatchRequest(match_id="m1")))
        assert events[-1].kind == referee_pb2.MATCH_EVENT_KIND_ENDED
        health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
        assert health.status == health_pb2.HealthCheckResponse.SERVING


def test_the_token_may_come_from_the_environment_and_none_is_announced(
    tmp_path: Path, start_bot: BotFactory
) -> None:
    by_env = start_service(
        arena_command("referee", "serve", "--port", "0", "--replay-dir", str(tmp_path)),
        env={"ARENA_REFEREE_TOKEN": TOKEN},
    )
    try:
        assert not any("no token set" in line for line in by_env.output)
        bot = start_bot("random")
        play = ("match", "play", "--game", "seep", "--bot", bot.address, "--bot", bot.address)
        refused = cli(*play, "--referee", by_env.address)
        assert refused.returncode == 1
        assert refused.stderr.count("\n") == 1 and "UNAUTHENTICATED" in refused.stderr
        assert "--referee-token" in refused.stderr and "Traceback" not in refused.stderr
        wrong = cli(*play, "--referee", by_env.address, "--referee-token", "nope")
        assert wrong.returncode == 1 and "PERMISSION_DENIED" in wrong.stderr
        by_flag = cli(*play, "--referee", by_env.address, "--referee-token", TOKEN)
        assert by_flag.returncode == 0, by_flag.stderr
        from_env = cli(*play, "--referee", by_env.address, env={"ARENA_REFEREE_TOKEN": TOKEN})
        assert from_env.returncode == 0, from_env.stderr
    finally:
        by_env.stop()
    open_referee = start_service(
        arena_command("referee", "serve", "--port", "0", "--replay-dir", str(tmp_path)),
        env={"ARENA_REFEREE_TOKEN": ""},
    )
    open_referee.stop()
    assert any(
        line.startswith("arena referee: no token set (ARENA_REFEREE_TOKEN or --token-file)")
        for line in open_referee.output
    )


def test_workers_send_the_token_and_a_tournament_waits_for_one_that_does(
    local_redis: LocalRedis, guarded_referee: Service, token_file: Path, tmp_path: Path
) -> None:
    url = local_redis.url(next_database())
    api = start_service(arena_command("api", "serve", "--port", "0", "--redis", url))
    arena = Arena(url, tmp_path, guarded_referee, api)
    try:
        arena.start_bot("a", "random", "--seed", "1")
        arena.start_bot("b", "random", "--seed", "2")
        tokenless = arena.start_worker("tokenless")
        tournament = arena.submit(["a", "b"], games=["seep"])
        deadline = time.monotonic() + 120
        while "UNAUTHENTICATED" not in arena.get(tournament.id).waiting.reason:
            assert time.monotonic() < deadline, arena.get(tournament.id)
            time.sleep(0.2)
        assert "ARENA_REFEREE_TOKEN" in arena.get(tournament.id).waiting.reason
        tokenless.stop()
        arena.workers.remove(tokenless)
        arena.start_worker("holder", extra=["--referee-token-file", str(token_file)])
        finished = arena.wait_until(tournament.id)
        assert finished.state == arena_pb2.TOURNAMENT_STATE_FINISHED
        assert finished.matches_done == finished.matches_total > 0
    finally:
        for service in [*arena.workers, *arena.bots.values(), api]:
            service.stop()
