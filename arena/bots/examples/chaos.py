"""A misbehaving bot for testing the fault policy: each mode is one kind of fault.

Until ``after`` decisions of a match have been made (by any seat: its request's
``decision_index`` counts them), the bot plays like the random bot; then, in every later
decision of that match asked of it, it misbehaves as its mode says. (The decision index,
not a count per match token: each seat has its own token, and nothing tells the bot
which of its seats share a match.)

- ``hang``: never answers; the referee times out.
- ``late``: answers a legal id ``delay_ms`` (default 50 ms) after the request's
  ``deadline``; the referee has timed out by then.
- ``slow``: answers a legal id after ``delay_ms``.
- ``crash``: the process exits (status 3) instead of answering.
- ``illegal``: answers an id that is not in the legal list.
- ``error``: fails the call with gRPC status ``INTERNAL``.
- ``oversize``: answers with a message bigger than the referee's 4 MiB receive limit.
- ``wrong-match``: answers for another match.
- ``garbage``: answers with bytes that are not an ``ActResponse`` (nor any protobuf).

Two stream modes the referee must absorb without a fault, because every answer names
its decision (``ActResponse.decision_index``):

- ``double``: answers every request twice, as if a retry had gone out;
- ``stale``: sends again its answer to the previous decision before each new answer.

Two modes fail before the match can start:

- ``die-before``: answers ``after`` ``Hello`` calls (``--after 1`` survives
  ``arena bot register``), then the process exits (status 3) on the next ``Hello``, the
  one a referee sends before a match.
- ``mute``: not a gRPC server at all: it accepts TCP connections, holds them and never
  says a word.
- ``garbage-hello``: answers ``after`` ``Hello`` calls, then answers ``Hello`` with bytes
  that are not a ``HelloResponse``.

The misbehaviour lives in this module's server, not in ``act``: serve the bot with
``serve`` or ``start`` below (as ``arena bot serve chaos`` does). Misbehaving decisions
run on the event loop without blocking it, so a hanging decision never holds up the
bot's other conversations.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, TypeAlias

import grpc
from google.protobuf.message import Message

from arena.bots.examples.random_bot import RandomBot
from arena.bots.sdk import MAX_MESSAGE_BYTES, _BotServicer, run_until_stopped
from arena.v1 import bot_pb2

_BOT_SERVICE = bot_pb2.DESCRIPTOR.services_by_name["Bot"].full_name

if TYPE_CHECKING:
    Context: TypeAlias = grpc.aio.ServicerContext[Any, Any]

MODES = (
    "hang",
    "late",
    "slow",
    "crash",
    "illegal",
    "error",
    "oversize",
    "wrong-match",
    "garbage",
    "double",
    "stale",
    "die-before",
    "mute",
    "garbage-hello",
)
ABSORBED = ("double", "stale")
"""Modes that make no fault: stray stream answers, dropped by their decision index."""
EXIT_STATUS = 3
"""What ``crash`` and ``die-before`` exit with."""
LATE_MARGIN_MS = 50
"""How long after the deadline ``late`` answers, unless ``delay_ms`` says otherwise."""
OVERSIZE_BYTES = MAX_MESSAGE_BYTES + 64 * 1024
"""The size of ``oversize``'s answer: over the 4 MiB limit referees receive."""
GARBAGE = b"\xff" * 11
"""What ``garbage`` answers: a varint that never ends, which no protobuf parser takes."""


