"""The ``arena`` command. Each command group's arguments live in ``arena.cli.parsers``
and what it runs in a module here, imported only when one of its commands runs: ``arena
--help`` and a read such as ``arena bot list`` load nothing they do not use.

Every failure is one readable line on stderr and a nonzero exit code: 2 for a command
line that does not parse, 1 for anything that went wrong while running it.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

from arena import __version__
from arena.cli.common import CliError
from arena.cli.parsers import Parser, author, bot, match, play, services, sprt, tournament


def parser() -> argparse.ArgumentParser:
    top = Parser(
        prog="arena", description="Card Arena: referees, bots and tournaments for five card games."
    )
    top.add_argument("--version", action="version", version=f"arena {__version__}")
    groups = top.add_subparsers(dest="group", required=True, parser_class=Parser)
    for module in (services, bot, author, match, tournament, sprt, play):
        module.add_commands(groups)
    return top


def command(target: str) -> Callable[[argparse.Namespace], None]:
    """The run function a parser names as ``"MODULE:FUNCTION"`` of ``arena.cli``."""
    module, _, name = target.partition(":")
    run: Callable[[argparse.Namespace], None] = getattr(
        importlib.import_module(f"arena.cli.{module}"), name
    )
    return run


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        command(args.run)(args)
    except CliError as error:
        print(f"arena: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:
        grpc = sys.modules.get("grpc")  # only a command that loaded grpc can raise its errors
        if grpc is None or not isinstance(error, grpc.RpcError):
            raise
        code = error.code().name if hasattr(error, "code") else "ERROR"
        details = error.details() if hasattr(error, "details") else str(error)
        print(f"arena: error: {code}: {details}", file=sys.stderr)
        return 1
    return 0
