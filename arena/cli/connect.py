"""Channels from the command line to the referee and the API: one clear error for a
server that cannot be reached, and nothing else to wait for.

A read such as ``arena bot list`` loads grpc and the API's messages and little else:
TLS and tokens are imported only by a command that uses them (the referee's stubs by
``arena.cli.match``)."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import grpc

from arena.cli.common import CliError, UsageError
from arena.v1 import arena_pb2_grpc

if TYPE_CHECKING:
    from arena.access import Guard

CONNECT_TIMEOUT_S = 5.0
RECONNECT = (("grpc.initial_reconnect_backoff_ms", 100), ("grpc.max_reconnect_backoff_ms", 500))
"""gRPC retries a refused connection after 1 s, then 1.6 s, 2.6 s...: a server that came
up meanwhile waited up to 2.4 s of the 5 s for nothing. At most 0.5 s apart instead."""
HEALTH_CHECK = "/grpc.health.v1.Health/Check"
"""Every arena server answers it (``arena.grpc_server``); an empty request is b""."""


def token_from_flags(path: str | None, guard: Guard | str) -> str:
    """The token a server or worker reads from ``--token-file``-like ``path``, else from
    ``guard.env`` (or the variable ``guard`` names); empty for neither."""
    from arena.access import TokenFileError, read_token

    try:
        return read_token(path, guard if isinstance(guard, str) else guard.env)
    except TokenFileError as error:
        raise CliError(str(error)) from None


@contextlib.contextmanager
def channel(
    address: str,
    what: str,
    ca: str | None = None,
    certificate: str | None = None,
    key: str | None = None,
) -> Iterator[grpc.Channel]:
    """A channel to a server that answers within a few seconds, or one clear error; over
    TLS when given the CA file to trust (presenting ``certificate`` if given)."""
    if ca:
        from arena.tls import channel_credentials

        try:
            credentials = channel_credentials(ca, certificate, key)
        except (OSError, ValueError) as error:
            raise CliError(str(error)) from None
        opened = grpc.secure_channel(address, credentials, options=RECONNECT)
    elif certificate:
        raise UsageError("a client certificate (--tls-cert) needs --tls-ca: it is for TLS")
    else:
        opened = grpc.insecure_channel(address, options=RECONNECT)
    with opened as chan:
        _wait_until_reached(chan, what, address)
        yield chan


def _wait_until_reached(chan: grpc.Channel, what: str, address: str) -> None:
    """Wait for the server as ``grpc.channel_ready_future`` would, with a health check that
    waits for the connection instead: the future's connectivity poller made closing the
    channel wait up to 200 ms more (grpc issue 3064), every command, for nothing."""
    probe = chan.unary_unary(HEALTH_CHECK, None, None)  # bytes in, bytes out
    try:
        probe(b"", timeout=CONNECT_TIMEOUT_S, wait_for_ready=True)
    except grpc.RpcError as error:
        if error.code() in (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE):
            raise CliError(f"cannot reach {what} at {address}") from None
        # Any other answer (a server without health checks: UNIMPLEMENTED) came from it.


class _Metadata(
    grpc.UnaryUnaryClientInterceptor,  # type: ignore[type-arg]
    grpc.UnaryStreamClientInterceptor,  # type: ignore[type-arg]
    grpc.StreamUnaryClientInterceptor,  # type: ignore[type-arg]
):
    """Adds fixed metadata (the token) to every call."""

    def __init__(self, *entries: tuple[str, str]) -> None:
        self.entries = entries

    def _with(self, details: Any) -> Any:
        return details._replace(metadata=[*(details.metadata or ()), *self.entries])

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._with(details), request)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._with(details), request)

    def intercept_stream_unary(self, continuation: Any, details: Any, requests: Any) -> Any:
        return continuation(self._with(details), requests)


@contextlib.contextmanager
def arena_api(args: argparse.Namespace | str) -> Iterator[arena_pb2_grpc.ArenaStub]:
    """A stub for the API at ``args.api`` that sends ``args.token`` if there is one."""
    address = args if isinstance(args, str) else args.api
    token = None if isinstance(args, str) else args.token
    if not isinstance(args, str) and args.token_file:
        from arena.access import API

        token = token_from_flags(args.token_file, API)
    ca = None if isinstance(args, str) else args.tls_ca
    with channel(address, "the arena API", ca) as chan:
        yield arena_pb2_grpc.ArenaStub(authorized(chan, token))


def authorized(chan: grpc.Channel, token: str | None) -> grpc.Channel:
    """``chan``, sending ``token`` with every call if there is one."""
    if not token:
        return chan
    from arena.access import bearer

    return grpc.intercept_channel(chan, _Metadata(bearer(token)))
