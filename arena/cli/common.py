"""What every ``arena`` command shares: the one-line error, and connections that fail fast."""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Iterator
from typing import NoReturn, TypeAlias

import grpc

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


@contextlib.contextmanager
def arena_api(address: str) -> Iterator[arena_pb2_grpc.ArenaStub]:
    with channel(address, "the arena API") as chan:
        yield arena_pb2_grpc.ArenaStub(chan)
