"""Bots named on a command line, to be played in this process (``arena test --local``).

A name is one of three things:

- an example bot as ``arena bot serve`` knows it (``random``, ``house``,
  a game's ``GAME-basic``...; not ``chaos``, which misbehaves over the network only);
- ``path/to/bot.py`` or ``path/to/bot.py:Class``: a Python file defining an SDK ``Bot``
  subclass (the one it defines, when the class is not named); the file is loaded as a
  module not named ``__main__``, so its ``serve(...)`` under ``if __name__ ==
  "__main__"`` does not run;
- ``package.module:Class``: a class importable from ``sys.path``.

The class is called with no arguments, once per match: every match starts from the bot
as constructed, so results depend on the seeds only, not on which process played what.

``python -m arena.bots.named NAME --port PORT`` serves such a bot over gRPC, one
instance for all its matches, as ``arena bot check FILE.py`` starts it (``command``).
A name that is none of the three, such as ``127.0.0.1:50061``, is a running bot's
address (``is_local``).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.util
import inspect
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

from arena.bots.sdk import Bot

NOT_LOCAL = frozenset({"chaos"})
"""Example bots that make no sense in process: chaos's faults are network ones."""

BotFactory = Callable[[], Bot]

_loaded: dict[str, BotFactory] = {}
"""Per name, its factory: a forked worker inherits the parent's, and a file loads once."""


class BotLoadError(ValueError):
    """The name does not lead to a bot; the message says why, in one line."""


def bot_factory(name: str) -> BotFactory:
    """What makes a fresh bot of ``name`` (see the module's docstring); raises
    BotLoadError for a name that leads nowhere or to something that is not a ``Bot``."""
    if name not in _loaded:
        _loaded[name] = _resolve(name)
    return _loaded[name]


def is_local(name: str) -> bool:
    """Whether ``name`` names a bot to load here (a file, ``MODULE:CLASS`` or an example
    name), not the address of a running bot (``host:port``, ``[::1]:port``,
    ``unix:/path``): an address's last part is a port number or a path, never a class."""
    where, colon, last = name.rpartition(":")
    if not colon:
        return True
    if name.partition(":")[0].endswith(".py"):
        return True
    return last.isidentifier() and all(part.isidentifier() for part in where.split("."))


def command(name: str, host: str = "127.0.0.1") -> str:
    """The command that serves the bot ``name`` on ``{port}`` (``arena.bots.launch``)."""
    argv = [sys.executable, "-m", "arena.bots.named", name, "--host", host]
    return shlex.join(argv) + " --port {port}"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m arena.bots.named",
        description="Serve a bot named as `arena test --local` takes it: an example bot, "
        "FILE.py[:CLASS] or MODULE:CLASS, constructed once with no arguments.",
    )
    parser.add_argument("name", help="the bot")
    parser.add_argument("--port", type=int, required=True, help="port (0 picks one)")
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on")
    args = parser.parse_args(argv)
    try:
        bot = bot_factory(args.name)()
    except BotLoadError as error:
        parser.exit(2, f"{parser.prog}: error: {error}\n")
    from arena.bots.sdk import serve

    serve(bot, port=args.port, host=args.host)


def _resolve(name: str) -> BotFactory:
    where, _, class_name = name.partition(":")
    if where.endswith(".py"):
        return _pick(_load_file(name, Path(where)), class_name, name)
    if class_name:
        try:
            module = importlib.import_module(where)
        except Exception as error:  # any failure of the import is the bot's
            raise BotLoadError(f"cannot import bot module {where!r}: {_said(error)}") from None
        return _pick(module, class_name, name)
    from arena.bots.examples import EXAMPLES

    examples = sorted(set(EXAMPLES) - NOT_LOCAL)
    if name not in examples:
        raise BotLoadError(
            f"unknown bot {name!r}: give an example bot ({', '.join(examples)}), "
            "a file FILE.py[:CLASS] or MODULE:CLASS"
        )
    return EXAMPLES[name]


def _load_file(name: str, path: Path) -> ModuleType:
    if not path.is_file():
        raise BotLoadError(f"bot {name!r}: no file {str(path)!r}")
    resolved = path.resolve()
    digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:12]
    module_name = f"arena_local_bot_{resolved.stem.replace('-', '_')}_{digest}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, resolved)
    if spec is None or spec.loader is None:
        raise BotLoadError(f"bot {name!r}: {str(path)!r} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # whatever the file raises is its author's
        del sys.modules[module_name]
        raise BotLoadError(f"cannot load bot file {str(path)!r}: {_said(error)}") from None
    return module


def _pick(module: ModuleType, class_name: str, name: str) -> BotFactory:
    if class_name:
        found = getattr(module, class_name, None)
        if not (inspect.isclass(found) and issubclass(found, Bot)):
            what = "no such name" if found is None else "not a subclass of arena.bots.Bot"
            raise BotLoadError(f"bot {name!r}: {class_name} in {module.__name__}: {what}")
        return found
    own = [
        value
        for value in vars(module).values()
        if inspect.isclass(value)
        and issubclass(value, Bot)
        and value is not Bot
        and value.__module__ == module.__name__
    ]
    if len(own) != 1:
        names = ", ".join(c.__name__ for c in own) or "none"
        raise BotLoadError(
            f"bot {name!r}: the file defines {len(own)} Bot subclasses ({names}); "
            "name one as FILE.py:CLASS"
        )
    return own[0]


def _said(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


if __name__ == "__main__":
    main()
