"""The bot network policy against the real thing. In a network namespace of its own a
bot answers at 169.254.169.254 and at IPv6 addresses that embed it; a plain gRPC client
reaches it at each, and so does a referee whose operator allows the address by name.
RegisterBot and PlayMatch under the default policy refuse every one before dialling:
the listener in front of the bot counts no connection while they run.

The test runs this module as a program under ``unshare --net --pid``: the namespace,
and whatever the program started in it, go when it ends, however it ends.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.local_redis import start_redis
from arena.processes import Service, arena_command, start_service
from arena.v1 import arena_pb2, arena_pb2_grpc, bot_pb2, bot_pb2_grpc, referee_pb2, referee_pb2_grpc

ROOT = Path(__file__).resolve().parents[2]
POLICY = "not allowed by the operator's bot network policy"
METADATA = "169.254.169.254"
FORMS = {  # the host as a caller types it -> the form the refusal names
    METADATA: "",
    "[::ffff:169.254.169.254]": "IPv4-mapped",
    "[::FFFF:A9FE:a9fe]": "IPv4-mapped",
    "[::ffff:0:a9fe:a9fe]": "IPv4-translated",
    "[::a9fe:a9fe]": "IPv4-compatible",
    "[64:ff9b::a9fe:a9fe]": "NAT64",
    "[0064:FF9B:0000::169.254.169.254]": "NAT64",
    "[64:ff9b:1:a9fe:a9:fe00::]": "NAT64 local-use, as a /48 prefix",
    "[2002:a9fe:a9fe::1]": "6to4",
    "[2001:0:a9fe:a9fe::5601:5601]": "Teredo server",
}
WHAT = "a cloud metadata address (169.254.169.254/32)"
NAT64 = "[64:ff9b::a9fe:a9fe]"
"""The form a referee is allowed to dial, to show that the listener would see it."""


def test_embedded_forms_are_refused_before_dialling_a_bot_that_answers_there() -> None:
    unshare = ["unshare", "--net", "--pid", "--kill-child"]
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        pytest.skip("needs unshare (util-linux) and ip (iproute2) for a network namespace")
    tried = subprocess.run([*unshare, "ip", "link", "set", "lo", "up"], capture_output=True)
    if tried.returncode != 0:
        pytest.skip(f"cannot make a network namespace here: {tried.stderr.decode().strip()}")
    done = subprocess.run(
        [*unshare, sys.executable, "-m", "tests.access.test_bot_network_namespace"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.splitlines()[-1])

    # The bot answers at every address: a refusal is the policy's, not the network's.
    assert seen["hello"] == {host: "random" for host in FORMS}, seen["interface"]
    for host, form in FORMS.items():
        code, detail = seen["register"][host]
        assert code == "INVALID_ARGUMENT", (host, detail)
        says = f"embeds {METADATA} ({form}), {WHAT}" if form else f"is {WHAT}"
        assert f"{POLICY}: {host} {says};" in detail, detail
        end, forfeit, faults = seen["play"][host]
        assert (end, forfeit) == ("MATCH_END_FORFEIT", 0), (host, faults)
        # Watchers see the fault: the referee hides the addresses in it.
        says = f"embeds <address> ({form}), {WHAT}" if form else f"is {WHAT}"
        assert faults and all(f"{POLICY}: <address> {says};" in f for f in faults), faults
    assert seen["accepted_while_refusing"] == 0
    # The same referee code dials it when the operator allows both addresses by name.
    assert seen["allowed_play"] == "MATCH_END_COMPLETED"
    assert seen["accepted_by_allowed_referee"] > 0
    assert seen["accepted_by_hello"] >= len(FORMS)


class CountingProxy:
    """Listens on every address of the namespace ([::] and, dual-stack, 0.0.0.0), counts
    the connections it accepts and pipes each to ``target``."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.accepted = 0
        self.server = socket.create_server(("::", 0), family=socket.AF_INET6, dualstack_ipv6=True)
        self.port: int = self.server.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                client, _ = self.server.accept()
                self.accepted += 1
                upstream = socket.create_connection(self.target)
                for source, sink in ((client, upstream), (upstream, client)):
                    threading.Thread(target=_pipe, args=(source, sink), daemon=True).start()


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


def add_interface() -> tuple[str, str]:
    """An interface to carry the addresses, and its kind: a dummy one, or a veth pair
    where the kernel has no dummy driver (as in some containers), or, failing both, lo."""
    for kind in (["dummy"], ["veth", "peer", "name", "d1"]):
        made = subprocess.run(["ip", "link", "add", "d0", "type", *kind], capture_output=True)
        if made.returncode == 0:
            for name in ("d0", "d1") if kind[0] == "veth" else ("d0",):
                ip("link", "set", name, "up")
            return "d0", kind[0]
    return "lo", "loopback"


