"""The ``arena`` command line. ``COMMANDS`` lists the top-level commands; each one's
arguments are added by the function of its name in a module here, called only for the
command being run (argparse makes a parser per command, each looking up its
translations: all 40 took 5-15 ms, half of Python's own start). These modules import
nothing heavy: a command names its run function as ``"MODULE:FUNCTION"`` in
``arena.cli``, imported only when it runs.

The few names the help shows that live in heavy modules (environment variables here,
game and runtime names, formats and the seed range in the modules) are copies;
``tests/cli/test_cli_imports.py`` checks each one.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import NoReturn, TypeAlias

from arena.cli.common import DEFAULT_API
from arena.games.registry import builtin_game_names

API_TOKEN_ENV = "ARENA_API_TOKEN"
"""``arena.access.API.env``."""
READ_TOKEN_ENV = "ARENA_READ_TOKEN"
"""``arena.api.reads.READ_TOKEN_ENV``."""
REFEREE_TOKEN_ENV = "ARENA_REFEREE_TOKEN"
"""``arena.access.REFEREE.env``."""
BOT_ALLOW_ENV = "ARENA_BOT_ALLOW"
"""``arena.bot_networks.ALLOW_ENV``."""
BOT_DENY_ENV = "ARENA_BOT_DENY"
"""``arena.bot_networks.DENY_ENV``."""
TLS_CA_ENV = "ARENA_TLS_CA"
GAMES = tuple(builtin_game_names())
"""``arena.games.game_names()``, without loading the engines to say them."""
GAME_HELP = f"game: {', '.join(GAMES)} (any case; spaces or _ for -)"
"""What a ``--game`` flag's help says, the same in every command."""

COMMANDS = {
    "referee": ("services", "run a referee"),
    "api": ("services", "run the arena API"),
    "worker": ("services", "run a Celery worker that plays tournament matches"),
    "bot": ("bot", "serve example bots and manage the bot registry"),
    "author": ("author", "issue tokens to authors of hosted bots (operator), or join by invite"),
    "token": ("author", "make a new random token for a server's --token-file (operator)"),
    "games": ("match", "list the games and their options"),
    "match": ("match", "play matches"),
    "replay": ("match", "read and check replays"),
    "tournament": ("tournament", "run and follow tournaments"),
    "competition": ("competition", "run a competition: create, invite, show, cancel"),
    "leaderboard": ("tournament", "print ratings from stored results (serve: as a web page)"),
    "test": ("sprt", "test a new version against an old one: an SPRT, or --games N and a report"),
    "play": ("play", "play a match yourself in the terminal against a bot"),
    "doctor": ("doctor", "check that Redis, referees, the API, workers and bots answer"),
    "backup": ("backup", "copy the arena's Redis database into a file"),
    "restore": ("backup", "put a backup into an empty Redis database"),
    "store": ("store", "upgrade the data earlier builds stored (operator; workers stopped)"),
}
"""Each top-level command: the module here whose function of the same name adds its
arguments, and its line in ``arena --help``."""


def game(typed: str) -> str:
    """A ``--game`` flag's type: the canonical name of the game typed, so that an
    unknown one is a usage error, the same line in every command, before any server is
    called. The engines load only for a name that is not already canonical."""
    if typed in GAMES or not typed:  # "" is a flag's "all games" default
        return typed
    from arena.games import UnknownGameError, game_name

    try:
        return game_name(typed)
    except UnknownGameError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


Groups: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""What ``add_subparsers`` returns: the place where commands are added."""


def positive(kind: type[int] | type[float]) -> Callable[[str], float]:
    """A flag's type: a number of ``kind`` above 0, or a usage error saying so."""

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
        return value

    return parse


def subcommands(parser: argparse.ArgumentParser) -> Groups:
    """The commands of a group such as ``arena bot``, which are added to the result."""
    commands: Groups = parser.add_subparsers(dest="command", required=True)
    return commands


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


def add_bot_network_flags(parser: argparse.ArgumentParser) -> None:
    """The operator's bot network policy (``arena.bot_networks``), for a server that
    dials the bot addresses its callers give."""
    parser.add_argument(
        "--bot-networks-allow",
        default=os.environ.get(BOT_ALLOW_ENV, ""),
        metavar="CIDRS",
        help=f"dial bots only in these comma-separated networks (default ${BOT_ALLOW_ENV}; "
        "unset: any network)",
    )
    parser.add_argument(
        "--bot-networks-deny",
        default=os.environ.get(BOT_DENY_ENV, ""),
        metavar="CIDRS",
        help=f"never dial bots in these networks (default ${BOT_DENY_ENV}); link-local, cloud "
        "metadata, multicast and unspecified addresses are refused unless allowed by name, "
        "as are IPv6 addresses that embed them (NAT64, 6to4, IPv4-mapped, ...)",
    )


def add_referee_flags(parser: argparse.ArgumentParser, text: str, plays: bool = False) -> None:
    """``--referee`` and how to reach it: TLS, a client certificate and, for a command
    that plays matches on it, the referee's token."""
    parser.add_argument("--referee", help=text)
    add_tls_client_flag(parser, client_cert=True)
    if plays:
        parser.add_argument(
            "--referee-token",
            default=os.environ.get(REFEREE_TOKEN_ENV),
            help=f"token for a referee that has one (default ${REFEREE_TOKEN_ENV})",
        )


def add_match_limit_flags(parser: argparse.ArgumentParser, bank: str) -> None:
    """A match's clock and fault limit, as ``match play`` and ``tournament run`` take them;
    ``bank`` says what the time bank is per ("seat for the match", "seat and match")."""
    parser.add_argument(
        "--deadline-ms", type=float, default=1000, help="time per decision (default 1000)"
    )
    parser.add_argument(
        "--time-bank-ms",
        type=float,
        default=0,
        help=f"extra time per {bank} beyond the deadlines (default 0: none)",
    )
    parser.add_argument(
        "--max-faults", type=int, default=0, help="faults before a forfeit (default 3)"
    )


def add_api_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--api",
        default=os.environ.get("ARENA_API", DEFAULT_API),
        help=f"arena API host:port (default $ARENA_API or {DEFAULT_API})",
    )
    token = parser.add_mutually_exclusive_group()
    token.add_argument(
        "--token",
        default=os.environ.get(API_TOKEN_ENV),
        help=f"token for calls that change the arena (default ${API_TOKEN_ENV})",
    )
    token.add_argument(
        "--token-file", help="file holding that token: unlike --token, not shown by ps"
    )
    add_tls_client_flag(parser)
