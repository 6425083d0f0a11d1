"""TLS on the referee's API, on referee-to-bot channels and on the arena API, with
certificates made on the fly by a throwaway CA."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
import trustme

from arena.local_redis import LocalRedis
from arena.processes import Service, arena_command, start_service
from arena.tls import channel_credentials
from tests.support.arena import Arena
from tests.support.bots import BotFactory
from tests.support.database import next_database


@dataclass(frozen=True)
class Pki:
    ca: Path
    cert: Path
    key: Path
    client_cert: Path
    client_key: Path

    @property
    def server_flags(self) -> list[str]:
        return ["--tls-cert", str(self.cert), "--tls-key", str(self.key)]

    @property
    def client_flags(self) -> list[str]:
        return ["--tls-cert", str(self.client_cert), "--tls-key", str(self.client_key)]


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    directory = tmp_path_factory.mktemp("pki")
    authority = trustme.CA()
    issued = authority.issue_cert("127.0.0.1", "localhost")
    authority.cert_pem.write_to_path(str(directory / "ca.pem"))
    issued.private_key_pem.write_to_path(str(directory / "key.pem"))
    chain = directory / "cert.pem"
    chain.write_bytes(b"".join(blob.bytes() for blob in issued.cert_chain_pems))
    client = authority.issue_cert("arena-worker")
    client.private_key_pem.write_to_path(str(directory / "client-key.pem"))
    client_chain = directory / "client.pem"
    client_chain.write_bytes(b"".join(blob.bytes() for blob in client.cert_chain_pems))
    return Pki(
        directory / "ca.pem",
        chain,
        directory / "key.pem",
        client_chain,
        directory / "client-key.pem",
    )


@pytest.fixture(scope="module")
def tls_referee(pki: Pki, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    replays = tmp_path_factory.mktemp("tls-replays")
    service = start_service(
        arena_command(
            "referee", "serve", "--port", "0", "--replay-dir", str(replays),
            *pki.server_flags, "--bot-tls-ca", str(pki.ca),
        )
    )  # fmt: skip
    yield service
    service.stop()


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(arena_command(*args), capture_output=True, text=True, timeout=120)


def test_a_match_over_tls_end_to_end(tls_referee: Service, pki: Pki, start_bot: BotFactory) -> None:
    bots = [start_bot("random", "--seed", str(s), *pki.server_flags) for s in (1, 2)]
    played = arena(
        "match", "play", "--game", "bid-euchre", "--referee", tls_referee.address,
        "--tls-ca", str(pki.ca), "--bot", bots[0].address, "--bot", bots[1].address, "--json",
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    result = json.loads(played.stdout)
    assert result["end"] == "MATCH_END_COMPLETED"
    assert result["seat_faults"] == [0, 0, 0, 0]


def test_plaintext_peers_are_refused(tls_referee: Service, pki: Pki, start_bot: BotFactory) -> None:
    # A client that does not speak TLS cannot reach the referee: one line, exit 1.
    plain_client = arena("games", "--referee", tls_referee.address)
    assert plain_client.returncode == 1
    assert (
        plain_client.stderr.strip()
        == f"arena: error: cannot reach a referee at {tls_referee.address}"
    )
    # A plaintext bot cannot be reached by a referee that insists on TLS: a forfeit.
    plain = start_bot("random")
    secure = start_bot("random", *pki.server_flags)
    played = arena(
        "match", "play", "--game", "seep", "--referee", tls_referee.address,
        "--tls-ca", str(pki.ca), "--bot", plain.address, "--bot", secure.address, "--json",
    )  # fmt: skip
    # The record still prints as JSON; a seat never reached is a failure, exit 1.
    assert played.returncode == 1
    assert played.stderr.startswith(
        f"arena: error: could not reach the bot of seats 0, 2 at {plain.address}: "
    )
    result = json.loads(played.stdout)
    assert result["end"] == "MATCH_END_FORFEIT" and result["forfeit_team"] == 0
    assert {f["kind"] for f in result["faults"]} == {"FAULT_KIND_UNREACHABLE"}


def test_the_arena_api_over_tls(local_redis: LocalRedis, pki: Pki, start_bot: BotFactory) -> None:
    api = start_service(
        arena_command(
            "api", "serve", "--port", "0", "--redis", local_redis.url(next_database()),
            *pki.server_flags, "--bot-tls-ca", str(pki.ca),
        )
    )  # fmt: skip
    try:
        bot = start_bot("house", *pki.server_flags)
        where = ("--api", api.address, "--tls-ca", str(pki.ca))
        registered = arena("bot", "register", "house", bot.address, *where)
        assert registered.returncode == 0, registered.stderr
        listed = arena("bot", "list", *where)
        assert listed.stdout.startswith("house ")
        plain = arena("bot", "list", "--api", api.address)
        assert plain.returncode == 1 and "cannot reach the arena API" in plain.stderr
    finally:
        api.stop()


def test_a_bad_certificate_path_is_one_line(pki: Pki) -> None:
    done = arena(
        "referee",
        "serve",
        "--port",
        "0",
        "--tls-cert",
        "/nonexistent.pem",
        "--tls-key",
        str(pki.key),
    )
    assert done.returncode == 1
    assert done.stderr.startswith("arena: error: cannot read the TLS certificate /nonexistent.pem")
    half = arena("referee", "serve", "--port", "0", "--tls-cert", str(pki.cert))
    assert half.returncode == 1 and "give both --tls-cert and --tls-key" in half.stderr


def test_a_tournament_with_tls_everywhere(
    local_redis: LocalRedis, pki: Pki, tmp_path: Path
) -> None:
    """The referee requires mutual TLS, so the workers show it their certificate."""
    tls_referee = start_service(
        arena_command(
            "referee", "serve", "--port", "0", "--replay-dir", str(tmp_path / "replays"),
            *pki.server_flags, "--tls-client-ca", str(pki.ca), "--bot-tls-ca", str(pki.ca),
        )
    )  # fmt: skip
    url = local_redis.url(next_database())
    api = start_service(
        arena_command(
            "api", "serve", "--port", "0", "--redis", url, *pki.server_flags,
            "--bot-tls-ca", str(pki.ca),
        )
    )  # fmt: skip
    stack = Arena(url, tmp_path, tls_referee, api)
    stack.channel = grpc.secure_channel(api.address, channel_credentials(pki.ca))
    try:
        client = ["--referee-cert", str(pki.client_cert), "--referee-key", str(pki.client_key)]
        stack.start_worker(
            "tls", referees=[tls_referee.address], extra=["--referee-ca", str(pki.ca), *client]
        )
        stack.start_bot("house", "house", *pki.server_flags)
        stack.start_bot("rand", "random", *pki.server_flags)
        tournament = stack.wait_until(stack.submit(["house", "rand"], games=["baloot"]).id)
        assert tournament.matches_done == tournament.matches_total == 2
        assert tournament.forfeits == 0
    finally:
        stack.channel.close()
        stack.channel = None
        for service in [*stack.workers, *stack.bots.values(), api, tls_referee]:
            service.stop()


def test_a_worker_client_certificate_needs_its_key_and_a_ca(pki: Pki) -> None:
    for flags, message in (
        (
            ["--referee-cert", str(pki.client_cert)],
            "give both ARENA_REFEREE_CERT and ARENA_REFEREE_KEY",
        ),
        (
            ["--referee-cert", str(pki.client_cert), "--referee-key", str(pki.client_key)],
            "ARENA_REFEREE_CERT needs ARENA_REFEREE_CA",
        ),
    ):
        done = arena("worker", "--redis", "redis://127.0.0.1:1/0", *flags)
        assert done.returncode == 1
        assert done.stderr.startswith(f"arena: error: {message}")
        assert done.stderr.count("\n") == 1


def test_mutual_tls_lets_certificate_holders_play_without_a_token(
    pki: Pki, start_bot: BotFactory, tmp_path: Path
) -> None:
    referee = start_service(
        arena_command(
            "referee", "serve", "--port", "0", "--replay-dir", str(tmp_path),
            *pki.server_flags, "--tls-client-ca", str(pki.ca),
        )
    )  # fmt: skip
    try:
        assert not any("no token set" in line for line in referee.output)
        bot = start_bot("random")
        where = ("--referee", referee.address, "--tls-ca", str(pki.ca))
        played = arena(
            "match", "play", "--game", "seep", "--bot", bot.address, "--bot", bot.address,
            *where, *pki.client_flags,
        )  # fmt: skip
        assert played.returncode == 0, played.stderr
        # Without a client certificate the handshake fails: nothing reaches the referee.
        anonymous = arena("games", *where)
        assert anonymous.returncode == 1
        assert (
            anonymous.stderr.strip() == f"arena: error: cannot reach a referee at {referee.address}"
        )
    finally:
        referee.stop()
    half = arena("referee", "serve", "--port", "0", "--tls-client-ca", str(pki.ca))
    assert half.returncode == 1 and "--tls-client-ca needs --tls-cert and --tls-key" in half.stderr
