"""The referee keeps bot connections open between matches, and retires bad ones."""

from __future__ import annotations

import asyncio

import grpc

from arena.local_redis import free_port
from arena.referee.bot_client import BotChannels
from arena.v1 import referee_pb2, referee_pb2_grpc
from tests.support.bots import BotFactory
from tests.support.referee import play


def test_connections_are_reused_one_match_at_a_time_and_bad_ones_closed() -> None:
    async def scenario() -> None:
        channels = BotChannels(keep_idle=2)
        first = channels.acquire("127.0.0.1:1")
        second = channels.acquire("127.0.0.1:1")
        assert second is not first  # two matches at once: a connection each
        await channels.release(first, healthy=True)
        await channels.release(second, healthy=True)
        assert channels.acquire("127.0.0.1:1") is second  # the most recently used
        await channels.release(second, healthy=False)
        assert second.channel.get_state() == grpc.ChannelConnectivity.SHUTDOWN
        assert channels.acquire("127.0.0.1:1") is first
        await channels.release(first, healthy=True)
        others = [channels.acquire(f"127.0.0.1:{port}") for port in (2, 3)]
        for other in others:
            await channels.release(other, healthy=True)  # keep_idle=2: the oldest goes
        assert first.channel.get_state() == grpc.ChannelConnectivity.SHUTDOWN
        assert all(o.channel.get_state() != grpc.ChannelConnectivity.SHUTDOWN for o in others)
        await channels.close()
        assert all(o.channel.get_state() == grpc.ChannelConnectivity.SHUTDOWN for o in others)

    asyncio.run(scenario())


def test_a_bot_restarted_on_the_same_port_plays_the_next_match_cleanly(
    referee_stub: referee_pb2_grpc.RefereeStub, start_bot: BotFactory
) -> None:
    port = str(free_port())
    bot = start_bot("random", "--seed", "3", "--port", port)
    partner = start_bot("random", "--seed", "4")
    before = play(referee_stub, [bot.address, partner.address], seed=21)
    assert list(before.seat_faults) == [0, 0, 0, 0]
    bot.kill()
    restarted = start_bot("random", "--seed", "3", "--port", port)
    assert restarted.address == bot.address
    after = play(referee_stub, [restarted.address, partner.address], seed=22)
    assert after.end == referee_pb2.MATCH_END_COMPLETED
    assert list(after.seat_faults) == [0, 0, 0, 0]
