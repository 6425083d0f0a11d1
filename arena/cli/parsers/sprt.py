"""Arguments of ``arena test NEW --vs OLD``."""

from __future__ import annotations

import argparse

from arena.cli.parsers import GAME_HELP, add_api_flag, game
from arena.cli.parsers.tournament import FAIR_PLAY, master_seed

REMOTE_ONLY = ("api", "token", "token_file", "tls_ca")
"""Destinations of ``add_api_flag``'s flags, which ``--local`` does not take."""


def test(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Plays NEW against OLD in one game until a generalized SPRT accepts H0 "
        "(NEW is not better by elo1) or H1 (NEW is better by elo0 or more), printing the "
        "log-likelihood ratio, its bounds and the Elo estimate (median-unbiased, with its 95% "
        "interval) as it goes. Exit 0 when "
        "H1 is accepted, 1 otherwise. With --games N, plays exactly N units instead and "
        "reports, as cutechess does, won/drawn/lost, the score, the Elo difference with "
        "its 95% interval and the likelihood of superiority (exit 0). With --local, NEW "
        "and OLD are bots on this machine (an example bot such as random or "
        "a game's GAME-basic, FILE.py[:CLASS] or MODULE:CLASS, constructed with no arguments "
        "for every match), played in duplicate pairs on all cores with no arena: the same "
        "test, seeds and scoring; a bot that raises or answers an illegal action stops it."
    )
    parser.add_argument(
        "new",
        metavar="NEW",
        help="the entry under test (a bot, or bot@version; with --local, a local bot)",
    )
    parser.add_argument("--vs", required=True, metavar="OLD", help="the entry it is tested against")
    parser.add_argument("--game", required=True, type=game, help=f"the {GAME_HELP}")
    parser.add_argument(
        "--games",
        type=int,
        metavar="N",
        help="play exactly N units and report the strength, with no SPRT: N duplicate "
        "pairs (2N matches) with --local or --fair-play sealed|trusted, N matches in open "
        "play (an even number: each deal in both seatings)",
    )
    parser.add_argument("--elo0", type=float, help="SPRT: Elo of H0 (default 0; -400 to 400)")
    parser.add_argument(
        "--elo1",
        type=float,
        help="SPRT: Elo of H1 (default 5; -400 to 400, at most 50 above --elo0)",
    )
    parser.add_argument("--alpha", type=float, help="SPRT: false H1 rate (default 0.05)")
    parser.add_argument("--beta", type=float, help="SPRT: false H0 rate (default 0.05)")
    parser.add_argument(
        "--max-units",
        type=int,
        help="SPRT: stop undecided after this many units (default and most: 100000)",
    )
    parser.add_argument(
        "--fair-play",
        choices=FAIR_PLAY,
        help="open (default): units are single matches; sealed (hosted bots) or trusted: "
        "units are duplicate pairs, which decide sooner (not with --local, which plays pairs)",
    )
    parser.add_argument(
        "--deadline-ms", type=float, help="time per decision (default 1000; not with --local)"
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a game option every match plays with, as `arena games` lists the game's "
        "options; repeatable (default: the game's defaults)",
    )
    parser.add_argument(
        "--local",
        action="store_true",
        help="play here, in process, without the arena: NEW and OLD are local bots",
    )
    parser.add_argument(
        "--workers",
        type=int,
        help="--local: processes playing pairs (default: one per core); the result does "
        "not depend on it",
    )
    parser.add_argument(
        "--seed",
        type=master_seed,
        help="--local: master seed 0..2^64-1, for a reproducible run (default: a random one, "
        "printed)",
    )
    add_api_flag(parser)
    # Unset unless given, so that --local can refuse them; version_test puts the defaults back.
    parser.set_defaults(
        fair_play=None,
        remote_defaults={flag: parser.get_default(flag) for flag in REMOTE_ONLY},
        **dict.fromkeys(REMOTE_ONLY),
    )
    parser.set_defaults(run="sprt:version_test")
