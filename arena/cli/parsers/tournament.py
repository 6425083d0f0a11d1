"""Arguments of ``arena tournament ...`` and ``arena leaderboard [serve]``."""

from __future__ import annotations

import argparse
import re
from typing import Any

from arena.cli.common import DEFAULT_API
from arena.cli.parsers import (
    GAME_HELP,
    READ_TOKEN_ENV,
    add_api_flag,
    add_match_limit_flags,
    game,
    positive,
    subcommands,
)
from arena.throttle import BURST, READS_PER_S

FAIR_PLAY = ("open", "sealed", "trusted")
"""``--fair-play``: each one ``FAIR_PLAY_<NAME>`` in the API (``arena.cli.tournament``)."""
PARTNERS = ("shared", "isolated")
"""``--partners``: each one ``PARTNERS_<NAME>`` in the API."""
VIEWERS_PER_CLIENT = 8
"""``arena.web.relay.PER_CLIENT``."""
MAX_BROADCAST_DELAY_S = 3600.0
"""``arena.limits.MAX_BROADCAST_DELAY_S``."""
FORMATS = ("round-robin", "gauntlet", "swiss", "knockout", "sprt", "ladder")
"""``--format``: ``arena.tournament.formats.FORMATS``, in its order (``--help`` loads no
format: they load numpy)."""
FORMAT_FLAGS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("--rounds", {"type": int, "help": "rounds of a swiss tournament"}),
    (
        "--challenger",
        {
            "action": "append",
            "default": [],
            "metavar": "BOT",
            "help": "an entry that plays the rest of a gauntlet's field, repeatable",
        },
    ),
)
"""The flags that set a format's parameters, in the order ``--help`` lists them: each
one a ``Format.cli_params``, which says which format it is for and what it sets."""
MAX_SEED = 2**64 - 1
"""``arena.tournament.fair_play.MAX_SEED``."""


def master_seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"a master seed is 0..2^64-1 ({MAX_SEED}), got {value}")
    return value


def broadcast_delay(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 <= value <= MAX_BROADCAST_DELAY_S:
        raise argparse.ArgumentTypeError(
            f"a broadcast delay is 0 to {MAX_BROADCAST_DELAY_S:g} seconds, got {text}"
        )
    return value


def tournament(parser: argparse.ArgumentParser) -> None:
    tournaments = subcommands(parser)
    run = tournaments.add_parser("run", help="submit a tournament (round robin by default)")
    run.add_argument(
        "--entry",
        action="append",
        default=[],
        metavar="BOT",
        help="registered bot, repeat for each entry (none for a ladder)",
    )
    run.add_argument(
        "--format",
        choices=FORMATS,
        default="round-robin",
        help="round-robin (default): everyone plays everyone; gauntlet: the --challenger "
        "entries play the rest; swiss: --rounds rounds of pairings by score; knockout: "
        "single elimination seeded by rating; sprt: a version test of the first entry "
        "against the second (arena test does it with its options); ladder: always on "
        "over every registered bot that plays one of the --game games, until cancelled",
    )
    for flag, options in FORMAT_FLAGS:
        run.add_argument(flag, **options)
    run.add_argument(
        "--game",
        action="append",
        default=[],
        type=game,
        help=f"{GAME_HELP}; repeatable (default: all)",
    )
    run.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="GAME:NAME=VALUE",
        help="a game option every match of GAME plays with, as `arena games` lists GAME's "
        "options; repeatable (default: each game's defaults)",
    )
    run.add_argument(
        "--deals", type=int, default=2, help="deal seeds per pairing and game (default 2)"
    )
    run.add_argument(
        "--seed",
        type=master_seed,
        default=None,
        help="master seed 0..2^64-1, for a reproducible run (default: a secret one drawn by "
        "the arena; an operator's seed is marked as such in every read)",
    )
    run.add_argument(
        "--fair-play",
        choices=FAIR_PLAY,
        default="open",
        help="open (default): every match its own secret deal, for remote bots that may "
        "remember; sealed: duplicate pairs, hosted entries only; trusted: duplicate pairs "
        "between entries you vouch for",
    )
    run.add_argument(
        "--partners",
        choices=PARTNERS,
        default=None,
        help="isolated: every entry that plays a partnership game must be hosted, each seat "
        "its own sandbox; shared: a remote entry's one process plays both seats of its team, "
        "and every read says so (default: isolated when sealed, else shared)",
    )
    run.add_argument(
        "--broadcast-delay",
        type=broadcast_delay,
        default=0.0,
        metavar="SECONDS",
        help="live views show each event, and list each match, this long after it happens "
        "(default 0); longer than a match, a bot that watches learns nothing while it plays",
    )
    run.add_argument(
        "--max-entries-per-author",
        type=int,
        default=0,
        metavar="N",
        help="the most entries one author may have, 1 to 64 (default: 1 in a ladder or a sealed "
        "tournament, else no limit); one author's entries are never rated against each other",
    )
    add_match_limit_flags(run, "seat and match")
    run.add_argument("--name", default="", help="a label for listings")
    run.add_argument("--wait", action="store_true", help="show progress, then the leaderboard")
    run.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        help="print the tournament's id alone (for scripts: id=$(arena tournament run ... -q)); "
        "with --wait, print nothing more unless it does not finish",
    )
    add_api_flag(run)
    run.set_defaults(run="tournament:run")

    for name, helptext in (
        ("status", "show a tournament's progress"),
        ("resume", "re-queue a running tournament's unfinished matches"),
        ("cancel", "cancel a tournament for good (its seeds are then revealed)"),
        ("verify", "check an ended tournament's seeds, commitments and match records"),
    ):
        command = tournaments.add_parser(name, help=helptext)
        command.add_argument("id", help="tournament id")
        if name == "resume":
            command.add_argument(
                "--wait", action="store_true", help="show progress, then the leaderboard"
            )
        if name == "verify":
            command.add_argument(
                "--commitment",
                type=commitment,
                default="",
                metavar="HEX",
                help="the seed commitment as published when the tournament was submitted (64 "
                "hex digits): the revealed seed must hash to it, whatever the arena serves now",
            )
        add_api_flag(command)
        command.set_defaults(run=f"tournament:{name}")

    collusion = tournaments.add_parser(
        "collusion",
        help="for organisers: each pair of entries' results against each other, against "
        "what the rest of the tournament predicts, with the pairs past the threshold flagged",
    )
    collusion.add_argument("id", help="tournament id")
    collusion.add_argument(
        "--all", action="store_true", help="every pair that met, not only the flagged ones"
    )
    add_api_flag(collusion)
    collusion.set_defaults(run="tournament:collusion")

    live = tournaments.add_parser(
        "live",
        help="list the tournament's matches being played, each with its page on the site "
        "(/live/ID/MATCH: the card table as it is played)",
    )
    live.add_argument("id", help="tournament id")
    live.add_argument(
        "--wait",
        type=float,
        default=0.0,
        metavar="S",
        help="wait up to S seconds for a match to be played (default: list at once)",
    )
    add_api_flag(live)
    live.set_defaults(run="tournament:live")

    results = tournaments.add_parser("results", help="export a tournament's match results")
    results.add_argument("id", help="tournament id")
    results.add_argument("--csv", action="store_true", help="CSV instead of JSON")
    add_api_flag(results)
    results.set_defaults(run="tournament:results")

    listing = tournaments.add_parser("list", help="list tournaments, newest first")
    add_api_flag(listing)
    listing.set_defaults(run="tournament:list_tournaments")


