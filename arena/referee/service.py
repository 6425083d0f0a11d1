"""The Referee gRPC service: validates requests, runs matches concurrently, serves replays."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

import grpc

from arena import wire
from arena.access import REFEREE, TokenCheck
from arena.bot_networks import ANYWHERE, DEFAULT, BotNetworks
from arena.games import all_games
from arena.grpc_server import abort, start_serving
from arena.referee import metrics
from arena.referee.bot_client import BotChannels
from arena.referee.feed import FeedRegistry
from arena.referee.match import MatchRunner
from arena.referee.requests import InvalidRequest, match_spec
from arena.replay import ReplayNotFound, ReplayStore
from arena.tls import ServerTls
from arena.v1 import referee_pb2, referee_pb2_grpc

DEFAULT_MAX_CONCURRENT_MATCHES = 256
if TYPE_CHECKING:
    from arena.v1.referee_pb2_grpc import RefereeAsyncStub

    Context: TypeAlias = grpc.aio.ServicerContext[Any, Any]


class RefereeService(referee_pb2_grpc.RefereeServicer):
    def __init__(
        self,
        replays: ReplayStore,
        max_concurrent: int = DEFAULT_MAX_CONCURRENT_MATCHES,
        bot_credentials: grpc.ChannelCredentials | None = None,
        bot_networks: BotNetworks = DEFAULT,
    ) -> None:
        self.replays = replays
        self.feeds = FeedRegistry()
        self.channels = BotChannels(credentials=bot_credentials)
        self.bot_networks = bot_networks
        self.max_concurrent = max_concurrent
        self.running = 0

    async def ListGames(
        self, request: referee_pb2.ListGamesRequest, context: Context
    ) -> referee_pb2.ListGamesResponse:
        return referee_pb2.ListGamesResponse(games=[wire.game_description(g) for g in all_games()])

    async def PlayMatch(
        self, request: referee_pb2.PlayMatchRequest, context: Context
    ) -> referee_pb2.MatchResult:
        try:
            spec = match_spec(request)
        except InvalidRequest as error:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
        if spec.match_id in self.feeds or self.replays.exists(spec.match_id):
            await abort(
                context,
                grpc.StatusCode.ALREADY_EXISTS,
                f"match id {spec.match_id!r} was already used on this referee; "
                "leave match_id empty for a fresh one",
            )
        if self.running >= self.max_concurrent:
            await abort(
                context,
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"this referee already runs {self.max_concurrent} matches, its limit; retry later",
            )
        self.running += 1
        metrics.MATCHES_RUNNING.inc()
        feed = self.feeds.open(spec.match_id)
        try:
            return await MatchRunner(
                spec, feed, self.replays, self.channels, self.bot_networks
            ).run()
        finally:
            self.running -= 1
            metrics.MATCHES_RUNNING.dec()
            if not feed.done:  # the caller went away mid-match: release the watchers
                feed.post(
                    referee_pb2.MatchEvent(
                        kind=referee_pb2.MATCH_EVENT_KIND_ENDED,
                        text="match abandoned: the caller cancelled it before the end",
                    ),
                    last=True,
                )

    async def WatchMatch(
        self, request: referee_pb2.WatchMatchRequest, context: Context
    ) -> AsyncIterator[referee_pb2.MatchEvent]:
        feed = self.feeds.get(request.match_id)
        if feed is None:
            await abort(
                context,
                grpc.StatusCode.NOT_FOUND,
                f"no running or recent match {request.match_id!r} on this referee; "
                "finished matches are in GetReplay",
            )
        async for event in feed.follow():
            yield event

    async def GetReplay(
        self, request: referee_pb2.GetReplayRequest, context: Context
    ) -> referee_pb2.Replay:
        try:
            text = self.replays.load_text(request.replay_id)
        except ReplayNotFound as error:
            await abort(context, grpc.StatusCode.NOT_FOUND, str(error))
        return referee_pb2.Replay(replay_id=request.replay_id, json=text)


def serve_metrics(host: str, port: int) -> None:
    """Expose this process's Prometheus registry at http://HOST:PORT/metrics."""
    from prometheus_client import start_http_server

    start_http_server(port, addr=host)


