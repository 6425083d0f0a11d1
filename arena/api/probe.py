"""RegisterBot's probe of a bot: its Hello, and what the caller may learn of a failure.

The probe dials an address the caller chose, so the operator's bot network policy says
where it may (``arena.bot_networks``). Past that, how a probe fails (refused, timed out,
a web server's 404, a TLS handshake) would tell a caller what listens where on the API's
network. A caller without the operator's token is told only that no bot answered, after
as long as a timeout would take whatever happened; the detail goes to the API's log. An
API with a token lets only its holders call RegisterBot (``arena.access``), and tells
them the detail.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

import grpc

from arena.bot_networks import AddressRefused, BotNetworks, resolve
from arena.referee.bot_client import BotConnection, BotFault
from arena.v1 import bot_pb2, referee_pb2

HELLO_TIMEOUT_S = 5.0
log = logging.getLogger(__name__)


class Unregistrable(Exception):
    """The bot cannot be registered; the message is for the caller."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code


def no_bot_answered(address: str) -> str:
    return (
        f"bot at {address} is unreachable or not a bot: check that an arena.v1.Bot gRPC "
        "service listens there and that the arena can reach it (`arena bot check "
        f"{address}` shows what goes wrong from where you are; the API's log has the detail)"
    )


@dataclass(frozen=True)
class Probe:
    networks: BotNetworks
    credentials: grpc.ChannelCredentials | None = None
    detailed: bool = False
    """Whether callers learn why a probe failed: they hold the operator's token."""

    async def hello(self, address: str) -> bot_pb2.HelloResponse:
        """The bot's answer to Hello, or ``Unregistrable``."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        resolved = await resolve(address)
        try:
            self.networks.check(address, resolved)
        except AddressRefused as error:
            raise Unregistrable(grpc.StatusCode.INVALID_ARGUMENT, str(error)) from None
        try:
            return await self._hello(address, bool(resolved))
        except BotFault as fault:
            log.warning(
                "RegisterBot: the bot at %s did not answer Hello: %s", address, fault.detail
            )
            if self.detailed:
                message = f"bot at {address} did not answer Hello: {fault.detail}"
            else:
                await asyncio.sleep(max(0.0, started + HELLO_TIMEOUT_S - loop.time()))
                message = no_bot_answered(address)
            raise Unregistrable(grpc.StatusCode.FAILED_PRECONDITION, message) from None

    async def _hello(self, address: str, resolves: bool) -> bot_pb2.HelloResponse:
        if not resolves:
            raise BotFault(referee_pb2.FAULT_KIND_UNREACHABLE, "its host name does not resolve")
        connection = BotConnection.open(address, self.credentials)
        try:
            return await connection.say_hello(HELLO_TIMEOUT_S)
        finally:
            await connection.close()