def bring_up_addresses() -> str:
    """Put the metadata address and each IPv6 form on an interface; says which."""
    ip("link", "set", "lo", "up")
    interface, kind = add_interface()
    ip("addr", "add", f"{METADATA}/32", "dev", interface)
    ipv6 = {ipaddress.IPv6Address(host[1:-1]) for host in FORMS if host.startswith("[")}
    for address in ipv6:
        if address.ipv4_mapped is None:  # that one is 169.254.169.254 on the wire
            ip("-6", "addr", "add", f"{address}/128", "dev", interface, "nodad")
    return f"{interface} ({kind})"


@contextlib.contextmanager
def stopping(services: list[Service]) -> Iterator[list[Service]]:
    try:
        yield services
    finally:
        for service in reversed(services):
            service.stop()


def register_each(api: str, addresses: dict[str, str]) -> dict[str, tuple[str, str]]:
    """RegisterBot's status code and details for each address."""
    answers = {}
    with grpc.insecure_channel(api) as channel:
        stub = arena_pb2_grpc.ArenaStub(channel)
        for host, address in addresses.items():
            try:
                stub.RegisterBot(
                    arena_pb2.RegisterBotRequest(name="b", address=address), timeout=30
                )
                answers[host] = ("OK", "")
            except grpc.RpcError as error:
                answers[host] = (error.code().name, error.details() or "")
    return answers


def play_each(referee: str, addresses: dict[str, str], other: str) -> dict[str, Any]:
    """How a match of each address against ``other`` ends: the end, the team that
    forfeited and the faults' details."""
    ends = {}
    with grpc.insecure_channel(referee) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)
        for host, address in addresses.items():
            result = stub.PlayMatch(
                referee_pb2.PlayMatchRequest(game="seep", bots=[address, other]), timeout=60
            )
            ends[host] = (
                referee_pb2.MatchEnd.Name(result.end),
                result.forfeit_team,
                [f.detail for f in result.faults],
            )
    return ends


def hello_each(addresses: dict[str, str]) -> dict[str, str]:
    """The name the bot gives in answer to Hello at each address, or the error."""
    names = {}
    for host, address in addresses.items():
        with grpc.insecure_channel(address) as channel:
            try:
                hello = bot_pb2_grpc.BotStub(channel).Hello(bot_pb2.HelloRequest(), timeout=10)
                names[host] = hello.name
            except grpc.RpcError as error:
                names[host] = str(error)
    return names


def in_the_namespace() -> dict[str, Any]:
    """What the API, the referees and a plain client do with each form; run as root in a
    fresh network namespace (``__main__``)."""
    seen: dict[str, Any] = {"interface": bring_up_addresses()}
    redis = start_redis()
    replays = tempfile.mkdtemp()
    referee = ("referee", "serve", "--port", "0", "--replay-dir", replays)
    try:
        with stopping([]) as services:
            bot = start_service(arena_command("bot", "serve", "random", "--port", "0"))
            services.append(bot)
            bot_host, bot_port = bot.address.rsplit(":", 1)
            proxy = CountingProxy((bot_host, int(bot_port)))
            addresses = {host: f"{host}:{proxy.port}" for host in FORMS}
            api = start_service(
                arena_command("api", "serve", "--port", "0", "--redis", redis.url())
            )
            services.append(api)
            services.append(start_service(arena_command(*referee)))

            seen["register"] = register_each(api.address, addresses)
            seen["play"] = play_each(services[-1].address, addresses, bot.address)
            seen["accepted_while_refusing"] = proxy.accepted

            seen["hello"] = hello_each(addresses)
            seen["accepted_by_hello"] = proxy.accepted - seen["accepted_while_refusing"]

            before = proxy.accepted
            allow = f"{METADATA},{NAT64[1:-1]},{bot_host}"
            services.append(start_service(arena_command(*referee, "--bot-networks-allow", allow)))
            ((end, _, _),) = play_each(
                services[-1].address, {NAT64: addresses[NAT64]}, bot.address
            ).values()
            seen["allowed_play"] = end
            seen["accepted_by_allowed_referee"] = proxy.accepted - before
    finally:
        redis.stop()
        shutil.rmtree(replays, ignore_errors=True)
    return seen


if __name__ == "__main__":
    print(json.dumps(in_the_namespace()))
