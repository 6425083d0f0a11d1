"""The bot network policy in a real API and a real referee: RegisterBot and PlayMatch
refuse what it refuses, before dialling anything, and say what is allowed."""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import grpc
import pytest

from arena.local_redis import LocalRedis
from arena.processes import Service, arena_command, start_service
from arena.v1 import arena_pb2, arena_pb2_grpc, referee_pb2, referee_pb2_grpc
from tests.support.arena import Arena
from tests.support.bots import BotFactory
from tests.support.database import next_database


class ApiStarter(Protocol):
    """The start_api fixture: an API serving with these flags and environment."""

    def __call__(
        self, *flags: str, env: dict[str, str] | None = None
    ) -> arena_pb2_grpc.ArenaStub: ...


POLICY = "not allowed by the operator's bot network policy"


@pytest.fixture
def start_api(local_redis: LocalRedis) -> Iterator[ApiStarter]:
    started: list[Service] = []

    def start(*flags: str, env: dict[str, str] | None = None) -> arena_pb2_grpc.ArenaStub:
        url = local_redis.url(next_database())
        api = start_service(
            arena_command("api", "serve", "--port", "0", "--redis", url, *flags), env=env
        )
        started.append(api)
        return arena_pb2_grpc.ArenaStub(grpc.insecure_channel(api.address))

    yield start
    for api in started:
        api.stop()


def register(api: arena_pb2_grpc.ArenaStub, address: str) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as refused:
        api.RegisterBot(arena_pb2.RegisterBotRequest(name="b", address=address))
    return refused.value


def test_register_bot_refuses_metadata_link_local_and_unspecified_addresses(
    start_api: ApiStarter, start_bot: BotFactory
) -> None:
    api = start_api()
    bot = start_bot("random")
    port = bot.address.rpartition(":")[2]
    # A bot listens on 0.0.0.0:PORT as far as Linux is concerned (it means this host),
    # yet the address is refused: the policy looks at the address, not at what answers.
    for address in ("169.254.169.254:80", "[fe80::1]:80", "[fd00:ec2::254]:80", f"0.0.0.0:{port}"):
        refused = register(api, address)
        assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT, address
        assert POLICY in (refused.details() or ""), address
        assert "allowed: any address except link-local" in (refused.details() or "")
    # IPv6 addresses that lead to 169.254.169.254 through a translator or a tunnel.
    for address, form in (
        ("[64:ff9b::169.254.169.254]:80", "NAT64"),
        ("[2002:A9FE:a9fe::1]:80", "6to4"),
        ("[::ffff:0:a9fe:a9fe]:80", "IPv4-translated"),
    ):
        refused = register(api, address)
        assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT, address
        assert f"embeds 169.254.169.254 ({form}), a cloud metadata address" in (
            refused.details() or ""
        )
    assert api.RegisterBot(arena_pb2.RegisterBotRequest(name="b", address=bot.address)).name == "b"


def test_the_api_takes_its_policy_from_flags_or_the_environment(
    start_api: ApiStarter, start_bot: BotFactory
) -> None:
    bot = start_bot("random")
    port = bot.address.rpartition(":")[2]
    by_flag = start_api("--bot-networks-deny", "127.0.0.0/8")
    for address in (bot.address, f"localhost:{port}"):  # a name is checked where it leads
        refused = register(by_flag, address)
        assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert POLICY in (refused.details() or "")
        assert "except those in 127.0.0.0/8" in (refused.details() or "")
    by_env = start_api(env={"ARENA_BOT_ALLOW": "10.0.0.0/8"})
    refused = register(by_env, bot.address)
    assert "127.0.0.1 is outside the networks the operator allows" in (refused.details() or "")
    assert "allowed: addresses in 10.0.0.0/8" in (refused.details() or "")


def forfeits_refused(result: referee_pb2.MatchResult, team: int) -> str:
    """Check that ``team`` forfeited before play because its bot was refused; returns
    the fault's detail."""
    assert result.end == referee_pb2.MATCH_END_FORFEIT and result.forfeit_team == team
    assert result.decisions == 0
    (refused,) = [t for t in result.teams if t.team == team]
    assert sorted(f.seat for f in result.faults) == list(refused.seats)
    for fault in result.faults:
        assert fault.kind == referee_pb2.FAULT_KIND_UNREACHABLE and POLICY in fault.detail
    return result.faults[0].detail


