"""The Referee gRPC service: validates requests, runs matches concurrently, serves replays."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

import grpc

from arena import limits, wire
from arena.access import REFEREE, TokenCheck, holds_any
from arena.bot_networks import ANYWHERE, DEFAULT, BotNetworks
from arena.games import all_games
from arena.grpc_server import abort, fit, start_serving
from arena.hosting.package import InvalidPackage
from arena.hosting.pool import BUBBLEWRAP, Launcher
from arena.hosting.sandbox import Limits
from arena.hosting.transfer import assemble
from arena.match_rules.faults import CutOff
from arena.referee import metrics
from arena.referee.banner import announce
from arena.referee.bot_client import BotChannels
from arena.referee.feed import FeedRegistry
from arena.referee.hosted import (
    DEFAULT_DIRECTORY,
    NOT_STARTED,
    HostedEntry,
    Hosting,
    NotStarted,
    Refused,
    Unavailable,
)
from arena.referee.match import MatchRunner
from arena.referee.processes import Siblings
from arena.referee.requests import PACKAGE_SHA256, InvalidRequest, checked_bot, match_spec
from arena.referee.siblings import Relay, relay, start_private
from arena.replay import ReplayNotFound, ReplayStore
from arena.throttle import peer_host
from arena.tls import ServerTls
from arena.v1 import bot_pb2, referee_pb2, referee_pb2_grpc

DEFAULT_MAX_CONCURRENT_MATCHES = 256
DEFAULT_MAX_WATCHERS = 256
"""WatchMatch streams open at once: the call is open to anyone who can reach the port."""
DEFAULT_WATCHERS_PER_CLIENT = 64
"""WatchMatch streams one client address may hold at once, so that one greedy client
cannot take them all; a caller with the referee's token (a site that relays many
matches to its own viewers) is held only to ``max_watchers``."""
WATCH_RETRY_AFTER_S = 10
if TYPE_CHECKING:
    from arena.v1.referee_pb2_grpc import RefereeAsyncStub

    Context: TypeAlias = grpc.aio.ServicerContext[Any, Any]


class RefereeService(referee_pb2_grpc.RefereeServicer):
    def __init__(
        self,
        replays: ReplayStore | None,
        max_concurrent: int = DEFAULT_MAX_CONCURRENT_MATCHES,
        bot_credentials: grpc.ChannelCredentials | None = None,
        bot_networks: BotNetworks = DEFAULT,
        hosting: Hosting | None = None,
        max_watchers: int = DEFAULT_MAX_WATCHERS,
        siblings: Sequence[str] = (),
        watchers_per_client: int = DEFAULT_WATCHERS_PER_CLIENT,
        token: str | None = None,
        read_token: str | None = None,
    ) -> None:
        self.replays = replays
        self.feeds = FeedRegistry()
        self.channels = BotChannels(credentials=bot_credentials)
        self.bot_networks = bot_networks
        self.hosting = hosting or Hosting()
        self.matches: set[asyncio.Task[Any]] = set()
        """The PlayMatch calls in play, for ``wind_down``."""
        self.max_concurrent = max_concurrent
        self.running = 0
        self.max_watchers = max_watchers
        self.watchers = 0
        """WatchMatch streams of clients of this process, relayed ones included."""
        self.watchers_per_client = watchers_per_client
        self.unchecked: set[str] = set()
        """Packages uploaded for a CheckBot still to come: one whose bot fails it is
        removed, as if it had come with the check."""
        self.watching: Counter[str] = Counter()
        """WatchMatch streams by client address (token holders not counted)."""
        self.token = token
        self.read_token = read_token
        self.relay = Relay(siblings)

    async def ListGames(
        self, request: referee_pb2.ListGamesRequest, context: Context
    ) -> referee_pb2.ListGamesResponse:
        return referee_pb2.ListGamesResponse(games=[wire.game_description(g) for g in all_games()])

    async def PlayMatch(
        self, request: referee_pb2.PlayMatchRequest, context: Context
    ) -> referee_pb2.MatchResult:
        try:
            spec = match_spec(request)
            launches = await self.hosting.prepare(spec.seat_hosted)
        except (InvalidRequest, Refused) as error:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
        except Unavailable as error:
            await abort(context, grpc.StatusCode.FAILED_PRECONDITION, str(error))
        if (
            request.HasField("start_by")
            and (late := time.time() - wire.instant(request.start_by)) > 0
        ):
            await abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"the request came {late:.1f} s after its start_by: its sender's claim on "
                "the match had lapsed, so nothing was played",
            )
        # No await from here until the feed is open: a match id is taken at once.
        if spec.match_id in self.feeds or (
            self.replays is not None and self.replays.exists(spec.match_id)
        ):
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
        feed = self.feeds.open(spec.match_id, spec.broadcast_delay_s)
        this = asyncio.current_task()
        assert this is not None
        self.matches.add(this)
        try:
            hosted = self.hosting.seats(spec.match_id, launches) if launches else None
            return await MatchRunner(
                spec, feed, self.replays, self.channels, self.bot_networks, hosted
            ).run()
        except CutOff as cut:
            await abort(
                context,
                grpc.StatusCode.UNAVAILABLE,
                f"{cut}; the match is abandoned and nothing is stored: play it again, on "
                "another referee (or set fault_policy.charge_cut_off to charge the bots)",
            )
        finally:
            self.matches.discard(this)
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

    async def CheckBot(
        self, request: referee_pb2.CheckBotRequest, context: Context
    ) -> referee_pb2.CheckBotResponse:
        try:
            entry = checked_bot(request)
        except InvalidRequest as error:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
        held = self.hosting.store.has(entry.sha256) and entry.sha256 not in self.unchecked
        try:
            hello = await self._check_bot(entry)
            self.unchecked.discard(entry.sha256)
        except BaseException as error:
            # Unpacked for this check: a bot that fails it leaves nothing here, and its
            # caller hears so only once it is gone (an abort answers at once).
            if not held:
                self.unchecked.discard(entry.sha256)
                await asyncio.to_thread(self.hosting.store.remove, entry.sha256)
            if isinstance(error, Refused):
                await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
            if isinstance(error, Unavailable):
                await abort(context, grpc.StatusCode.FAILED_PRECONDITION, str(error))
            if isinstance(error, NotStarted):
                # The caller holds the referee's token: it may read what the bot wrote.
                message = fit(f"{NOT_STARTED}{error}")
                await abort(context, grpc.StatusCode.FAILED_PRECONDITION, message)
            raise
        return referee_pb2.CheckBotResponse(
            name=hello.name,
            version=hello.version,
            games=list(hello.games),
            supports_stream=hello.supports_stream,
        )

    async def UploadPackage(
        self, requests: AsyncIterator[referee_pb2.UploadPackageRequest], context: Context
    ) -> referee_pb2.UploadPackageResponse:
        # The token was checked before this reads a piece (TokenCheck, or mutual TLS).
        first = await anext(requests, None)
        sha256 = "" if first is None else first.package_sha256
        if not PACKAGE_SHA256.match(sha256):
            await abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                "UploadPackage's first message names the package: package_sha256 must be "
                f"64 lowercase hex digits, not {sha256[:80]!r}",
            )
        assert first is not None
        held = self.hosting.store.has(sha256)
        try:
            blob = await assemble(first.data, requests, _piece)
            await asyncio.to_thread(self.hosting.store.add, blob, sha256)
        except (ValueError, InvalidPackage) as error:  # Oversize too
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, f"package: {error}")
        if not held:
            self.unchecked.add(sha256)
        return referee_pb2.UploadPackageResponse(package_sha256=sha256, package_bytes=len(blob))

    async def _check_bot(self, entry: HostedEntry) -> bot_pb2.HelloResponse:
        (launch,) = await self.hosting.prepare([entry])
        assert launch is not None
        return await self.hosting.check(launch)

    async def wind_down(self) -> None:
        """End the matches still in play, and wait until each has ended its sandboxes
        (one caught starting them cleans up as it goes), then the pool's."""
        for task in self.matches:
            if not task.cancelling():  # once: a second cancel would cut its cleanup short
                task.cancel()
        while pending := [task for task in self.matches if not task.done()]:
            await asyncio.wait(pending)
        await self.hosting.close()
        await self.relay.close()

    async def WatchMatch(
        self, request: referee_pb2.WatchMatchRequest, context: Context
    ) -> AsyncIterator[referee_pb2.MatchEvent]:
        client = None if self._unshared(context) else peer_host(context.peer())
        if self.watchers >= self.max_watchers:
            await _too_many(
                context,
                f"this referee already streams {self.max_watchers} WatchMatch calls, its "
                "limit; retry later",
            )
        if client is not None and self.watching[client] >= self.watchers_per_client:
            await _too_many(
                context,
                f"this address already holds {self.watchers_per_client} WatchMatch streams "
                "on this referee, the most one client may; close one, or retry later",
            )
        self.watchers += 1
        if client is not None:
            self.watching[client] += 1
        metrics.WATCHERS.inc()
        try:
            feed = self.feeds.get(request.match_id)
            if feed is not None:
                events = feed.follow()
            elif mirror := await self.relay.mirror(request.match_id):
                events = relay(self.relay, mirror, context)
            else:
                await abort(
                    context,
                    grpc.StatusCode.NOT_FOUND,
                    f"no running or recent match {request.match_id!r} on this referee; "
                    "finished matches are in GetReplay",
                )
            async for event in events:
                yield event
        finally:
            self.watchers -= 1
            if client is not None:
                self.watching[client] -= 1
                if self.watching[client] <= 0:
                    del self.watching[client]
            metrics.WATCHERS.dec()

    def _unshared(self, context: Context) -> bool:
        """Whether the caller holds the referee's token or the read token (a site that
        watches for many people), and so is held to no client's share; a token the
        referee was not given is held by nobody."""
        return holds_any(context.invocation_metadata(), (self.token, self.read_token))

    async def GetReplay(
        self, request: referee_pb2.GetReplayRequest, context: Context
    ) -> referee_pb2.Replay:
        if self.replays is None:
            await abort(
                context,
                grpc.StatusCode.NOT_FOUND,
                "this referee keeps no replays (it serves without --replay-dir): a match's "
                "record comes back in PlayMatch's answer, and the arena's GetMatchReplay "
                "builds the replay from the stored record",
            )
        try:
            text = self.replays.load_text(request.replay_id)
        except ReplayNotFound as error:
            # Anyone may ask: say what was wrong, never where the referee keeps its files.
            await abort(context, grpc.StatusCode.NOT_FOUND, error.public)
        return referee_pb2.Replay(replay_id=request.replay_id, json=text)


