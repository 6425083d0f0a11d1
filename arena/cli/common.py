"""What every ``arena`` command shares: the one-line error, and connections that fail fast."""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Iterator
from typing import Any, NoReturn, TypeAlias

import grpc

from arena.api.auth import TOKEN_ENV, bearer
from arena.v1 import arena_pb2_grpc, referee_pb2_grpc

CONNECT_TIMEOUT_S = 5.0
DEFAULT_REPLAY_DIR = "replays"
DEFAULT_API = "127.0.0.1:50050"


class CliError(Exception):
    """A failure to report as one line."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


Groups: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""What ``add_subparsers`` returns: the place where commands are added."""


def group(parent: Groups, name: str, text: str) -> Groups:
    """A command group such as ``arena bot``, whose commands are added to the result."""
    commands: Groups = parent.add_parser(name, help=text).add_subparsers(
        dest="command", required=True
    )
    return commands


@contextlib.contextmanager
def channel(address: str, what: str) -> Iterator[grpc.Channel]:
    """A channel to a server that answers within a few seconds, or one clear error."""
    with grpc.insecure_channel(address) as chan:
        try:
            grpc.channel_ready_future(chan).result(timeout=CONNECT_TIMEOUT_S)
        except grpc.FutureTimeoutError:
            raise CliError(f"cannot reach {what} at {address}") from None
        yield chan


@contextlib.contextmanager
def referee(address: str) -> Iterator[referee_pb2_grpc.RefereeStub]:
    with channel(address, "a referee") as chan:
        yield referee_pb2_grpc.RefereeStub(chan)


def add_api_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--api",
        default=os.environ.get("ARENA_API", DEFAULT_API),
        help=f"arena API host:port (default $ARENA_API or {DEFAULT_API})",
    )
    parser.add_argument(
        "--token",
        default=os.environ.get(TOKEN_ENV),
        help=f"token for calls that change the arena (default ${TOKEN_ENV})",
    )


class _Metadata(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):  # type: ignore[type-arg]
    """Adds fixed metadata (the token) to every call."""

    def __init__(self, *entries: tuple[str, str]) -> None:
        self.entries = entries

    def _with(self, details: Any) -> Any:
        return details._replace(metadata=[*(details.metadata or ()), *self.entries])

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._with(details), request)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._with(details), request)


@contextlib.contextmanager
def arena_api(args: argparse.Namespace | str) -> Iterator[arena_pb2_grpc.ArenaStub]:
    """A stub for the API at ``args.api`` that sends ``args.token`` if there is one."""
    address = args if isinstance(args, str) else args.api
    token = None if isinstance(args, str) else args.token
    with channel(address, "the arena API") as chan:
        if token:
            yield arena_pb2_grpc.ArenaStub(grpc.intercept_channel(chan, _Metadata(bearer(token))))
        else:
            yield arena_pb2_grpc.ArenaStub(chan)