KEEPALIVE_POLICY = [
    # Workers ping during a match, in which no data flows for as long as the bots think,
    # to learn that a referee hung (workers/tasks.py); gRPC's default would answer a
    # ping every few seconds with GOAWAY ("too many pings").
    ("grpc.http2.min_ping_interval_without_data_ms", 1000),
    ("grpc.http2.max_ping_strikes", 0),
    ("grpc.keepalive_permit_without_calls", 1),
]


async def start_server(
    *,
    host: str = "127.0.0.1",
    port: int = 50051,
    replay_dir: str | Path = "replays",
    max_concurrent: int = DEFAULT_MAX_CONCURRENT_MATCHES,
    metrics_port: int | None = None,
    token: str | None = None,
    tls: ServerTls | None = None,
    bot_credentials: grpc.ChannelCredentials | None = None,
    bot_networks: BotNetworks = DEFAULT,
) -> tuple[grpc.aio.Server, int]:
    """Start a referee with health and reflection (and /metrics on ``metrics_port`` if
    given), serving TLS with ``tls`` and calling bots over TLS with ``bot_credentials``;
    PlayMatch needs ``token`` if given, unless ``tls`` is mutual (``arena.access``).
    Returns the server and its bound port."""
    if metrics_port is not None:
        serve_metrics(host, metrics_port)
    mutual = tls is not None and tls.mutual
    interceptors = [TokenCheck(REFEREE, token)] if token and not mutual else []
    server = grpc.aio.server(interceptors=interceptors, options=KEEPALIVE_POLICY)
    referee_pb2_grpc.add_RefereeServicer_to_server(
        RefereeService(ReplayStore(replay_dir), max_concurrent, bot_credentials, bot_networks),
        server,
    )
    name = referee_pb2.DESCRIPTOR.services_by_name["Referee"].full_name
    return server, await start_serving(server, name, host, port, tls)


@contextlib.asynccontextmanager
async def local_referee(replay_dir: str | Path) -> AsyncIterator[RefereeAsyncStub]:
    """A referee in this process on a free loopback port, for the tools that play
    matches themselves (``arena match play``, ``arena bot check``, ``arena play``): it
    dials whatever bot its user names, on the user's own machine."""
    server, port = await start_server(port=0, replay_dir=replay_dir, bot_networks=ANYWHERE)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            yield referee_pb2_grpc.RefereeStub(channel)
    finally:
        await server.stop(grace=None)


def serve(
    *,
    host: str = "127.0.0.1",
    port: int = 50051,
    replay_dir: str | Path = "replays",
    max_concurrent: int = DEFAULT_MAX_CONCURRENT_MATCHES,
    metrics_port: int | None = None,
    token: str | None = None,
    tls: ServerTls | None = None,
    bot_credentials: grpc.ChannelCredentials | None = None,
    bot_networks: BotNetworks = DEFAULT,
) -> None:
    """Run a referee until interrupted."""

    async def main() -> None:
        server, bound = await start_server(
            host=host,
            port=port,
            replay_dir=replay_dir,
            max_concurrent=max_concurrent,
            metrics_port=metrics_port,
            token=token,
            tls=tls,
            bot_credentials=bot_credentials,
            bot_networks=bot_networks,
        )
        if tls is not None and tls.mutual:
            print("arena referee: mutual TLS: every client needs a certificate", flush=True)
        elif not token:
            print(REFEREE.open_warning(), file=sys.stderr, flush=True)
        if metrics_port is not None:
            print(f"referee metrics on http://{host}:{metrics_port}/metrics", flush=True)
        print(f"referee listening on {host}:{bound}", flush=True)
        await server.wait_for_termination()

    asyncio.run(main())