def test_a_bot_the_referee_policy_refuses_forfeits_without_being_dialled(
    referee_stub: referee_pb2_grpc.RefereeStub, start_bot: BotFactory, tmp_path: Path
) -> None:
    bot = start_bot("random")
    port = bot.address.rpartition(":")[2]
    request = referee_pb2.PlayMatchRequest(
        game="seep", bots=[bot.address, f"0.0.0.0:{port}"], bot_names=["near", "far"]
    )
    detail = forfeits_refused(referee_stub.PlayMatch(request), team=1)
    # The detail names the bot, not where it listens: watchers and replays see it too.
    assert detail.startswith(f"bot address 'far' is {POLICY}: <address> is unspecified")
    assert port not in detail
    embedding = referee_pb2.PlayMatchRequest(
        game="seep", bots=[bot.address, "[64:ff9b::a9fe:a9fe]:80"], bot_names=["near", "far"]
    )
    detail = forfeits_refused(referee_stub.PlayMatch(embedding), team=1)
    assert detail.startswith(
        f"bot address 'far' is {POLICY}: <address> embeds <address> (NAT64), a cloud "
        "metadata address (169.254.169.254/32)"
    )

    narrow = start_service(
        arena_command(
            "referee", "serve", "--port", "0", "--replay-dir", str(tmp_path),
            "--bot-networks-allow", "127.0.0.1", "--bot-networks-deny", "127.0.0.2",
        )
    )  # fmt: skip
    try:
        with grpc.insecure_channel(narrow.address) as channel:
            stub = referee_pb2_grpc.RefereeStub(channel)
            for address in ("127.0.0.2:1", "127.0.0.3:1", "[::1]:1"):
                result = stub.PlayMatch(
                    referee_pb2.PlayMatchRequest(game="seep", bots=[address, bot.address])
                )
                forfeits_refused(result, team=0)
            nobody = stub.PlayMatch(
                referee_pb2.PlayMatchRequest(game="seep", bots=["127.0.0.2:1", "[::1]:1"])
            )
            assert nobody.end == referee_pb2.MATCH_END_NO_CONTEST and len(nobody.faults) == 4
            played = stub.PlayMatch(
                referee_pb2.PlayMatchRequest(game="seep", bots=[bot.address] * 2)
            )
            assert played.end == referee_pb2.MATCH_END_COMPLETED
            # Never dialled: a listener at the refused address has no connection waiting.
            with socket.create_server(("127.0.0.2", 0)) as listener:
                listener.setblocking(False)
                refused = f"127.0.0.2:{listener.getsockname()[1]}"
                result = stub.PlayMatch(
                    referee_pb2.PlayMatchRequest(game="seep", bots=[refused, bot.address])
                )
                forfeits_refused(result, team=0)
                with pytest.raises(BlockingIOError):
                    listener.accept()
    finally:
        narrow.stop()


def test_a_tournament_goes_on_when_its_referee_refuses_a_bot(
    local_redis: LocalRedis, tmp_path: Path
) -> None:
    """A bot the API accepted but the referee's policy refuses (a narrower policy, or one
    changed later) forfeits its matches: the tournament finishes instead of waiting."""
    url = local_redis.url(next_database())
    referee = start_service(
        arena_command(
            "referee", "serve", "--port", "0", "--replay-dir", str(tmp_path),
            "--bot-networks-deny", "127.0.0.2",
        )
    )  # fmt: skip
    api = start_service(arena_command("api", "serve", "--port", "0", "--redis", url))
    stack = Arena(url, tmp_path, referee, api)
    try:
        stack.start_worker("policy")
        stack.start_bot("near", "random")
        stack.start_bot("far", "random", "--host", "127.0.0.2")
        tournament = stack.wait_until(stack.submit(["near", "far"], games=["seep"]).id)
        assert tournament.matches_done == tournament.matches_total == tournament.forfeits == 2
        results = stack.stub.ListResults(
            arena_pb2.ListResultsRequest(tournament_id=tournament.id)
        ).results
        assert len(results) == 2
        for result in results:
            far = list(result.entries).index("far")
            assert result.forfeit_team == far and result.winner_team == 1 - far
    finally:
        stack.stop()


def test_a_bad_network_stops_the_server_with_one_line(local_redis: LocalRedis) -> None:
    for command in (
        ("referee", "serve", "--port", "0", "--bot-networks-deny", "10.0.0.1/8"),
        ("api", "serve", "--port", "0", "--redis", local_redis.url(next_database()),
         "--bot-networks-allow", "intranet"),
    ):  # fmt: skip
        done = subprocess.run(arena_command(*command), capture_output=True, text=True, timeout=60)
        assert done.returncode == 1
        assert done.stderr.count("\n") == 1 and done.stderr.startswith(
            "arena: error: --bot-networks-"
        )
