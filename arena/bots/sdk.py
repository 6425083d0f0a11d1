"""The Python bot SDK.

A bot is one class::

    class MyBot(Bot):
        name = "my-bot"
        games = ("GAME",)  # the games it plays, as arena.games.game_names() names them

        def act(self, request: ActRequest) -> int:
            return request.legal_actions[0].id

    serve(MyBot(), port=50051)

``act`` gets the whole ``arena.v1.ActRequest`` (the seat's typed observation in the
field named after the game, and the legal actions) and returns an action id. The SDK
serves both unary ``Act`` and the faster ``ActStream`` on an asyncio gRPC server and
calls ``act`` inline, the cheapest path for a quick bot. A bot whose decisions take a
while either defines ``async def act`` (it waits on the server's event loop, so every
seat keeps moving) or sets ``threaded = True`` for CPU work, which then runs in worker
threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

import grpc

from arena.tls import ServerTls, bind
from arena.v1 import bot_pb2, bot_pb2_grpc

if TYPE_CHECKING:
    Context: TypeAlias = grpc.aio.ServicerContext[Any, Any]

MAX_MESSAGE_BYTES = 4 * 1024 * 1024


class Bot:
    """Base class of Python bots; override ``act`` and set ``name`` and ``games``."""

    name: str = "bot"
    version: str = "1"
    games: tuple[str, ...] = ()
    supports_stream: bool = True
    """Offer ``ActStream``; set False to be asked by unary ``Act`` calls only."""
    threaded: bool = False
    """Run ``act`` in a worker thread instead of on the server's event loop."""

    def act(self, request: bot_pb2.ActRequest) -> int:
        raise NotImplementedError

    def match_ended(self, request: bot_pb2.MatchEndedRequest) -> None:
        """Called once per seat when a match is over; override to learn from it."""

    def close(self) -> None:
        """Called once when the server stops; release anything ``act`` may be waiting on."""


class _BotServicer(bot_pb2_grpc.BotServicer):
    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.is_async = inspect.iscoroutinefunction(bot.act)

    async def Hello(self, request: bot_pb2.HelloRequest, context: Context) -> bot_pb2.HelloResponse:
        return bot_pb2.HelloResponse(
            name=self.bot.name,
            version=self.bot.version,
            games=list(self.bot.games),
            supports_stream=self.bot.supports_stream,
        )

    async def _answer(self, request: bot_pb2.ActRequest) -> bot_pb2.ActResponse:
        if self.is_async:
            action = await self.bot.act(request)  # type: ignore[misc]
        elif self.bot.threaded:
            action = await asyncio.get_running_loop().run_in_executor(None, self.bot.act, request)
        else:
            action = self.bot.act(request)
        return bot_pb2.ActResponse(
            action_id=action, match_id=request.match_id, decision_index=request.decision_index
        )

    async def Act(self, request: bot_pb2.ActRequest, context: Context) -> bot_pb2.ActResponse:
        return await self._answer(request)

    async def ActStream(
        self, request_iterator: AsyncIterator[bot_pb2.ActRequest], context: Context
    ) -> AsyncIterator[bot_pb2.ActResponse]:
        async for request in request_iterator:
            yield await self._answer(request)

    async def MatchEnded(
        self, request: bot_pb2.MatchEndedRequest, context: Context
    ) -> bot_pb2.MatchEndedResponse:
        self.bot.match_ended(request)
        return bot_pb2.MatchEndedResponse()


HOSTED_ADDRESS_ENV = "ARENA_BOT_ADDRESS"
"""Where a hosted bot must listen; the arena's sandbox sets it (``arena.hosting``)."""


async def start(
    bot: Bot, port: int = 0, host: str = "127.0.0.1", tls: ServerTls | None = None
) -> tuple[grpc.aio.Server, int]:
    """Start serving ``bot`` (over TLS if given) on the running event loop; returns the
    server and its port."""
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
        ],
    )
    bot_pb2_grpc.add_BotServicer_to_server(_BotServicer(bot), server)
    hosted = os.environ.get(HOSTED_ADDRESS_ENV)
    address = hosted or f"{host}:{port}"
    bound = bind(server, address, tls)
    if bound == 0:
        raise OSError(f"cannot listen on {address}")
    await server.start()
    return server, bound


def serve(
    bot: Bot, port: int = 50051, host: str = "127.0.0.1", tls: ServerTls | None = None
) -> None:
    """Serve ``bot`` until SIGINT or SIGTERM; over TLS with ``tls``
    (``arena.tls.ServerTls.load(cert_file, key_file)``). Hosted by the arena, it listens
    where the arena says instead (``$ARENA_BOT_ADDRESS``, a Unix socket)."""
    run_until_stopped(bot, lambda: start(bot, port, host, tls), host)


class Stoppable(Protocol):
    """What a bot's server must offer ``run_until_stopped``: a gRPC server or not."""

    async def stop(self, grace: float | None) -> None: ...


def run_until_stopped(
    bot: Bot, starting: Callable[[], Awaitable[tuple[Stoppable, int]]], host: str
) -> None:
    """Start a bot's server, print the ready line the arena's tools wait for, and serve
    until SIGINT or SIGTERM."""

    async def main() -> None:
        server, bound = await starting()
        where = os.environ.get(HOSTED_ADDRESS_ENV) or f"{host}:{bound}"
        print(f"bot {bot.name} listening on {where}", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        bot.close()
        await server.stop(grace=1)

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main())
