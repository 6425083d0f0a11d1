"""Arguments of ``arena test NEW --vs OLD``."""

from __future__ import annotations

import argparse

from arena.cli.parsers import GAME_HELP, add_api_flag, game
from arena.cli.parsers.tournament import FAIR_PLAY


def test(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Plays NEW against OLD in one game until a generalized SPRT accepts H0 "
        "(NEW is not better by elo1) or H1 (NEW is better by elo0 or more), printing the "
        "log-likelihood ratio, its bounds and the Elo estimate as it goes."
    )
    parser.add_argument("new", metavar="NEW", help="the entry under test (a bot, or bot@version)")
    parser.add_argument("--vs", required=True, metavar="OLD", help="the entry it is tested against")
    parser.add_argument("--game", required=True, type=game, help=f"the {GAME_HELP}")
    parser.add_argument("--elo0", type=float, default=0.0, help="Elo of H0 (default 0)")
    parser.add_argument("--elo1", type=float, default=5.0, help="Elo of H1 (default 5)")
    parser.add_argument("--alpha", type=float, default=0.05, help="false H1 rate (default 0.05)")
    parser.add_argument("--beta", type=float, default=0.05, help="false H0 rate (default 0.05)")
    parser.add_argument(
        "--max-units",
        type=int,
        default=0,
        help="stop undecided after this many units (default and most: 100000)",
    )
    parser.add_argument(
        "--fair-play",
        choices=FAIR_PLAY,
        default="open",
        help="open (default): units are single matches; sealed (hosted bots) or trusted: "
        "units are duplicate pairs, which decide sooner",
    )
    parser.add_argument(
        "--deadline-ms", type=float, default=1000, help="time per decision (default 1000)"
    )
    add_api_flag(parser)
    parser.set_defaults(run="sprt:version_test")
