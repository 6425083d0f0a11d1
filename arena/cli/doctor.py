"""``arena doctor``: one page saying which parts of a local arena answer, and for each
one that does not, the command that starts it (as docs/operations.md does).

Every check has a short deadline and the independent ones run at once, so the page
comes back in a few seconds even when nothing is running. A check never waits for a
server to come up: a refused connection is "down" at once.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import urlsplit

import grpc

from arena.cli.common import CliError
from arena.cli.connect import HEALTH_CHECK, authorized
from arena.v1 import arena_pb2, arena_pb2_grpc, bot_pb2, bot_pb2_grpc
from arena.wording import printable

UP, DOWN, UNKNOWN, HOSTED, NONE = "up", "down", "unknown", "hosted", "none"
UNSAFE = "unsafe"
"""Answers, but set up to lose data (a Redis that keeps no append-only file)."""
HELD_UP = "waiting"
"""A running tournament whose matches fail at the referees or lie neither queued nor
played: the workers keep at it, but the operator should know."""
FAILING = (DOWN, UNKNOWN)
"""States that make the exit code 1; a hosted bot, an empty registry or an unsafe Redis
(which serves) is no fault, though the page names it."""
LOOPBACK = ("127.0.0.1", "localhost", "::1")
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"
SERVING = b"\x08\x01"
"""``grpc.health.v1.HealthCheckResponse(status=SERVING)`` as bytes: no health stubs needed."""


@dataclass(frozen=True)
class Finding:
    component: str
    """redis, referee, api, workers, tournament (one held up), bot (one registered bot) or
    bots (none to check)."""
    name: str
    """The bot's registry name; for the others, the component again."""
    state: str
    address: str
    detail: str
    start: str = ""
    """For a part that is down: the command that starts it."""

    @property
    def label(self) -> str:
        if self.component in ("bot", "tournament"):
            return f"{self.component} {self.name}"
        return self.component


def doctor(args: argparse.Namespace) -> None:
    referees = args.referee or args.referees_from_env
    findings = diagnose(args, referees)
    if args.json:
        ok = not any(f.state in FAILING for f in findings)
        print(json.dumps({"ok": ok, "components": [asdict(f) for f in findings]}, indent=1))
    else:
        print(render(findings))
    if any(f.state in FAILING for f in findings):
        raise SystemExit(1)


def diagnose(args: argparse.Namespace, referees: Sequence[str]) -> list[Finding]:
    """Redis, the referees and the API at once; then the workers (through Redis) and the
    bots the API lists, at once."""
    timeout = args.timeout
    # What a service started from this shell would use; read before a check sets it.
    args.inherited_redis = os.environ.get("ARENA_REDIS_URL", DEFAULT_REDIS)
    with ThreadPoolExecutor(max_workers=8) as pool:
        redis_seen = pool.submit(check_redis, args.redis, timeout)
        referees_seen = [pool.submit(check_referee, r, args.tls_ca, timeout) for r in referees]
        api_seen = pool.submit(check_api, args, timeout)
        redis_found = redis_seen.result()
        workers_seen = pool.submit(check_workers, args, referees, redis_found.state == UP)
        api_found, bots = api_seen.result()
        bots_seen = [pool.submit(check_bot, bot, timeout) for bot in bots]
        tournaments_seen = pool.submit(check_tournaments, args, timeout, api_found.state == UP)
        return [
            redis_found,
            *(f.result() for f in referees_seen),
            api_found,
            workers_seen.result(),
            *tournaments_seen.result(),
            *(f.result() for f in bots_seen),
            *([] if bots else [no_bots(api_found.state == UP)]),
        ]


def render(findings: Sequence[Finding]) -> str:
    """One aligned line per part: what, state, where, and for a part that is down the
    command that starts it (why it is down is in ``--json``), else what it said."""
    width = [max(len(text) for text in column) for column in zip(
        *((f.label, f.state, f.address) for f in findings), strict=True
    )]  # fmt: skip
    lines = []
    for f in findings:
        note = f"start: {f.start}" if f.start else f.detail  # --json says why too
        cells = (f.label.ljust(width[0]), f.state.ljust(width[1]), f.address.ljust(width[2]))
        lines.append("  ".join((*cells, note)).rstrip())
    return "\n".join(lines)


# -- the checks ------------------------------------------------------------------------


