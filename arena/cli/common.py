"""What every ``arena`` command shares: the one-line error, and connections that fail fast."""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn, TypeAlias

import grpc

from arena.access import API, REFEREE, Guard, TokenFileError, bearer, read_token
from arena.bot_networks import ALLOW_ENV, DENY_ENV, BotNetworks, parse_networks
from arena.tls import ServerTls, channel_credentials, server_tls
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


TLS_CA_ENV = "ARENA_TLS_CA"


def add_tls_server_flags(
    parser: argparse.ArgumentParser, calls_bots: bool = False, verifies_clients: bool = False
) -> None:
    """``--tls-cert``/``--tls-key`` for a server; ``--bot-tls-ca`` if it calls bots;
    ``--tls-client-ca`` if it can require client certificates."""
    parser.add_argument("--tls-cert", help="serve TLS with this certificate chain (PEM)")
    parser.add_argument("--tls-key", help="the certificate's private key (PEM)")
    if verifies_clients:
        parser.add_argument(
            "--tls-client-ca",
            help="require mutual TLS: every client presents a certificate that a CA in this "
            "PEM file signed, and needs no token",
        )
    if calls_bots:
        parser.add_argument(
            "--bot-tls-ca", help="call bots over TLS, trusting the CAs in this PEM file"
        )


def add_tls_client_flag(parser: argparse.ArgumentParser, client_cert: bool = False) -> None:
    """``--tls-ca``; with ``client_cert``, the certificate to present for mutual TLS."""
    parser.add_argument(
        "--tls-ca",
        default=os.environ.get(TLS_CA_ENV),
        help=f"connect over TLS, trusting the CAs in this PEM file (default ${TLS_CA_ENV})",
    )
    if client_cert:
        parser.add_argument(
            "--tls-cert", help="present this client certificate (PEM), for mutual TLS"
        )
        parser.add_argument("--tls-key", help="the client certificate's private key (PEM)")


def tls_from_flags(
    args: argparse.Namespace,
) -> tuple[ServerTls | None, grpc.ChannelCredentials | None]:
    """A server's TLS and, for one that calls bots, the credentials it calls them with."""
    try:
        tls = server_tls(args.tls_cert, args.tls_key, getattr(args, "tls_client_ca", None))
        ca = getattr(args, "bot_tls_ca", None)
        return tls, channel_credentials(ca) if ca else None
    except (OSError, ValueError) as error:
        raise CliError(str(error)) from None


def token_from_flags(path: str | None, guard: Guard) -> str:
    """The token a server or worker reads from ``--token-file``-like ``path``, else from
    ``guard.env``; empty for neither."""
    try:
        return read_token(path, guard.env)
    except TokenFileError as error:
        raise CliError(str(error)) from None


def add_bot_network_flags(parser: argparse.ArgumentParser) -> None:
    """The operator's bot network policy (``arena.bot_networks``), for a server that
    dials the bot addresses its callers give."""
    parser.add_argument(
        "--bot-networks-allow",
        default=os.environ.get(ALLOW_ENV, ""),
        metavar="CIDRS",
        help=f"dial bots only in these comma-separated networks (default ${ALLOW_ENV}; "
        "unset: any network)",
    )
    parser.add_argument(
        "--bot-networks-deny",
        default=os.environ.get(DENY_ENV, ""),
        metavar="CIDRS",
        help=f"never dial bots in these networks (default ${DENY_ENV}); link-local, cloud "
        "metadata, multicast and unspecified addresses are refused unless allowed by name",
    )


def bot_networks_from_flags(args: argparse.Namespace) -> BotNetworks:
    try:
        return BotNetworks(
            parse_networks(args.bot_networks_allow, f"--bot-networks-allow (${ALLOW_ENV})"),
            parse_networks(args.bot_networks_deny, f"--bot-networks-deny (${DENY_ENV})"),
        )
    except ValueError as error:
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
        try:
            credentials = channel_credentials(ca, certificate, key)
        except (OSError, ValueError) as error:
            raise CliError(str(error)) from None
        opened = grpc.secure_channel(address, credentials)
    elif certificate:
        raise CliError("a client certificate (--tls-cert) needs --tls-ca: it is for TLS")
    else:
        opened = grpc.insecure_channel(address)
    with opened as chan:
        try:
            grpc.channel_ready_future(chan).result(timeout=CONNECT_TIMEOUT_S)
        except grpc.FutureTimeoutError:
            raise CliError(f"cannot reach {what} at {address}") from None
        yield chan


def add_referee_flags(parser: argparse.ArgumentParser, text: str, plays: bool = False) -> None:
    """``--referee`` and how to reach it: TLS, a client certificate and, for a command
    that plays matches on it, the referee's token."""
    parser.add_argument("--referee", help=text)
    add_tls_client_flag(parser, client_cert=True)
    if plays:
        parser.add_argument(
            "--referee-token",
            default=os.environ.get(REFEREE.env),
            help=f"token for a referee that has one (default ${REFEREE.env})",
        )


@contextlib.contextmanager
def referee(args: argparse.Namespace) -> Iterator[referee_pb2_grpc.RefereeStub]:
    """A stub for the referee at ``args.referee`` that sends ``args.referee_token`` if
    the command has one."""
    with channel(args.referee, "a referee", args.tls_ca, args.tls_cert, args.tls_key) as chan:
        yield referee_pb2_grpc.RefereeStub(_authorized(chan, getattr(args, "referee_token", None)))


def add_api_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--api",
        default=os.environ.get("ARENA_API", DEFAULT_API),
        help=f"arena API host:port (default $ARENA_API or {DEFAULT_API})",
    )
    token = parser.add_mutually_exclusive_group()
    token.add_argument(
        "--token",
        default=os.environ.get(API.env),
        help=f"token for calls that change the arena (default ${API.env})",
    )
    token.add_argument(
        "--token-file", help="file holding that token: unlike --token, not shown by ps"
    )
    add_tls_client_flag(parser)


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
    if not isinstance(args, str) and args.token_file:
        token = token_from_flags(args.token_file, API)
    ca = None if isinstance(args, str) else args.tls_ca
    with channel(address, "the arena API", ca) as chan:
        yield arena_pb2_grpc.ArenaStub(_authorized(chan, token))


def _authorized(chan: grpc.Channel, token: str | None) -> grpc.Channel:
    """``chan``, sending ``token`` with every call if there is one."""
    return grpc.intercept_channel(chan, _Metadata(bearer(token))) if token else chan


def parse_options(pairs: Sequence[str]) -> dict[str, str]:
    """``--option NAME=VALUE`` flags as a dict; the game checks names and values."""
    options = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise CliError(f"--option takes NAME=VALUE, got {pair!r}")
        options[name] = value
    return options