def leaderboard(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tournament", default="", help="only this tournament (default: all)")
    parser.add_argument(
        "--game", default="", type=game, help=f"only this {GAME_HELP} (default: all together)"
    )
    parser.add_argument(
        "--compare",
        nargs=2,
        metavar=("A", "B"),
        help="A's Elo over B's with its 95%% interval and the chance A is the stronger (LOS)",
    )
    parser.add_argument(
        "--los", action="store_true", help="also the likelihood-of-superiority matrix (top 20)"
    )
    parser.add_argument(
        "--history",
        metavar="BOT",
        help="BOT's rating at each refit, a table per board (only --game's with --game)",
    )
    parser.add_argument(
        "--openskill",
        action="store_true",
        help="also each bot's OpenSkill rating (mu, sigma, ordinal = mu - 3 sigma)",
    )
    parser.add_argument(
        "--anchor",
        default="",
        metavar="BOT",
        help="fix BOT at --anchor-elo and show the others relative to it (default: the "
        "board centred on its bots' mean)",
    )
    parser.add_argument(
        "--anchor-elo",
        type=float,
        default=0.0,
        metavar="ELO",
        help="the anchor's Elo (default 0)",
    )
    parser.add_argument(
        "--prior-sd",
        type=float,
        metavar="ELO",
        help="sd of the fit's prior on each rating, above 0 (default 1000)",
    )
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=0,
        metavar="N",
        help="also 95%% bootstrap intervals from N resamples of the rated units, up to "
        "1000 (default 0: none)",
    )
    parser.add_argument(
        "--seed", type=_seed, default=0, help="the bootstrap's seed, 0 to 2**64 - 1 (default 0)"
    )
    parser.add_argument(
        "--every-version",
        action="store_true",
        help="rank each version of a hosted bot as a row of its own (default: a bot's "
        "newest version holds its place, its older ones folded under it)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--csv", action="store_true", help="print CSV")
    add_api_flag(parser)
    parser.set_defaults(run="tournament:leaderboard")
    # ``arena leaderboard`` alone still prints; ``serve`` is optional so that stays so.
    web = parser.add_subparsers(dest="board_command", metavar="{serve}").add_parser(
        "serve", help="serve the leaderboard as a read-only web page and JSON"
    )
    web.add_argument(
        "--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)"
    )
    web.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks one)")
    web.add_argument(
        "--viewers-per-client",
        type=positive(int),
        default=VIEWERS_PER_CLIENT,
        metavar="N",
        help=f"live-match viewers one client address may hold at once "
        f"(default {VIEWERS_PER_CLIENT})",
    )
    web.add_argument(
        "--replay-reads-per-s",
        type=positive(float),
        default=READS_PER_S,
        metavar="R",
        help="replay reads (pages, frames, sent requests) one client address may make a "
        f"second, in bursts of {BURST} (default {READS_PER_S:g})",
    )
    web.add_argument(
        "--api",
        default=argparse.SUPPRESS,  # unset here: keep what ``arena leaderboard --api`` parsed
        help=f"arena API host:port (default $ARENA_API or {DEFAULT_API})",
    )
    web.add_argument(
        "--read-token-file",
        metavar="PATH",
        help="file holding the read token (arena api serve and arena referee serve "
        "--read-token-file), sent with every call to the API and every WatchMatch: the "
        "site reads and watches for all its visitors, and without it the API and the "
        f"referees count them as one client (default: ${READ_TOKEN_ENV})",
    )
    web.set_defaults(run="tournament:serve")


def _seed(text: str) -> int:
    value = int(text)
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"a seed is 0 to 2**64 - 1, got {text}")
    return value


def commitment(text: str) -> str:
    """A seed commitment as a flag gives it: 64 hex digits (lowercased), or empty."""
    if text and not re.fullmatch(r"[0-9a-fA-F]{64}", text):  # "": the default, none pinned
        raise argparse.ArgumentTypeError(f"a commitment is 64 hex digits, got {text!r}")
    return text.lower()
