"""Arguments of ``arena games``, ``arena match play``, ``arena replay show|verify``."""

from __future__ import annotations

import argparse
import os
from typing import Any

from arena.cli.common import DEFAULT_API, DEFAULT_REPLAY_DIR
from arena.cli.parsers import GAME_HELP, add_match_limit_flags, add_referee_flags, game, subcommands
from arena.cli.parsers.services import _redis_flag


def games(parser: argparse.ArgumentParser) -> None:
    add_referee_flags(parser, "ask this referee (host:port) instead of the local engines")
    parser.set_defaults(run="match:games")


def match(parser: argparse.ArgumentParser) -> None:
    play = subcommands(parser).add_parser(
        "play", help="play one match between bots through a referee"
    )
    play.add_argument("--game", required=True, type=game, help=GAME_HELP)
    play.add_argument(
        "--bot",
        action=BotInOrder,
        type=bot_address,
        metavar="ADDR",
        help="bot address host:port, once per team or once per seat, in order",
    )
    play.add_argument(
        "--bot-command",
        action=BotInOrder,
        type=bot_command,
        metavar="CMD",
        help="start the bot: one process per seat, '{port}' in CMD is its port "
        "(once per team or once per seat; mixes with --bot in the order given)",
    )
    play.set_defaults(bot=None, bot_command=None, bots_in_order=None)
    play.add_argument("--seed", type=int, default=1, help="deal seed (default 1)")
    play.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE", help="game option"
    )
    add_match_limit_flags(play, "seat for the match")
    play.add_argument("--match-id", default="", help="id for the match (default: generated)")
    add_referee_flags(play, "referee host:port (default: start one in this process)", plays=True)
    play.add_argument(
        "--replay-dir", default=DEFAULT_REPLAY_DIR, help="replays, for the in-process referee"
    )
    play.add_argument("--json", action="store_true", help="print the result as JSON")
    play.set_defaults(run="match:play")


PORT = "{port}"
"""``arena.bots.launch.PORT``: where a bot command takes the port it is to listen on."""


def bot_command(text: str) -> str:
    """A ``--bot-command`` flag's type: a command that says where ``{port}`` goes, refused
    at once otherwise (the process would listen where the arena never looks)."""
    if PORT not in text:
        raise argparse.ArgumentTypeError(
            f"{text!r} has no {PORT}: the arena starts each process on a free port of its "
            f"choosing and puts the number where {PORT} is, as in 'python bot.py --port {PORT}'"
        )
    return text


def bot_address(text: str) -> str:
    """A ``--bot`` flag's type: the address of a bot already running, not a command."""
    if PORT in text:
        raise argparse.ArgumentTypeError(
            f"{text!r} is a command: --bot-command starts it; --bot takes a running bot's host:port"
        )
    return text


class BotInOrder(argparse.Action):
    """``--bot`` and ``--bot-command``, in the order given. ``bot`` lists the addresses;
    once a command is given, ``bot_command`` lists every bot in order, addresses among
    the commands (``arena.bots.launch.launched`` passes an address through), so that
    both flags mix: ``--bot ADDR --bot-command CMD`` is team 0 at ADDR, team 1 started."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        ordered = [*(getattr(namespace, "bots_in_order", None) or []), values]
        namespace.bots_in_order = ordered
        if self.dest == "bot":
            namespace.bot = [*(namespace.bot or []), values]
        if self.dest == "bot_command" or namespace.bot_command is not None:
            namespace.bot_command = ordered


def replay(parser: argparse.ArgumentParser) -> None:
    replays = subcommands(parser)
    show = replays.add_parser("show", help="print a replay hand by hand")
    show.add_argument("replay", help="replay id, path to a replay JSON file, or match id")
    show.add_argument("--replay-dir", default=DEFAULT_REPLAY_DIR, help="where to look for an id")
    add_referee_flags(show, "fetch the replay from this referee instead")
    _tournament_flags(show)
    show.add_argument("--json", action="store_true", help="print the raw JSON")
    show.set_defaults(run="match:show_replay")

    verify = replays.add_parser(
        "verify",
        help="check a replay's deal commitment and re-play it on the engine",
        description="Check that the replay's deal commitment is the sha256 of its match id "
        "and seed, then re-deal from the seed and check every deal, decision and score.",
    )
    verify.add_argument("replay", help="replay id, path to a replay JSON file, or match id")
    verify.add_argument("--replay-dir", default=DEFAULT_REPLAY_DIR, help="where to look for an id")
    add_referee_flags(verify, "fetch the replay from this referee instead")
    _tournament_flags(verify)
    verify.add_argument("--json", action="store_true", help="print the outcome as JSON")
    verify.set_defaults(run="match:verify_replay")

    imported = replays.add_parser(
        "import",
        help="store the records of replays a referee wrote to disk, for results without one",
        description="Results stored before the arena kept each match's record with its "
        "result have their decisions only in the replay files of the referee that played "
        "them. This reads those files, checks each against the engine and against its stored "
        "result, and stores its record beside the result. Every file is checked before "
        "anything is written; a result that has a record keeps it.",
    )
    imported.add_argument("directory", help="a referee's --replay-dir")
    _redis_flag(imported)
    imported.set_defaults(run="match:import_replays")


def _tournament_flags(parser: argparse.ArgumentParser) -> None:
    """Read a tournament's match from the arena API instead (built from its record)."""
    parser.add_argument(
        "--tournament",
        metavar="ID",
        help="the replay is this tournament's match REPLAY, read from the arena API",
    )
    parser.add_argument(
        "--api",
        default=os.environ.get("ARENA_API", DEFAULT_API),
        help=f"arena API host:port, with --tournament (default $ARENA_API or {DEFAULT_API})",
    )
    parser.set_defaults(token=None, token_file=None)
