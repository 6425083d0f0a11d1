"""Arguments of ``arena author add``."""

from __future__ import annotations

from arena.cli.parsers import Groups, add_api_flag, group


def add_commands(groups: Groups) -> None:
    authors = group(groups, "author", "issue tokens to authors of hosted bots (operator)")
    add = authors.add_parser(
        "add",
        help="issue an author a token (printed alone on stdout); adding one again replaces "
        "the old token",
    )
    add.add_argument("name", help="author name (letters, digits, '-', '_', '.')")
    add_api_flag(add)
    add.set_defaults(run="author:add")
