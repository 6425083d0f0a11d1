"""WatchMatch across the processes of one referee (``arena referee serve --processes``):
each serves its own feeds on a private socket, and relays a sibling's when asked for a
match it does not play. Why this design: ``arena.referee.processes``."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

import grpc

from arena.grpc_server import abort
from arena.referee.feed import FeedRegistry
from arena.v1 import referee_pb2, referee_pb2_grpc

if TYPE_CHECKING:
    from arena.v1.referee_pb2_grpc import RefereeAsyncStub

    Context: TypeAlias = grpc.aio.ServicerContext[Any, Any]
    Call: TypeAlias = grpc.aio.UnaryStreamCall[
        referee_pb2.WatchMatchRequest, referee_pb2.MatchEvent
    ]

FOUND = ("arena-watch", "found")
"""Initial metadata a process sends before a match's events: the relaying sibling learns
it has the match at once, without waiting for an event."""
ASK_TIMEOUT_S = 10.0
"""How long siblings have to say whether they play a match: they answer at once unless
stopped or hung, and a watcher should not wait on a hung one for ever."""


class PrivateWatch:
    """What a process serves on its private socket: its own feeds' WatchMatch, never
    relayed again (so a question cannot go round), and no other call."""

    def __init__(self, feeds: FeedRegistry) -> None:
        self.feeds = feeds

    async def WatchMatch(
        self, request: referee_pb2.WatchMatchRequest, context: Context
    ) -> AsyncIterator[referee_pb2.MatchEvent]:
        feed = self.feeds.get(request.match_id)
        if feed is None:
            await abort(context, grpc.StatusCode.NOT_FOUND, "not played by this process")
        await context.send_initial_metadata((FOUND,))
        async for event in feed.follow():
            yield event


async def start_private(feeds: FeedRegistry, address: str) -> grpc.aio.Server:
    """Serve ``PrivateWatch`` on ``address`` (``unix:PATH``), started."""
    server = grpc.aio.server()
    handler = grpc.unary_stream_rpc_method_handler(
        PrivateWatch(feeds).WatchMatch,
        request_deserializer=referee_pb2.WatchMatchRequest.FromString,
        response_serializer=referee_pb2.MatchEvent.SerializeToString,
    )
    name = referee_pb2.DESCRIPTOR.services_by_name["Referee"].full_name
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(name, {"WatchMatch": handler}),)
    )
    if server.add_insecure_port(address) == 0:
        raise OSError(f"cannot listen on {address}")
    await server.start()
    return server


class Relay:
    """This process's way to its siblings' feeds: a channel per sibling, opened on first
    use (an asyncio channel belongs to the loop that made it)."""

    def __init__(self, addresses: Sequence[str]) -> None:
        self.addresses = tuple(addresses)
        self._stubs: dict[str, RefereeAsyncStub] = {}
        self._channels: list[grpc.aio.Channel] = []

    def _stub(self, address: str) -> RefereeAsyncStub:
        if address not in self._stubs:
            channel = grpc.aio.insecure_channel(address)
            self._channels.append(channel)
            self._stubs[address] = referee_pb2_grpc.RefereeStub(channel)
        return self._stubs[address]

    async def find(self, match_id: str, timeout: float | None) -> Call | None:
        """The WatchMatch call of the sibling playing ``match_id`` (``timeout``: the
        watcher's deadline), None if none does; the other siblings' calls are ended."""
        if not self.addresses:
            return None
        request = referee_pb2.WatchMatchRequest(match_id=match_id)
        calls = [self._stub(a).WatchMatch(request, timeout=timeout) for a in self.addresses]
        asks = {asyncio.ensure_future(_has_match(call)): call for call in calls}
        found: Call | None = None
        try:
            for done in asyncio.as_completed(asks, timeout=ASK_TIMEOUT_S):
                with contextlib.suppress(TimeoutError):  # a hung sibling: not found
                    call = await done
                    if call is not None:
                        found = call
                        break
        finally:
            for ask, call in asks.items():
                ask.cancel()
                if call is not found:
                    call.cancel()
        return found

    async def close(self) -> None:
        for channel in self._channels:
            await channel.close(grace=None)


async def _has_match(call: Call) -> Call | None:
    """``call`` if its process plays the match: it sends ``FOUND`` first; any other
    answer (NOT_FOUND, a sibling stopped or not started yet) means it does not."""
    try:
        metadata = await call.initial_metadata()
    except grpc.RpcError:
        return None
    return call if metadata is not None and FOUND in tuple(metadata) else None


async def relay(call: Call, context: Context) -> AsyncIterator[referee_pb2.MatchEvent]:
    """The sibling's events, one at a time (a slow watcher slows the sibling's stream,
    nothing piles up here), and its status if it fails; the sibling's call ends with
    this one, however this one ends (the watcher left, its deadline passed)."""
    try:
        async for event in call:
            yield event
    except grpc.aio.AioRpcError as error:
        await abort(context, error.code(), error.details() or "the match's process failed")
    finally:
        call.cancel()
