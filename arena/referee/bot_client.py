"""The referee's side of the Bot service: one channel per bot, one conversation per seat.

A seat talks to its bot either by unary ``Act`` calls or, when the bot's ``Hello`` offers
it, on one ``ActStream`` kept open for the match. Requests arrive already serialized
(``arena.wire_bytes``) and go out as they are. A stream that misses a deadline is
dropped and reopened for the next decision, so a late answer can never be taken for the
answer to a later question.

A bot that cannot be reached is waited for until the decision's time is up, as a slow
one is: a refused connection fails in a millisecond, and counting each refusal as a
fault would forfeit a bot that restarts on its port in less than a deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

import grpc
from google.protobuf.message import DecodeError

from arena import __version__
from arena.match_rules.faults import FaultKind
from arena.referee.deadline import SeatDeadline
from arena.v1 import bot_pb2, bot_pb2_grpc, referee_pb2

if TYPE_CHECKING:
    from arena.v1.bot_pb2_grpc import BotAsyncStub

_EOF: Any = grpc.aio.EOF  # type: ignore[attr-defined]  # missing from grpc-stubs

log = logging.getLogger(__name__)
MAX_MESSAGE_BYTES = 4 * 1024 * 1024
_BOT_SERVICE = bot_pb2.DESCRIPTOR.services_by_name["Bot"].full_name
NO_ANSWER = "no answer before the deadline"
NOT_REACHED = "could not reach the bot within"
STREAM_CLOSED = "the bot closed its stream"
RETRY_PAUSE_S = 0.05
"""The pause before asking again a bot that said UNAVAILABLE, so that a live bot that
keeps saying it is not asked in a tight loop until the deadline."""
CHANNEL_OPTIONS = [
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    # Each bot gets its own connection, even when several seats share one address.
    ("grpc.use_local_subchannel_pool", 1),
    # A bot back on its port is found within half a second, not after gRPC's default
    # backoff, which grows to two minutes while it is away.
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 500),
]


class BotFault(Exception):
    """A decision failed; ``kind`` is an ``arena.v1.FaultKind``. ``caller_detail``, if
    set, is a fuller detail for the PlayMatch caller only, such as a hosted bot's own
    output, which watchers and replays never see."""

    def __init__(self, kind: FaultKind, detail: str, caller_detail: str | None = None) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.caller_detail = caller_detail


Message = TypeVar("Message", bot_pb2.ActResponse, bot_pb2.HelloResponse)


def parse_or_none(message: type[Message]) -> Callable[[bytes], Message | None]:
    """A response deserializer that answers None for bytes that do not parse, instead of
    raising inside grpc (which logs a traceback and hands the caller None anyway)."""

    def parse(data: bytes) -> Message | None:
        try:
            return message.FromString(data)
        except DecodeError:
            return None

    return parse


def garbled(what: str) -> BotFault:
    return BotFault(
        referee_pb2.FAULT_KIND_RPC_ERROR,
        f"the answer is not an arena.v1.{what}: its bytes do not parse as one",
    )


def fault_from_rpc_error(error: grpc.aio.AioRpcError) -> BotFault:
    return fault_from_status(error.code(), error.details())


def fault_from_status(code: grpc.StatusCode, details: str | None) -> BotFault:
    """The fault for a call that ended with a status other than OK."""
    detail = f"{code.name}: {details or ''}".strip()
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return BotFault(referee_pb2.FAULT_KIND_TIMEOUT, NO_ANSWER)
    if code == grpc.StatusCode.UNAVAILABLE:
        return BotFault(referee_pb2.FAULT_KIND_UNREACHABLE, detail)
    return BotFault(referee_pb2.FAULT_KIND_RPC_ERROR, detail)


@dataclass
class BotConnection:
    """A channel to one bot process."""

    address: str
    channel: grpc.aio.Channel
    stub: BotAsyncStub

    @classmethod
    def open(
        cls, address: str, credentials: grpc.ChannelCredentials | None = None
    ) -> BotConnection:
        """A channel to ``address``, over TLS when given ``credentials``."""
        if credentials is None:
            channel = grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS)
        else:
            channel = grpc.aio.secure_channel(address, credentials, options=CHANNEL_OPTIONS)
        return cls(address, channel, bot_pb2_grpc.BotStub(channel))

    @cached_property
    def act_unary(self) -> grpc.aio.UnaryUnaryMultiCallable[bytes, bot_pb2.ActResponse | None]:
        """``Act``, taking a serialized request; None for an answer that does not parse."""
        return self.channel.unary_unary(
            f"/{_BOT_SERVICE}/Act",
            request_serializer=None,
            response_deserializer=parse_or_none(bot_pb2.ActResponse),
        )

    @cached_property
    def act_stream(
        self,
    ) -> grpc.aio.StreamStreamMultiCallable[bytes, bot_pb2.ActResponse | None]:
        """``ActStream``, taking serialized requests; None for an answer that does not parse."""
        return self.channel.stream_stream(
            f"/{_BOT_SERVICE}/ActStream",
            request_serializer=None,
            response_deserializer=parse_or_none(bot_pb2.ActResponse),
        )

    @cached_property
    def hello(
        self,
    ) -> grpc.aio.UnaryUnaryMultiCallable[bot_pb2.HelloRequest, bot_pb2.HelloResponse | None]:
        return self.channel.unary_unary(
            f"/{_BOT_SERVICE}/Hello",
            request_serializer=bot_pb2.HelloRequest.SerializeToString,
            response_deserializer=parse_or_none(bot_pb2.HelloResponse),
        )

    async def say_hello(self, timeout_s: float) -> bot_pb2.HelloResponse:
        try:
            hello = await self.hello(
                bot_pb2.HelloRequest(arena_version=__version__),
                timeout=timeout_s,
                wait_for_ready=True,
            )
        except grpc.aio.AioRpcError as error:
            fault = fault_from_rpc_error(error)
            if fault.kind == referee_pb2.FAULT_KIND_TIMEOUT:
                why = await self._why_not_connected()
                fault = BotFault(
                    referee_pb2.FAULT_KIND_UNREACHABLE,
                    f"no answer to Hello within {timeout_s:g} s{why}",
                )
            raise fault from None
        if hello is None:  # bytes, but not a HelloResponse: no bot the arena can talk to
            raise BotFault(
                referee_pb2.FAULT_KIND_UNREACHABLE,
                "the answer to Hello is not an arena.v1.HelloResponse: its bytes do not parse",
            )
        return hello

    async def _why_not_connected(self) -> str:
        """Why a channel that never connected did not, as gRPC last said (" (Connection
        refused)"), so a typo in an address reads as one; "" for one that connected.
        Asked once without waiting for a connection, which answers at once."""
        if self.channel.get_state() != grpc.ChannelConnectivity.TRANSIENT_FAILURE:
            return ""
        try:
            await self.hello(bot_pb2.HelloRequest(arena_version=__version__), timeout=1)
        except grpc.aio.AioRpcError as error:
            if error.code() == grpc.StatusCode.UNAVAILABLE and error.details():
                details = error.details() or ""
                # "failed to connect to all addresses; last error: UNKNOWN: ipv4:...:
                # Failed to connect to remote host: Connection refused"
                return f" ({details.rsplit(': ', 1)[-1] if 'last error' in details else details})"
        return ""

    def connected(self) -> bool:
        """Whether the channel has a connection to the bot right now."""
        return self.channel.get_state() == grpc.ChannelConnectivity.READY

    async def close(self) -> None:
        await self.channel.close(grace=None)


class BotChannels:
    """Connections to bots, kept open from one match to the next.

    Opening a channel costs a TCP and HTTP/2 handshake, milliseconds, and a tournament
    plays thousands of matches against the same few bots. A connection serves one match
    at a time, as a fresh one would: matches played at once against one bot each get
    their own, so no match waits behind another's streams on a shared connection. A
    connection that misbehaved in a match is closed rather than reused.
    """

    def __init__(
        self, keep_idle: int = 256, credentials: grpc.ChannelCredentials | None = None
    ) -> None:
        self.keep_idle = keep_idle
        self.credentials = credentials
        self._idle: list[BotConnection] = []  # least recently used first

    def acquire(self, address: str) -> BotConnection:
        for i, connection in enumerate(reversed(self._idle)):
            if connection.address == address:
                del self._idle[len(self._idle) - 1 - i]
                return connection
        return BotConnection.open(address, self.credentials)

    async def release(self, connection: BotConnection, *, healthy: bool) -> None:
        if not healthy:
            await connection.close()
            return
        self._idle.append(connection)
        while len(self._idle) > self.keep_idle:
            await self._idle.pop(0).close()

    async def close(self) -> None:
        idle, self._idle = self._idle, []
        for connection in idle:
            await connection.close()


class SeatConversation:
    """The decisions of one seat in one match.

    ``ended``, for a seat whose bot the referee hosts, says why its process ended, or
    None while it runs: a process that ended cannot come back, so its seat is not
    waited for."""

    def __init__(
        self,
        bot: BotConnection,
        use_stream: bool,
        ended: Callable[[], str | None] | None = None,
    ) -> None:
        self.bot = bot
        self.use_stream = use_stream
        self.ended = ended
        self._stream: grpc.aio.StreamStreamCall[bytes, bot_pb2.ActResponse | None] | None = None
        self._deadline: SeatDeadline | None = None

    async def act(self, request: bytes, timeout_s: float, decision: int) -> bot_pb2.ActResponse:
        """The bot's answer to a serialized ``ActRequest`` for ``decision``, or ``BotFault``.

        A bot that cannot be reached (its process died, or restarts) is asked again until
        ``timeout_s`` is up: one that is back in time answers as if nothing had happened;
        one that is not is one ``UNREACHABLE`` fault for this decision."""
        loop = asyncio.get_running_loop()
        due = loop.time() + timeout_s
        left = timeout_s
        ask = self._act_on_stream if self.use_stream else self._act_unary
        refused: BotFault | None = None
        while True:
            self._check_process()
            try:
                return await ask(request, left, decision)
            except BotFault as fault:
                self._check_process()
                if fault.kind == referee_pb2.FAULT_KIND_TIMEOUT and not self.bot.connected():
                    raise _not_reached(timeout_s, refused) from None
                if fault.kind != referee_pb2.FAULT_KIND_UNREACHABLE:
                    raise
                refused = fault
            left = due - loop.time()
            if left > 0:
                await asyncio.sleep(min(RETRY_PAUSE_S, left))
                left = due - loop.time()
            if left <= 0:
                raise _not_reached(timeout_s, refused)

    def _check_process(self) -> None:
        """Raise UNREACHABLE, saying how, if this seat's hosted process has ended."""
        why = self.ended() if self.ended is not None else None
        if why is not None:
            raise BotFault(referee_pb2.FAULT_KIND_UNREACHABLE, why)

    async def _act_unary(
        self, request: bytes, timeout_s: float, decision: int
    ) -> bot_pb2.ActResponse:
        # wait_for_ready: a call made while the bot is away waits for it to come back.
        try:
            answer = await self.bot.act_unary(request, timeout=timeout_s, wait_for_ready=True)
        except grpc.aio.AioRpcError as error:
            raise fault_from_rpc_error(error) from None
        if answer is None:
            raise garbled("ActResponse")
        return answer

    async def _act_on_stream(
        self, request: bytes, timeout_s: float, decision: int
    ) -> bot_pb2.ActResponse:
        if self._stream is None:
            self._stream = self.bot.act_stream(wait_for_ready=True)  # type: ignore[call-arg]
        if self._deadline is None:
            self._deadline = SeatDeadline()
        stream, deadline = self._stream, self._deadline
        response: Any = None
        ended = False
        deadline.start(timeout_s)
        try:
            await stream.write(request)
            response = await stream.read()
            while _answers_another(response, decision):
                # A second answer, a late one, one sent unasked: never this decision's.
                log.warning(
                    "bot %s answered decision %d on its stream while decision %d was asked; "
                    "dropped",
                    self.bot.address,
                    response.decision_index,
                    decision,
                )
                response = await stream.read()
        except asyncio.CancelledError:
            if not deadline.claim():
                raise
        except grpc.aio.AioRpcError as error:
            response = fault_from_rpc_error(error)
        except asyncio.InvalidStateError:
            ended = True  # the stream had ended before this write
        finally:
            deadline.stop()
        if deadline.expired:  # whatever came as the deadline passed came too late
            response = BotFault(referee_pb2.FAULT_KIND_TIMEOUT, NO_ANSWER)
        elif ended:  # say what ended it, as a read would
            response = await _ended_stream_fault(stream)
        elif response is _EOF:  # read() raises for any status but OK
            response = BotFault(referee_pb2.FAULT_KIND_RPC_ERROR, STREAM_CLOSED)
        elif response is None:
            response = garbled("ActResponse")
        if isinstance(response, BotFault):
            self._drop_stream()
            raise response
        assert isinstance(response, bot_pb2.ActResponse)
        return response

    def _drop_stream(self) -> None:
        if self._stream is not None:
            self._stream.cancel()
            self._stream = None

    async def close(self) -> None:
        if self._deadline is not None:
            self._deadline.close()
        if self._stream is not None:
            with contextlib.suppress(grpc.aio.AioRpcError, asyncio.InvalidStateError):
                await self._stream.done_writing()
            self._drop_stream()


