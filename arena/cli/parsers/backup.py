"""Arguments of ``arena backup`` and ``arena restore``."""

from __future__ import annotations

import argparse

from arena.cli.parsers.services import _redis_flag


def backup(parser: argparse.ArgumentParser) -> None:
    _redis_flag(parser)
    parser.add_argument(
        "file", help="where to write the copy (written whole, then moved into place)"
    )
    parser.set_defaults(run="backup:make")


def restore(parser: argparse.ArgumentParser) -> None:
    _redis_flag(parser)
    parser.add_argument("file", help="a file `arena backup` wrote")
    parser.set_defaults(run="backup:put_back")
