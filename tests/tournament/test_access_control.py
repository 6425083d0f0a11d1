"""Writes to the arena need the operator's token; reads stay open."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest

from arena.access import bearer
from arena.local_redis import LocalRedis
from arena.processes import Service, arena_command, start_service
from arena.v1 import arena_pb2, arena_pb2_grpc
from tests.support.bots import BotFactory
from tests.support.database import next_database

TOKEN = "s3cret-operator-token"


@pytest.fixture
def guarded_api(local_redis: LocalRedis, tmp_path: Path) -> Iterator[Service]:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    api = start_service(
        arena_command(
            "api", "serve", "--port", "0", "--redis", local_redis.url(next_database()),
            "--token-file", str(token_file),
        )
    )  # fmt: skip
    yield api
    api.stop()


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "ARENA_API_TOKEN"}
    return subprocess.run(
        arena_command(*args), capture_output=True, text=True, timeout=60, env={**environment, **(env or {})}
    )  # fmt: skip


def test_writes_need_the_token_and_reads_do_not(
    guarded_api: Service, start_bot: BotFactory
) -> None:
    bot = start_bot("random")
    register = arena_pb2.RegisterBotRequest(name="rand", address=bot.address)
    with grpc.insecure_channel(guarded_api.address) as channel:
        stub = arena_pb2_grpc.ArenaStub(channel)
        calls: dict[str, Callable[[tuple[tuple[str, str], ...]], object]] = {
            "RegisterBot": lambda md: stub.RegisterBot(register, metadata=md),
            "RemoveBot": lambda md: stub.RemoveBot(
                arena_pb2.RemoveBotRequest(name="rand"), metadata=md
            ),
            "SubmitTournament": lambda md: stub.SubmitTournament(
                arena_pb2.SubmitTournamentRequest(), metadata=md
            ),
            "ResumeTournament": lambda md: stub.ResumeTournament(
                arena_pb2.ResumeTournamentRequest(id="t1"), metadata=md
            ),
            "CancelTournament": lambda md: stub.CancelTournament(
                arena_pb2.CancelTournamentRequest(id="t1"), metadata=md
            ),
            "GetCollusionReport": lambda md: stub.GetCollusionReport(
                arena_pb2.GetCollusionReportRequest(tournament_id="t1"), metadata=md
            ),
        }
        for name, call in calls.items():
            with pytest.raises(grpc.RpcError) as missing:
                call(())
            assert missing.value.code() == grpc.StatusCode.UNAUTHENTICATED, name
            assert "ARENA_API_TOKEN" in (missing.value.details() or "")
            with pytest.raises(grpc.RpcError) as wrong:
                call((bearer("guess"),))
            assert wrong.value.code() == grpc.StatusCode.PERMISSION_DENIED, name
        assert not stub.ListBots(arena_pb2.ListBotsRequest()).bots  # nothing got through

        # The right token reaches the service itself, which validates as usual.
        with pytest.raises(grpc.RpcError) as validated:
            calls["SubmitTournament"]((bearer(TOKEN),))
        assert validated.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert stub.RegisterBot(register, metadata=(bearer(TOKEN),)).name == "rand"
        # Reads need nothing, but only the operator learns where a bot listens.
        (anonymous,) = stub.ListBots(arena_pb2.ListBotsRequest()).bots
        assert (anonymous.name, anonymous.address) == ("rand", "")
        (operator,) = stub.ListBots(arena_pb2.ListBotsRequest(), metadata=(bearer(TOKEN),)).bots
        assert operator.address == bot.address
        (guessed,) = stub.ListBots(arena_pb2.ListBotsRequest(), metadata=(bearer("g"),)).bots
        assert guessed.address == ""
        stub.ListTournaments(arena_pb2.ListTournamentsRequest())
        stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest())


def test_the_cli_sends_the_token_from_its_flag_its_file_or_the_environment(
    guarded_api: Service, start_bot: BotFactory, tmp_path: Path
) -> None:
    bot = start_bot("random")
    api = ("--api", guarded_api.address)
    refused = cli("bot", "register", "a", bot.address, *api)
    assert refused.returncode == 1
    assert refused.stderr.count("\n") == 1 and "UNAUTHENTICATED" in refused.stderr
    assert "Traceback" not in refused.stderr
    wrong = cli("bot", "register", "a", bot.address, *api, "--token", "nope")
    assert wrong.returncode == 1 and "PERMISSION_DENIED" in wrong.stderr
    by_flag = cli("bot", "register", "a", bot.address, *api, "--token", TOKEN)
    assert by_flag.returncode == 0, by_flag.stderr
    (tmp_path / "token").write_text(TOKEN + "\n")
    listed = cli("bot", "list", *api, "--token-file", str(tmp_path / "token"))
    assert listed.returncode == 0 and bot.address in listed.stdout, listed.stderr
    anonymous = cli("bot", "list", *api)
    assert "(operator only)" in anonymous.stdout and bot.address not in anonymous.stdout
    both = cli("bot", "list", *api, "--token", TOKEN, "--token-file", str(tmp_path / "token"))
    assert both.returncode == 2 and "not allowed with argument" in both.stderr
    by_env = cli("bot", "remove", "a", *api, env={"ARENA_API_TOKEN": TOKEN})
    assert by_env.returncode == 0, by_env.stderr
    listed = cli("bot", "list", *api)
    assert listed.returncode == 0 and "no bots registered" in listed.stdout


def test_an_empty_token_file_is_refused_in_one_line(
    local_redis: LocalRedis, tmp_path: Path
) -> None:
    (tmp_path / "empty").write_text("\n")
    started = cli(
        "api", "serve", "--port", "0", "--redis", local_redis.url(next_database()),
        "--token-file", str(tmp_path / "empty"),
    )  # fmt: skip
    assert started.returncode == 1
    assert started.stderr.strip() == f"arena: error: the token file {tmp_path / 'empty'} is empty"