def _not_reached(timeout_s: float, refused: BotFault | None) -> BotFault:
    """The fault of a decision whose whole allowance passed without a connection."""
    last = f" (last error {refused.detail})" if refused is not None else ""
    return BotFault(referee_pb2.FAULT_KIND_UNREACHABLE, f"{NOT_REACHED} {timeout_s:g} s{last}")


def _answers_another(response: Any, decision: int) -> bool:
    return (
        isinstance(response, bot_pb2.ActResponse)
        and response.HasField("decision_index")
        and response.decision_index != decision
    )


async def _ended_stream_fault(
    stream: grpc.aio.StreamStreamCall[bytes, bot_pb2.ActResponse | None],
) -> BotFault:
    """The fault for a stream found already ended: the status it ended with (a bot that
    died mid-match is unreachable whichever of its streams notices first), or the bot
    closing it."""
    if not stream.done():  # only half-closed (never, while a seat plays): do not wait
        return BotFault(referee_pb2.FAULT_KIND_RPC_ERROR, STREAM_CLOSED)
    code = await stream.code()  # known at once: the call is over
    if code == grpc.StatusCode.OK:
        return BotFault(referee_pb2.FAULT_KIND_RPC_ERROR, STREAM_CLOSED)
    return fault_from_status(code, await stream.details())
