"""Arguments of ``arena doctor``: the addresses every other command uses, from the same
flags and variables."""

from __future__ import annotations

import argparse
import os

from arena.cli.parsers import add_api_flag
from arena.cli.parsers.services import _redis_flag

DEFAULT_REFEREE = "127.0.0.1:50051"
"""As the workers' default (``workers.settings``)."""


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value <= 60:
        raise argparse.ArgumentTypeError(f"give more than 0 and at most 60 seconds, not {text}")
    return value


def doctor(parser: argparse.ArgumentParser) -> None:
    _redis_flag(parser)
    add_api_flag(parser)
    listed = os.environ.get("ARENA_REFEREES", "")
    parser.add_argument(
        "--referee",
        action="append",
        default=[],
        metavar="ADDR",
        help=f"referee host:port, repeatable (default $ARENA_REFEREES or {DEFAULT_REFEREE})",
    )
    parser.set_defaults(
        referees_from_env=[a.strip() for a in listed.split(",") if a.strip()] or [DEFAULT_REFEREE]
    )
    parser.add_argument(
        "--timeout",
        type=seconds,
        default=1.5,
        metavar="SECONDS",
        help="how long each check waits for an answer (default 1.5)",
    )
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")
    parser.set_defaults(run="doctor:doctor")
