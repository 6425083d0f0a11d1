"""WatchMatch across the processes of one referee (``arena referee serve --processes``):
each serves its own feeds on a private socket, and mirrors a sibling's when asked for a
match it does not play: one private stream per match, however many of its own watchers
follow it. Why this design: ``arena.referee.processes``."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

import grpc

from arena.grpc_server import abort
from arena.referee.feed import FeedRegistry, MatchFeed
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


class Mirror:
    """A sibling's match as this process's watchers see it: its events copied into a
    local feed from one private stream, which ends with the match or with its last
    watcher here."""

    def __init__(self, match_id: str, call: Call) -> None:
        self.feed = MatchFeed(match_id)
        self.call = call
        self.error: tuple[grpc.StatusCode, str] | None = None
        """The sibling stream's failure, which its watchers then end with."""
        self.watchers = 0
        self._task = asyncio.ensure_future(self._pump())

    async def _pump(self) -> None:
        try:
            async for event in self.call:
                self.feed.post(event)
        except grpc.aio.AioRpcError as error:
            self.error = (error.code(), error.details() or "the match's process failed")
        finally:
            self.feed.close()

    async def close(self) -> None:
        self.call.cancel()
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


class Relay:
    """This process's way to its siblings' feeds: a channel per sibling, opened on first
    use (an asyncio channel belongs to the loop that made it), and a mirror per sibling
    match its watchers follow."""

    def __init__(self, addresses: Sequence[str]) -> None:
        self.addresses = tuple(addresses)
        self._stubs: dict[str, RefereeAsyncStub] = {}
        self._channels: list[grpc.aio.Channel] = []
        self.mirrors: dict[str, Mirror] = {}
        self._opening: dict[str, asyncio.Future[Mirror | None]] = {}
        """Mirrors being opened: watchers who come meanwhile wait for the same one."""

    async def mirror(self, match_id: str) -> Mirror | None:
        """The mirror of the sibling match ``match_id`` for one more watcher (``leave``
        when it goes), None if no sibling plays it."""
        found = self.mirrors.get(match_id)
        if found is None or found.error is not None:
            opening = self._opening.get(match_id)
            if opening is None:
                opening = self._opening[match_id] = asyncio.ensure_future(self._open(match_id))
                opening.add_done_callback(lambda _: self._opening.pop(match_id, None))
            found = await asyncio.shield(opening)  # a watcher who leaves cancels only itself
            if found is None:
                return None
        found.watchers += 1
        return found

    async def _open(self, match_id: str) -> Mirror | None:
        call = await self.find(match_id)
        if call is None:
            return None
        mirror = self.mirrors[match_id] = Mirror(match_id, call)
        return mirror

    async def leave(self, mirror: Mirror) -> None:
        mirror.watchers -= 1
        if mirror.watchers == 0:
            if self.mirrors.get(mirror.feed.match_id) is mirror:
                del self.mirrors[mirror.feed.match_id]
            await mirror.close()

    def _stub(self, address: str) -> RefereeAsyncStub:
        if address not in self._stubs:
            channel = grpc.aio.insecure_channel(address)
            self._channels.append(channel)
            self._stubs[address] = referee_pb2_grpc.RefereeStub(channel)
        return self._stubs[address]

    async def find(self, match_id: str) -> Call | None:
        """The WatchMatch call of the sibling playing ``match_id``, None if none does;
        the other siblings' calls are ended. It has no deadline: it lasts as long as the
        match, or until its mirror's last watcher here leaves."""
        if not self.addresses:
            return None
        request = referee_pb2.WatchMatchRequest(match_id=match_id)
        calls = [self._stub(a).WatchMatch(request) for a in self.addresses]
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


async def relay(
    relayed: Relay, mirror: Mirror, context: Context
) -> AsyncIterator[referee_pb2.MatchEvent]:
    """The mirrored events, then the sibling's status if its stream failed; the mirror's
    last watcher here ends the sibling's stream, however it ends (it left, its deadline
    passed)."""
    try:
        async for event in mirror.feed.follow():
            yield event
        if mirror.error is not None:
            await abort(context, *mirror.error)
    finally:
        await relayed.leave(mirror)