def check_redis(url: str, timeout: float) -> Finding:
    import redis

    from arena.store.reach import where

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
    except ValueError as error:
        raise CliError(f"--redis / ARENA_REDIS_URL: {error}") from None
    address = where(client)
    kwargs = client.connection_pool.connection_kwargs
    host, port = kwargs.get("host", "localhost"), kwargs.get("port", 6379)
    # A command for a Redis on this machine; for one elsewhere, where it should be.
    local = host in LOOPBACK and "path" not in kwargs
    start = f"redis-server --bind 127.0.0.1 --port {port} --appendonly yes &" if local else ""
    elsewhere = (
        ""
        if local
        else f"; start the Redis at {address} (with appendonly yes), or give --redis / "
        "ARENA_REDIS_URL the address of yours"
    )
    try:
        with client:
            client.ping()
            aof = _appendonly(client)
    except redis.TimeoutError:
        return Finding("redis", "redis", DOWN, address, "no answer in time" + elsewhere, start)
    except redis.ConnectionError as error:
        return Finding("redis", "redis", DOWN, address, _first_line(error) + elsewhere, start)
    except redis.RedisError as error:  # it answered: a password, a read-only replica...
        return Finding("redis", "redis", DOWN, address, _first_line(error))
    if aof == "no":
        cli = "redis-cli" + ("" if local else f" -h {host}") + f" -p {port}"
        return Finding(
            "redis", "redis", UNSAFE, address,
            "answered PING, but keeps no append-only file: a crash loses every write since "
            f"its last snapshot; turn it on: {cli} config set appendonly yes (and "
            "appendonly yes in its configuration)",
        )  # fmt: skip
    seen = "append-only file on" if aof == "yes" else "its persistence not shown (CONFIG off)"
    return Finding("redis", "redis", UP, address, f"answered PING; {seen}")


def _appendonly(client: Any) -> str | None:
    """Its ``appendonly`` setting; None where CONFIG is refused (a managed Redis)."""
    import redis

    try:
        found: dict[str, str] = client.config_get("appendonly")
    except redis.ResponseError:
        return None
    value = found.get("appendonly")
    return value.decode() if isinstance(value, bytes) else value


def check_referee(address: str, ca: str | None, timeout: float) -> Finding:
    host, port = _host_port(address, 50051)
    flags = ([] if host in ("127.0.0.1", "localhost") else ["--host", host]) + ["--port", port]
    start = _command("arena", "referee", "serve", *flags) + " &"
    state, detail = _health(address, ca, timeout)
    return Finding("referee", "referee", state, address, detail, start if state == DOWN else "")


def check_api(
    args: argparse.Namespace, timeout: float
) -> tuple[Finding, list[arena_pb2.RegisteredBot]]:
    """The API's health and, when it answers, the bots it has registered."""
    host, port = _host_port(args.api, 50050)
    flags = ([] if host in ("127.0.0.1", "localhost") else ["--host", host]) + ["--port", port]
    flags += _redis_flag(args)
    start = _command("arena", "api", "serve", *flags) + " &"
    state, detail = _health(args.api, args.tls_ca, timeout)
    if state != UP:
        return Finding("api", "api", state, args.api, detail, start if state == DOWN else ""), []
    token = args.token
    if args.token_file:
        from arena.access import API
        from arena.cli.connect import token_from_flags

        token = token_from_flags(args.token_file, API)
    with _channel(args.api, args.tls_ca) as chan:
        stub = arena_pb2_grpc.ArenaStub(authorized(chan, token))
        try:
            bots = list(stub.ListBots(arena_pb2.ListBotsRequest(), timeout=timeout).bots)
        except grpc.RpcError as error:
            detail = f"serving, but ListBots failed: {error.code().name}"
            return Finding("api", "api", DOWN, args.api, detail), []
    count = f"{len(bots)} bot{'' if len(bots) == 1 else 's'} registered"
    return Finding("api", "api", UP, args.api, f"serving, {count}"), list(bots)


def check_tournaments(args: argparse.Namespace, timeout: float, api_up: bool) -> list[Finding]:
    """Each running tournament that is held up (its matches fail at the referees, or
    some are neither queued nor being played), by name and why; none when the API is
    down or nothing holds one up."""
    from arena.tournament.progress import held_up_text

    if not api_up:
        return []
    with _channel(args.api, args.tls_ca) as chan:
        try:
            listed = arena_pb2_grpc.ArenaStub(chan).ListTournaments(
                arena_pb2.ListTournamentsRequest(), timeout=timeout
            )
        except grpc.RpcError as error:
            return [Finding("tournaments", "tournaments", UNKNOWN, args.api, _rpc_reason(error))]
    return [
        Finding("tournament", t.id, HELD_UP, args.api, held_up_text(t))
        for t in listed.tournaments
        if t.state == arena_pb2.TOURNAMENT_STATE_RUNNING and held_up_text(t)
    ]


