"""Arguments of ``arena store``: the operator's upkeep of the arena's Redis data."""

from __future__ import annotations

import argparse

from arena.cli.parsers import subcommands
from arena.cli.parsers.services import _redis_flag


def store(parser: argparse.ArgumentParser) -> None:
    commands = subcommands(parser)
    migrate = commands.add_parser(
        "migrate",
        help="upgrade the data earlier builds stored to today's shapes",
        description="Upgrade every record earlier builds stored (results, tournament specs, "
        "bots, hosted versions, ratings tallies and boards, the results' order index) to "
        "the shapes this build reads, in place; readers refuse the older shapes until it "
        "has run. Stop the workers and the API first. Running it again changes nothing.",
    )
    _redis_flag(migrate)
    migrate.add_argument(
        "--dry-run", action="store_true", help="only count what would be upgraded; write nothing"
    )
    migrate.set_defaults(run="store:migrate")
