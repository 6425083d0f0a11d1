"""``arena play``: a person plays a match in the terminal against a bot."""

from __future__ import annotations

import argparse
import asyncio
import shlex
import sys

from arena.cli.common import DEFAULT_REPLAY_DIR, CliError, UsageError, parse_options
from arena.games import OptionError, UnknownGameError, get_game


def play(args: argparse.Namespace) -> None:
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
        raise UsageError(str(error)) from None
    if args.team is not None:  # asked for: the person plays every seat of the team
        if not 0 <= args.team < info.num_teams:
            raise UsageError(f"--team must be 0 to {info.num_teams - 1} in {info.name}")
        seats = info.seats_of_team(args.team)
    else:  # one seat; a partner's seat is the house bot's
        seat = 0 if args.seat is None else args.seat
        if not 0 <= seat < info.num_seats:
            raise UsageError(f"--seat must be 0 to {info.num_seats - 1} in {info.name}")
        seats = (seat,)
    try:  # the referee's own limits, said in this command's words
        limits.move_deadline_s(wire.duration(args.deadline_s), "--deadline-s")
        limits.time_bank_s(wire.duration(args.time_bank_s), "--time-bank-s")
    except limits.LimitError as error:
        raise UsageError(str(error)) from None
    if args.vs:
        try:
            check_address(args.vs)
        except InvalidRequest as error:
            raise UsageError(f"--vs: {error}") from None
    show = "arena replay show {id}"
    if args.replay_dir != DEFAULT_REPLAY_DIR:
        show += f" --replay-dir {shlex.quote(args.replay_dir)}"
    config = PlayConfig(
        game=info.name,
        seats=seats,
        seed=args.seed,
        options=options,
        vs=args.vs,
        deadline_s=args.deadline_s,
        time_bank_s=args.time_bank_s,
        replay_dir=args.replay_dir,
        replay_command=show,
        full=args.full,
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
