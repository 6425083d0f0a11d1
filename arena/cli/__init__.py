"""The ``arena`` command. Each command group lives in its own module here.

Every failure is one readable line on stderr and a nonzero exit code: 2 for a command
line that does not parse, 1 for anything that went wrong while running it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import grpc

from arena import __version__
from arena.cli import author, bot, match, play, services, sprt, tournament
from arena.cli.common import CliError, Parser


def parser() -> argparse.ArgumentParser:
    top = Parser(
        prog="arena", description="Card Arena: referees, bots and tournaments for five card games."
    )
    top.add_argument("--version", action="version", version=f"arena {__version__}")
    groups = top.add_subparsers(dest="group", required=True, parser_class=Parser)
    for module in (services, bot, author, match, tournament, sprt, play):
        module.add_commands(groups)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        args.run(args)
    except CliError as error:
        print(f"arena: error: {error}", file=sys.stderr)
        return 1
    except grpc.RpcError as error:
        code = error.code().name if hasattr(error, "code") else "ERROR"
        details = error.details() if hasattr(error, "details") else str(error)
        print(f"arena: error: {code}: {details}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    return 0