async def _too_many(context: Context, message: str) -> None:
    """RESOURCE_EXHAUSTED, with when to retry (``retry-after`` in the trailers)."""
    context.set_trailing_metadata((("retry-after", str(WATCH_RETRY_AFTER_S)),))
    await abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED, message)


def _piece(request: referee_pb2.UploadPackageRequest) -> bytes:
    """A later message of UploadPackage's stream: a piece, naming no package."""
    if request.package_sha256:
        raise ValueError("only UploadPackage's first message names the package")
    return request.data


class RefereeServer(grpc.aio.Server):
    """The referee's gRPC server, which ends its hosted bots' sandboxes when it stops,
    and its private one for sibling processes if it has one."""

    def __init__(self, server: grpc.aio.Server, service: RefereeService) -> None:
        self.server = server
        self.service = service
        self.hosting = service.hosting
        self.private: grpc.aio.Server | None = None

    def add_generic_rpc_handlers(
        self, generic_rpc_handlers: Iterable[grpc.GenericRpcHandler[Any, Any]]
    ) -> None:
        self.server.add_generic_rpc_handlers(generic_rpc_handlers)

    def add_registered_method_handlers(self, service_name: str, method_handlers: Any) -> None:
        self.server.add_registered_method_handlers(  # type: ignore[attr-defined]  # missing from grpc-stubs
            service_name, method_handlers
        )

    def add_insecure_port(self, address: str) -> int:
        return self.server.add_insecure_port(address)

    def add_secure_port(self, address: str, server_credentials: grpc.ServerCredentials) -> int:
        return self.server.add_secure_port(address, server_credentials)

    async def start(self) -> None:
        await self.server.start()

    async def stop(self, grace: float | None = None) -> None:
        """Stop serving, then end the matches in play and every sandbox: each step even
        if the one before failed or was cancelled."""
        try:
            await self.server.stop(grace)
        finally:
            try:
                if self.private is not None:
                    await self.private.stop(grace)
            finally:
                await self.service.wind_down()

    async def wait_for_termination(self, timeout: float | None = None) -> bool:
        return await self.server.wait_for_termination(timeout)


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
DEFAULT_CALLER_KEEPALIVE_S = 10.0
"""How often the referee pings its callers, and how long it waits for the answer."""


