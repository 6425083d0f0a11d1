"""Arguments of ``arena author add``, ``arena author join`` and ``arena token new``."""

from __future__ import annotations

import argparse

from arena.cli.parsers import add_api_flag, subcommands


def author(parser: argparse.ArgumentParser) -> None:
    commands = subcommands(parser)
    add = commands.add_parser(
        "add",
        help="issue an author a token (printed alone on stdout); adding one again replaces "
        "the old token",
    )
    add.add_argument("name", help="author name (letters, digits, '-', '_', '.')")
    add_api_flag(add)
    add.set_defaults(run="author:add")
    join = commands.add_parser(
        "join",
        help="join a competition with an invite code, becoming an author: the token is "
        "printed alone on stdout",
    )
    join.add_argument("name", help="your author name (letters, digits, '-', '_', '.')")
    join.add_argument("--invite", required=True, metavar="CODE", help="the organiser's invite code")
    add_api_flag(join)
    join.set_defaults(run="author:join")


def token(parser: argparse.ArgumentParser) -> None:
    new = subcommands(parser).add_parser(
        "new",
        help="make a new random token: the operator's for `arena api serve --token-file`, "
        "the referee's, or the site's read token",
    )
    new.add_argument(
        "--out",
        metavar="FILE",
        help="write it to FILE (made readable by its owner only; an existing file is never "
        "overwritten) instead of printing it",
    )
    new.set_defaults(run="author:new_token")
