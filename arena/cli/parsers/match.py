"""Arguments of ``arena games``, ``arena match play``, ``arena replay show|verify``."""

from __future__ import annotations

import argparse

from arena.cli.common import DEFAULT_REPLAY_DIR
from arena.cli.parsers import GAME_HELP, add_match_limit_flags, add_referee_flags, game, subcommands


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
    show.add_argument("replay", help="replay id or path to a replay JSON file")
    show.add_argument("--replay-dir", default=DEFAULT_REPLAY_DIR, help="where to look for an id")
    add_referee_flags(show, "fetch the replay from this referee instead")
    show.add_argument("--json", action="store_true", help="print the raw JSON")
    show.set_defaults(run="match:show_replay")

    verify = replays.add_parser(
        "verify",
        help="check a replay's deal commitment and re-play it on the engine",
        description="Check that the replay's deal commitment is the sha256 of its match id "
        "and seed, then re-deal from the seed and check every deal, decision and score.",
    )
    verify.add_argument("replay", help="replay id or path to a replay JSON file")
    verify.add_argument("--replay-dir", default=DEFAULT_REPLAY_DIR, help="where to look for an id")
    add_referee_flags(verify, "fetch the replay from this referee instead")
    verify.add_argument("--json", action="store_true", help="print the outcome as JSON")
    verify.set_defaults(run="match:verify_replay")