class ChaosBot(RandomBot):
    name = "chaos"

    def __init__(
        self, mode: str = "hang", after: int = 0, delay_ms: int = 0, seed: int = 0
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown chaos mode {mode!r}; modes: {', '.join(MODES)}")
        super().__init__(seed)
        self.mode = mode
        self.after = after
        self.delay_ms = delay_ms
        self.hellos = 0

    def misbehaves(self, request: bot_pb2.ActRequest) -> bool:
        """True once ``after`` decisions of the request's match have been made."""
        return request.decision_index >= self.after

    async def hello(self) -> bool:
        """Called on every ``Hello`` before the answer; ``die-before`` exits here. True
        when the answer should be garbage."""
        self.hellos += 1
        if self.mode == "die-before" and self.hellos > self.after:
            os._exit(EXIT_STATUS)
        return self.mode == "garbage-hello" and self.hellos > self.after

    async def answer(
        self, request: bot_pb2.ActRequest, context: Context
    ) -> bot_pb2.ActResponse | bytes:
        """The answer to one decision request, misbehaving as the mode says."""
        match_id = request.match_id
        if self.misbehaves(request):
            if self.mode == "hang":
                await asyncio.Event().wait()  # until the referee gives up and cancels
            elif self.mode == "late":
                deadline_s = request.deadline.ToTimedelta().total_seconds()
                await asyncio.sleep(deadline_s + (self.delay_ms or LATE_MARGIN_MS) / 1000)
            elif self.mode == "slow":
                await asyncio.sleep(self.delay_ms / 1000)
            elif self.mode == "crash":
                os._exit(EXIT_STATUS)
            elif self.mode == "illegal":
                illegal = max(a.id for a in request.legal_actions) + 1_000_000
                return bot_pb2.ActResponse(action_id=illegal, match_id=match_id)
            elif self.mode == "error":
                await context.abort(grpc.StatusCode.INTERNAL, "chaos bot: deliberate failure")
            elif self.mode == "oversize":
                match_id = "x" * OVERSIZE_BYTES
            elif self.mode == "wrong-match":
                match_id = "not-" + match_id
            elif self.mode == "garbage":
                return GARBAGE
        return bot_pb2.ActResponse(
            action_id=self.act(request), match_id=match_id, decision_index=request.decision_index
        )

    def strays(
        self, request: bot_pb2.ActRequest, answer: Any, last: Any
    ) -> tuple[list[Any], list[Any]]:
        """The stray answers of ``double`` and ``stale`` around ``answer``: (before, after)."""
        if not self.misbehaves(request):
            return [], []
        if self.mode == "stale" and last is not None:
            return [last], []
        if self.mode == "double":
            return [], [answer]
        return [], []


class _ChaosServicer(_BotServicer):
    def __init__(self, bot: ChaosBot) -> None:
        super().__init__(bot)
        self.chaos = bot

    async def Hello(  # type: ignore[override]
        self, request: bot_pb2.HelloRequest, context: Context
    ) -> bot_pb2.HelloResponse | bytes:
        if await self.chaos.hello():
            return GARBAGE
        return await super().Hello(request, context)

    async def Act(  # type: ignore[override]
        self, request: bot_pb2.ActRequest, context: Context
    ) -> bot_pb2.ActResponse | bytes:
        return await self.chaos.answer(request, context)

    async def ActStream(  # type: ignore[override]
        self, request_iterator: AsyncIterator[bot_pb2.ActRequest], context: Context
    ) -> AsyncIterator[bot_pb2.ActResponse | bytes]:
        last = None
        async for request in request_iterator:
            answer = await self.chaos.answer(request, context)
            before, after = self.chaos.strays(request, answer, last)
            for stray in [*before, answer, *after]:
                yield stray
            last = answer

    def handler(self) -> grpc.GenericRpcHandler[Any, Any]:
        """The Bot service, with a serializer that lets raw bytes (``garbage``) through."""

        def serialize(message: Message | bytes) -> bytes:
            return message if isinstance(message, bytes) else message.SerializeToString()

        def unary(method: Any, request: type[Message]) -> grpc.RpcMethodHandler[Any, Any]:
            return grpc.unary_unary_rpc_method_handler(
                method, request_deserializer=request.FromString, response_serializer=serialize
            )

        return grpc.method_handlers_generic_handler(
            _BOT_SERVICE,
            {
                "Hello": unary(self.Hello, bot_pb2.HelloRequest),
                "Act": unary(self.Act, bot_pb2.ActRequest),
                "MatchEnded": unary(self.MatchEnded, bot_pb2.MatchEndedRequest),
                "ActStream": grpc.stream_stream_rpc_method_handler(
                    self.ActStream,
                    request_deserializer=bot_pb2.ActRequest.FromString,
                    response_serializer=serialize,
                ),
            },
        )


class _MuteServer:
    """A TCP listener that accepts connections, reads and drops whatever arrives, and
    never writes a byte: to a gRPC client, a bot that never finishes its handshake."""

    def __init__(self) -> None:
        self.server: asyncio.Server | None = None

    async def start(self, host: str, port: int) -> int:
        self.server = await asyncio.start_server(self._hold, host, port)
        bound: int = self.server.sockets[0].getsockname()[1]
        return bound

    @staticmethod
    async def _hold(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError):
            while await reader.read(65536):
                pass
        writer.close()

    async def stop(self, grace: float | None) -> None:
        if self.server is not None:
            self.server.close()


async def start(
    bot: ChaosBot, port: int = 0, host: str = "127.0.0.1"
) -> tuple[grpc.aio.Server | _MuteServer, int]:
    """Start serving ``bot`` on the running event loop; returns the server and its port."""
    if bot.mode == "mute":
        mute = _MuteServer()
        return mute, await mute.start(host, port)
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", -1),  # oversize must get its answer out
        ],
    )
    server.add_generic_rpc_handlers((_ChaosServicer(bot).handler(),))
    bound = server.add_insecure_port(f"{host}:{port}")
    if bound == 0:
        raise OSError(f"cannot listen on {host}:{port}")
    await server.start()
    return server, bound


def serve(bot: ChaosBot, port: int = 50051, host: str = "127.0.0.1") -> None:
    """Serve ``bot`` until SIGINT or SIGTERM; prints the SDK's ready line."""
    run_until_stopped(bot, lambda: start(bot, port, host), host)