def check_workers(args: argparse.Namespace, referees: Sequence[str], redis_up: bool) -> Finding:
    """Celery's ping, broadcast through the Redis broker; every worker answers."""
    url, timeout = args.redis, args.timeout
    flags = _redis_flag(args)
    for referee in referees:
        flags += ["--referee", referee]
    start = _command("arena", "worker", *flags) + " &"
    where = _redis_where(url)  # the broker: workers have no address of their own
    if not redis_up:
        return Finding("workers", "workers", DOWN, where, "Redis is down: start it first", start)
    os.environ["ARENA_REDIS_URL"] = url  # the Celery app reads its broker from it on import
    try:
        from workers.app import app
    except ValueError as error:  # a setting in the environment that does not parse
        raise CliError(str(error)) from None
    try:
        replies = app.control.ping(timeout=timeout) or []
    except Exception as error:  # kombu's errors are many; any of them means no answer
        return Finding("workers", "workers", DOWN, where, _first_line(error), start)
    names = sorted(name for reply in replies for name in reply)
    if not names:
        return Finding("workers", "workers", DOWN, where, "no worker answered ping", start)
    return Finding("workers", "workers", UP, where, f"{len(names)} answered: {', '.join(names)}")


def check_bot(bot: arena_pb2.RegisteredBot, timeout: float) -> Finding:
    """A registered bot's Hello, asked from here as ``arena bot check`` does."""
    if bot.hosted:
        return Finding("bot", bot.name, HOSTED, "-", "the referee starts it for every match")
    if not bot.address:
        detail = "the API shows bot addresses to its token's holders only: pass --token"
        return Finding("bot", bot.name, UNKNOWN, "-", detail)
    with _channel(bot.address, None) as chan:
        try:
            hello = bot_pb2_grpc.BotStub(chan).Hello(bot_pb2.HelloRequest(), timeout=timeout)
        except grpc.RpcError as error:
            return Finding("bot", bot.name, DOWN, bot.address, _rpc_reason(error), _bot_start(bot))
    plays = ", ".join(hello.games)
    said = f"{printable(hello.name)} {printable(hello.version)}"
    return Finding("bot", bot.name, UP, bot.address, f"{said}, plays {plays}")


def no_bots(api_up: bool) -> Finding:
    """The line for bots when there are none to check: none registered, or no API to ask."""
    if not api_up:
        return Finding("bots", "bots", UNKNOWN, "-", "not checked: the API lists them")
    start = "arena bot register NAME HOST:PORT"
    return Finding("bots", "bots", NONE, "-", f"no bot registered; register one: {start}")


# -- helpers ---------------------------------------------------------------------------


def _bot_start(bot: arena_pb2.RegisteredBot) -> str:
    """``arena bot serve`` for a bot that said Hello as one of the example bots; for any
    other, where to start it (only its author knows how)."""
    from arena.bots.examples import EXAMPLES

    name, address = printable(bot.hello_name), bot.address
    host, port = _host_port(address, 0)
    if name in EXAMPLES:
        flags = ([] if host in ("127.0.0.1", "localhost") else ["--host", host]) + ["--port", port]
        return _command("arena", "bot", "serve", name, *flags) + " &"
    return f"your bot {name} listening on {address}, then `arena bot check {address}`"


def _redis_flag(args: argparse.Namespace) -> list[str]:
    """``--redis URL`` unless a service started from this shell would find it anyway."""
    return [] if args.redis == args.inherited_redis else ["--redis", args.redis]


def _health(address: str, ca: str | None, timeout: float) -> tuple[str, str]:
    """The standard gRPC health check, failing at once on a refused connection."""
    with _channel(address, ca) as chan:
        probe: Callable[..., bytes] = chan.unary_unary(HEALTH_CHECK, None, None)
        try:
            answer = probe(b"", timeout=timeout)
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.UNIMPLEMENTED:
                return UP, "answers (no health service)"
            return DOWN, _rpc_reason(error)
    return (UP, "serving") if answer == SERVING else (DOWN, "answers, but not SERVING")


def _channel(address: str, ca: str | None) -> grpc.Channel:
    if not ca:
        return grpc.insecure_channel(address)
    from arena.tls import channel_credentials

    try:
        return grpc.secure_channel(address, channel_credentials(ca))
    except (OSError, ValueError) as error:
        raise CliError(str(error)) from None


def _rpc_reason(error: grpc.RpcError) -> str:
    code = error.code() if hasattr(error, "code") else None
    if code == grpc.StatusCode.UNAVAILABLE:
        return "connection refused or unreachable"
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return "no answer in time"
    return code.name if code is not None else _first_line(error)


def _host_port(address: str, default: int) -> tuple[str, str]:
    host, sep, port = address.rpartition(":")
    return (host, port) if sep and port.isdigit() else (address, str(default))


def _redis_where(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.hostname or '127.0.0.1'}:{parts.port or 6379}{parts.path or '/0'}"


def _command(*words: str) -> str:
    return shlex.join(words)


def _first_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0][:200]
