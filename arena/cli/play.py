"""``arena play``: a person plays a match in the terminal against a bot."""

from __future__ import annotations

import argparse
import asyncio
import shlex
import sys

from arena.cli.common import DEFAULT_REPLAY_DIR, CliError, Groups, parse_options
from arena.games import OptionError, UnknownGameError, game_names, get_game

DESCRIPTION = """\
Play a match yourself, in this terminal, against a bot: the house bot (each
game's rule-based bot) played in this process, or the bot at --vs. The match
runs through a referee started in this process, as any match does, and is
recorded as a replay.

Before each of your moves you see the scores, what happened since your last
move, the table as your seat sees it (every field of your seat's observation),
your hand, and the legal actions, numbered. Answer with a number or with an
action's text (e.g. "play QH", any case); ? shows the help, t the table again,
q leaves (asks first). In 4-seat games you play both seats of your team; each
prompt names the seat.

Time: each move may take --deadline-s seconds (at most 60, the referee's
limit), and may run over by what is left of a --time-bank-s bank for the whole
match (at most 3600). A move not made in time is a fault: the referee plays
one for you.

Leaving (q, then y, or end of input) stops serving your seats: the referee
plays their next moves as faults and, at 3 faults, your team forfeits; the
result and the replay are recorded and printed. Exit code 0 when the match
ended (played out or forfeited after leaving), 1 for an error (unknown game,
bad option, unreachable --vs bot), 2 for a bad command line, 130 after Ctrl-C
(the match is abandoned and not recorded)."""


def add_commands(groups: Groups) -> None:
    games = ", ".join(game_names())
    play = groups.add_parser(
        "play",
        help="play a match yourself in the terminal against a bot",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    play.add_argument("--game", required=True, help=f"game name: {games}")
    play.add_argument(
        "--vs",
        metavar="ADDRESS",
        help="play against the bot at host:port (default: the house bot, in this process)",
    )
    side = play.add_mutually_exclusive_group()
    side.add_argument(
        "--team", type=int, help="your team, 0 or 1 (default 0); you play all its seats"
    )
    side.add_argument("--seat", type=int, help="play the team of this seat (0-based)")
    play.add_argument("--seed", type=int, default=1, help="deal seed (default 1)")
    play.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="game option, as for arena match play (see arena games)",
    )
    play.add_argument(
        "--deadline-s",
        type=float,
        default=60.0,
        help="seconds per move, at most 60 (default 60)",
    )
    play.add_argument(
        "--time-bank-s",
        type=float,
        default=3600.0,
        help="seconds a move may run over its deadline, in all, for the match; "
        "at most 3600 (default 3600; 0 for none)",
    )
    play.add_argument(
        "--replay-dir",
        default=DEFAULT_REPLAY_DIR,
        help=f"where the replay is written (default {DEFAULT_REPLAY_DIR})",
    )
    play.set_defaults(run=_play)


def _play(args: argparse.Namespace) -> None:
    from arena import limits, wire
    from arena.play import PlayConfig, PlayError, play
    from arena.referee.requests import InvalidRequest, check_address

    try:
        info = get_game(args.game).info
    except UnknownGameError as error:
        raise CliError(str(error)) from None
    options = parse_options(args.option)
    try:
        info.resolve_options(options)
    except OptionError as error:
        raise CliError(str(error)) from None
    if args.seat is not None:
        if not 0 <= args.seat < info.num_seats:
            raise CliError(f"--seat must be 0 to {info.num_seats - 1} in {info.name}")
        team = info.seat_teams[args.seat]
    else:
        team = 0 if args.team is None else args.team
        if not 0 <= team < info.num_teams:
            raise CliError(f"--team must be 0 to {info.num_teams - 1} in {info.name}")
    try:  # the referee's own limits, said in this command's words
        limits.move_deadline_s(wire.duration(args.deadline_s), "--deadline-s")
        limits.time_bank_s(wire.duration(args.time_bank_s), "--time-bank-s")
    except limits.LimitError as error:
        raise CliError(str(error)) from None
    if args.vs:
        try:
            check_address(args.vs)
        except InvalidRequest as error:
            raise CliError(f"--vs: {error}") from None
    show = "arena replay show {id}"
    if args.replay_dir != DEFAULT_REPLAY_DIR:
        show += f" --replay-dir {shlex.quote(args.replay_dir)}"
    config = PlayConfig(
        game=info.name,
        team=team,
        seed=args.seed,
        options=options,
        vs=args.vs,
        deadline_s=args.deadline_s,
        time_bank_s=args.time_bank_s,
        replay_dir=args.replay_dir,
        replay_command=show,
    )
    if hasattr(sys.stdout, "reconfigure"):  # suit symbols on a terminal that lacks them
        sys.stdout.reconfigure(errors="replace")
    try:
        asyncio.run(play(config))
    except PlayError as error:
        raise CliError(str(error)) from None
    except KeyboardInterrupt:
        print("\nInterrupted: the match is abandoned and not recorded.", file=sys.stderr)
        raise
