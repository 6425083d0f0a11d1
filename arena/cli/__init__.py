"""The ``arena`` command. Each command group's arguments live in ``arena.cli.parsers``
and what it runs in a module here, imported only when one of its commands runs: ``arena
--help`` and a read such as ``arena bot list`` load nothing they do not use.

Every failure is one readable line on stderr and a nonzero exit code: 2 for a command
line that does not parse, 1 for anything that went wrong while running it.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import importlib
import sys
from collections.abc import Callable, Sequence

from arena import __version__
from arena.cli.common import CliError, UsageError
from arena.cli.parsers import COMMANDS, Parser


def parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole command line; for ``argv``, the one command it names is complete and
    the rest have their line in the help, enough to parse ``argv`` and to say why not."""
    top = Parser(
        prog="arena", description="Card Arena: referees, bots and tournaments for five card games."
    )
    top.add_argument("--version", action="version", version=f"arena {__version__}")
    groups = top.add_subparsers(dest="group", required=True, parser_class=Parser)
    named = next((word for word in argv if not word.startswith("-")), None) if argv else None
    for name, (module, text) in COMMANDS.items():
        command = groups.add_parser(name, help=text)
        if argv is None or name == named:
            getattr(importlib.import_module(f"arena.cli.parsers.{module}"), name)(command)
    return top


def command(target: str) -> Callable[[argparse.Namespace], None]:
    """The run function a parser names as ``"MODULE:FUNCTION"`` of ``arena.cli``."""
    module, _, name = target.partition(":")
    run: Callable[[argparse.Namespace], None] = getattr(
        importlib.import_module(f"arena.cli.{module}"), name
    )
    return run


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    # The cyclic collector's passes over the objects grpc and protobuf make as they load,
    # and its last pass over all of them at exit, took a quarter of `arena bot list`;
    # none of it frees anything worth having. A server collects as usual once it runs.
    atexit.register(gc.freeze)
    gc.disable()
    try:
        args = parser(words).parse_args(words)
        run = command(args.run)
    finally:
        gc.enable()
    try:
        run(args)
    except UsageError as error:
        print(f"arena: error: {error}", file=sys.stderr)
        return 2
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
