"""WatchMatch shares: one client address holds at most its share of streams, so a greedy
one cannot keep another out; a caller with the referee's token or the read token (the
web site's) is held only to the referee's total. A real referee over gRPC on a dual-stack loopback port: the greedy
client comes from 127.0.0.1, the honest one from ::1."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import grpc
import pytest

from arena.access import bearer
from arena.referee.feed import MatchFeed
from arena.referee.service import start_server
from arena.throttle import peer_host
from arena.v1 import referee_pb2, referee_pb2_grpc

SHARE = 2
TOKEN = "referee-token-for-tests"
READER = "the-sites-read-token"


@contextlib.asynccontextmanager
async def referee() -> AsyncIterator[int]:
    """A referee on [::] with a match whose feed never ends (its bots think forever)."""
    server, port = await start_server(
        host="[::]",
        port=0,
        token=TOKEN,
        max_watchers=10,
        watchers_per_client=SHARE,
        read_token=READER,
    )
    feed: MatchFeed = server.service.feeds.open("m1")
    feed.post(referee_pb2.MatchEvent(kind=referee_pb2.MATCH_EVENT_KIND_STARTED))
    try:
        yield port
    finally:
        await server.stop(grace=None)


async def watch(
    address: str, metadata: tuple[tuple[str, str], ...] = ()
) -> tuple[
    grpc.aio.Channel,
    grpc.aio.UnaryStreamCall[referee_pb2.WatchMatchRequest, referee_pb2.MatchEvent],
]:
    """A watcher that has its first event (or its refusal)."""
    channel = grpc.aio.insecure_channel(address)
    call = referee_pb2_grpc.RefereeStub(channel).WatchMatch(
        referee_pb2.WatchMatchRequest(match_id="m1"), metadata=metadata
    )
    return channel, call


async def first(
    call: grpc.aio.UnaryStreamCall[referee_pb2.WatchMatchRequest, referee_pb2.MatchEvent],
) -> grpc.StatusCode:
    try:
        await call.read()
    except grpc.aio.AioRpcError as error:
        return error.code()
    return grpc.StatusCode.OK


def test_a_greedy_address_gets_its_share_and_another_address_still_watches() -> None:
    async def scenario() -> None:
        async with referee() as port:
            greedy = [await watch(f"127.0.0.1:{port}") for _ in range(SHARE)]
            assert [await first(call) for _, call in greedy] == [grpc.StatusCode.OK] * SHARE
            channel, refused = await watch(f"127.0.0.1:{port}")
            assert await first(refused) == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "the most one client may" in (await refused.details() or "")
            assert ("retry-after", "10") in tuple(await refused.trailing_metadata() or ())
            await channel.close(None)
            honest = await watch(f"[::1]:{port}")
            assert await first(honest[1]) == grpc.StatusCode.OK
            # A token the referee does not know is no token: the address's share is spent.
            guessing, guessed = await watch(f"127.0.0.1:{port}", (bearer("guess"),))
            assert await first(guessed) == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "the most one client may" in (await guessed.details() or "")
            await guessing.close(None)
            # The referee's token holder (a site relaying its viewers) is past the share.
            trusted = [await watch(f"127.0.0.1:{port}", (bearer(TOKEN),)) for _ in range(3)]
            assert [await first(call) for _, call in trusted] == [grpc.StatusCode.OK] * 3
            # So is the read token's (the web site's), which opens nothing else...
            site = [await watch(f"127.0.0.1:{port}", (bearer(READER),)) for _ in range(3)]
            assert [await first(call) for _, call in site] == [grpc.StatusCode.OK] * 3
            # ...up to the referee's total: 2 + 1 + 3 + 3 streams, and one more.
            last = await watch(f"[::1]:{port}", (bearer(READER),))
            assert await first(last[1]) == grpc.StatusCode.OK
            over = await watch(f"[::1]:{port}", (bearer(READER),))
            assert await first(over[1]) == grpc.StatusCode.RESOURCE_EXHAUSTED
            for channel, _ in [*greedy, honest, *trusted, *site, last, over]:
                await channel.close(None)

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("peer", "host"),
    [
        ("ipv4:10.0.0.5:4321", "10.0.0.5"),
        ("ipv6:[::1]:4321", "::1"),
        ("ipv6:[::ffff:127.0.0.1]:80", "::ffff:127.0.0.1"),
        ("unix:/run/arena/referee.sock", "unix:/run/arena/referee.sock"),
    ],
)
def test_a_peer_is_known_by_its_address_whatever_its_port(peer: str, host: str) -> None:
    assert peer_host(peer) == host


def test_the_site_sends_its_read_token_with_each_watch() -> None:
    """The site's own WatchMatch client (``arena.web.data.watch_match``), given the read
    token, follows more matches from one address than a client's share."""
    from arena.web.data import watch_match

    async def scenario() -> None:
        async with referee() as port:
            streams = [
                watch_match(f"127.0.0.1:{port}", "m1", read_token=READER) for _ in range(SHARE + 1)
            ]
            try:
                firsts = [await anext(stream) for stream in streams]
                assert {e.kind for e in firsts} == {referee_pb2.MATCH_EVENT_KIND_STARTED}
            finally:
                for stream in streams:
                    await stream.aclose()

    asyncio.run(scenario())
