"""Arguments of ``arena play``."""

from __future__ import annotations

import argparse

from arena.cli.common import DEFAULT_REPLAY_DIR
from arena.cli.parsers import GAME_HELP, game

DESCRIPTION = """\
Play a match yourself, in this terminal, against a bot: the house bot (each
game's rule-based bot) played in this process, or the bot at --vs. The match
runs through a referee started in this process, as any match does, and is
recorded as a replay.

Before each of your moves you see the scores, what happened since your last
move, what changed at the table as your seat sees it (the whole table the first
time, and with t or --full: every field of your seat's observation), your hand,
and the legal actions, numbered, their cards shown as in your hand. Answer with
a number or with an action's text (e.g. "play 10♣" or "play TC", any case); ?
shows the help, t the whole table, q leaves (asks first). A move with no
alternative is played for you, with a note. Typing a card or call that is not
legal says which rule forbids it.

In 4-seat games you play one seat (--seat, default 0) and the house bot plays
your partner, so you see only your own hand; --team T plays both seats of team
T yourself (each prompt names the seat). The opponents are the house bot or
the bot at --vs.

Time: each move may take --deadline-s seconds (at most 60, the referee's
limit), and may run over by what is left of a --time-bank-s bank for the whole
match (at most 3600). A move not made in time is a fault: the referee plays
one for you.

Leaving (q, then y; the end of input; or Ctrl-C) is recorded as leaving: your
team forfeits at once, with a "left" fault, and the result and the replay are
recorded and printed. Exit code 0 when the match ended (played out or forfeited
after leaving), 1 for an error (bad option, unreachable --vs bot), 2 for a bad
command line (such as an unknown game), 130 after a second Ctrl-C (the match is
abandoned and not recorded)."""


def play(parser: argparse.ArgumentParser) -> None:
    parser.description = DESCRIPTION
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--game", required=True, type=game, help=GAME_HELP)
    parser.add_argument(
        "--vs",
        metavar="ADDRESS",
        help="play against the bot at host:port (default: the house bot, in this process)",
    )
    side = parser.add_mutually_exclusive_group()
    side.add_argument(
        "--team", type=int, help="play every seat of this team yourself, partner included"
    )
    side.add_argument(
        "--seat",
        type=int,
        help="your seat, 0-based (default 0); the house bot plays your partner",
    )
    parser.add_argument("--seed", type=int, default=1, help="deal seed (default 1)")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="game option, as for arena match play (see arena games)",
    )
    parser.add_argument(
        "--deadline-s",
        type=float,
        default=60.0,
        help="seconds per move, at most 60 (default 60)",
    )
    parser.add_argument(
        "--time-bank-s",
        type=float,
        default=3600.0,
        help="seconds a move may run over its deadline, in all, for the match; "
        "at most 3600 (default 3600; 0 for none)",
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help="show the whole table before every move, not only what changed",
    )
    parser.add_argument(
        "--replay-dir",
        default=DEFAULT_REPLAY_DIR,
        help=f"where the replay is written (default {DEFAULT_REPLAY_DIR})",
    )
    parser.set_defaults(run="play:play")
