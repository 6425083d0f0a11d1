"""Arguments of ``arena author add``."""

from __future__ import annotations

import argparse

from arena.cli.parsers import add_api_flag, subcommands


def author(parser: argparse.ArgumentParser) -> None:
    add = subcommands(parser).add_parser(
        "add",
        help="issue an author a token (printed alone on stdout); adding one again replaces "
        "the old token",
    )
    add.add_argument("name", help="author name (letters, digits, '-', '_', '.')")
    add_api_flag(add)
    add.set_defaults(run="author:add")
