"""Arguments of ``arena games``, ``arena match play``, ``arena replay show|verify``."""

from __future__ import annotations

import argparse
import os

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
    bots = play.add_mutually_exclusive_group(required=True)
    bots.add_argument(
        "--bot",
        action="append",
        metavar="ADDR",
        help="bot address host:port, once per team or once per seat, in order",
    )
    bots.add_argument(
        "--bot-command",
        action="append",
        metavar="CMD",
        help="start the bot: one process per seat, '{port}' in CMD is its port "
        "(once per team or once per seat)",
    )
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
