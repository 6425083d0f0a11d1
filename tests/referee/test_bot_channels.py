"""The referee keeps bot connections open between matches, and retires bad ones."""

from __future__ import annotations

import asyncio

import grpc

from arena.local_redis import free_port
from arena.referee.bot_client import BotChannels
from arena.v1 import referee_pb2, referee_pb2_grpc
from tests.conftest import BotFactory
from tests.referee.test_play_match import play


def test_connections_are_shared_reused_and_retired() -> None:
    async def scenario() -> None:
        channels = BotChannels(keep_idle=1)
        first = channels.acquire("127.0.0.1:1")
        assert channels.acquire("127.0.0.1:1") is first  # two matches at once share it
        await channels.release(first, healthy=True)
        await channels.release(first, healthy=True)
        assert channels.acquire("127.0.0.1:1") is first  # the next match reuses it
        await channels.release(first, healthy=False)
        retired = first.channel.get_state()
        assert retired == grpc.ChannelConnectivity.SHUTDOWN
        fresh = channels.acquire("127.0.0.1:1")
        assert fresh is not first
        await channels.release(fresh, healthy=True)
        other = channels.acquire("127.0.0.1:2")
        await channels.release(other, healthy=True)  # keep_idle=1: the older one goes
        assert fresh.channel.get_state() == grpc.ChannelConnectivity.SHUTDOWN
        assert other.channel.get_state() != grpc.ChannelConnectivity.SHUTDOWN
        await channels.close()
        assert other.channel.get_state() == grpc.ChannelConnectivity.SHUTDOWN

    asyncio.run(scenario())


def test_a_retired_connection_stays_open_until_its_last_match_ends() -> None:
    async def scenario() -> None:
        channels = BotChannels()
        connection = channels.acquire("127.0.0.1:1")
        channels.acquire("127.0.0.1:1")
        await channels.release(connection, healthy=False)
        assert connection.channel.get_state() != grpc.ChannelConnectivity.SHUTDOWN
        assert channels.acquire("127.0.0.1:1") is not connection
        await channels.release(connection, healthy=True)
        assert connection.channel.get_state() == grpc.ChannelConnectivity.SHUTDOWN
        await channels.close()

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