def caller_keepalive(seconds: float) -> list[tuple[str, int]]:
    """The referee pings its callers too, and drops the connection of one that has not
    answered within ``seconds``: its matches are abandoned (sandboxes and all) within
    twice ``seconds`` of the caller stopping, hung or cut off. A worker's lease on a
    match lasts longer (``ARENA_MATCH_LEASE``, 30 s against 2 x 10 s), so by the time
    another worker may play the match again, the first attempt has stopped: two
    attempts never run at once, nor a duplicate pair's halves."""
    milliseconds = int(seconds * 1000)
    return [
        ("grpc.keepalive_time_ms", milliseconds),
        ("grpc.keepalive_timeout_ms", milliseconds),
        ("grpc.http2.ping_timeout_ms", milliseconds),  # else a ping waits 60 s
        ("grpc.http2.min_time_between_pings_ms", milliseconds),
        ("grpc.http2.max_pings_without_data", 0),  # else it stops pinging after two
    ]


async def start_server(
    *,
    host: str = "127.0.0.1",
    port: int = 50051,
    replay_dir: str | Path | None = None,
    max_concurrent: int = DEFAULT_MAX_CONCURRENT_MATCHES,
    metrics_port: int | None = None,
    token: str | None = None,
    tls: ServerTls | None = None,
    bot_credentials: grpc.ChannelCredentials | None = None,
    bot_networks: BotNetworks = DEFAULT,
    hosting_dir: str | Path = DEFAULT_DIRECTORY,
    sandbox_pool: int = 0,
    sandbox_limits: Limits | None = None,
    launcher: Launcher = BUBBLEWRAP,
    max_watchers: int = DEFAULT_MAX_WATCHERS,
    siblings: Siblings | None = None,
    caller_keepalive_s: float = DEFAULT_CALLER_KEEPALIVE_S,
    watchers_per_client: int = DEFAULT_WATCHERS_PER_CLIENT,
    read_token: str | None = None,
) -> tuple[RefereeServer, int]:
    """Start a referee with health and reflection (and /metrics on ``metrics_port`` if
    given), keeping a copy of each replay in ``replay_dir`` if given, serving TLS with
    ``tls`` and calling bots over TLS with ``bot_credentials``; PlayMatch needs
    ``token`` if given, unless ``tls`` is mutual (``arena.access``); WatchMatch holds a
    caller with ``token`` or ``read_token`` to no client's share.
    Hosted bots' packages and logs go in ``hosting_dir``, with ``sandbox_pool`` started
    sandboxes kept ready per hosted bot (``arena.hosting.pool``); ``launcher`` starts
    them (a local sandbox, or a pod with ``arena.hosting.kubernetes.PodLauncher``, which
    keeps no pool). With ``siblings`` it is one of several processes sharing the port
    (``arena.referee.processes``): it binds with SO_REUSEPORT, serves its feeds on its
    private socket and relays its siblings'. Returns the server (stopping it ends every
    sandbox) and its bound port."""
    if metrics_port is not None:
        serve_metrics(host, metrics_port)
    mutual = tls is not None and tls.mutual
    interceptors = [TokenCheck(REFEREE, token)] if token and not mutual else []
    options = [
        *KEEPALIVE_POLICY,
        *caller_keepalive(caller_keepalive_s),
        ("grpc.max_receive_message_length", limits.MAX_REQUEST_BYTES),
    ]
    if siblings is not None:  # gRPC's default on Linux too, but siblings depend on it
        options.append(("grpc.so_reuseport", 1))
    hosting = Hosting(
        Path(hosting_dir), pool_size=sandbox_pool, limits=sandbox_limits, launcher=launcher
    )
    service = RefereeService(
        ReplayStore(replay_dir) if replay_dir else None,
        max_concurrent,
        bot_credentials,
        bot_networks,
        hosting,
        max_watchers,
        siblings.others if siblings else (),
        watchers_per_client,
        token,
        read_token,
    )
    server = RefereeServer(grpc.aio.server(interceptors=interceptors, options=options), service)
    referee_pb2_grpc.add_RefereeServicer_to_server(service, server)
    if siblings is not None:  # before the shared port: siblings may ask as soon as it serves
        server.private = await start_private(service.feeds, siblings.own)
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
    replay_dir: str | Path | None = None,
    max_concurrent: int = DEFAULT_MAX_CONCURRENT_MATCHES,
    metrics_port: int | None = None,
    token: str | None = None,
    tls: ServerTls | None = None,
    bot_credentials: grpc.ChannelCredentials | None = None,
    bot_networks: BotNetworks = DEFAULT,
    hosting_dir: str | Path = DEFAULT_DIRECTORY,
    sandbox_pool: int = 0,
    launcher: Launcher = BUBBLEWRAP,
    max_watchers: int = DEFAULT_MAX_WATCHERS,
    siblings: Siblings | None = None,
    caller_keepalive_s: float = DEFAULT_CALLER_KEEPALIVE_S,
    watchers_per_client: int = DEFAULT_WATCHERS_PER_CLIENT,
    read_token: str | None = None,
    on_ready: Callable[[int], None] | None = None,
) -> None:
    """Run a referee until interrupted (SIGINT or SIGTERM), then end its sandboxes.
    Once serving it says so (``announce``), or, as one of several processes (given
    ``siblings``), tells ``on_ready`` its port (``arena.referee.processes``)."""

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
            hosting_dir=hosting_dir,
            sandbox_pool=sandbox_pool,
            launcher=launcher,
            max_watchers=max_watchers,
            siblings=siblings,
            caller_keepalive_s=caller_keepalive_s,
            watchers_per_client=watchers_per_client,
            read_token=read_token,
        )
        if on_ready is None:
            announce(host, bound, tls=tls, token=token, metrics_port=metrics_port)
        else:
            on_ready(bound)
        running = asyncio.current_task()
        assert running is not None
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, running.cancel)
        try:
            await server.wait_for_termination()
        finally:  # a sandbox left behind would hold a user id and a mount
            await server.stop(grace=None)

    with contextlib.suppress(asyncio.CancelledError):
        asyncio.run(main())
