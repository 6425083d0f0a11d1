"""Packages of the example bots, made on the fly as an author would make them: for the
demo, the tests and the benches (``arena.hosting.package.pack`` turns one into bytes)."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import arena

REPOSITORY = Path(arena.__file__).resolve().parents[1]
NODE_BOT = REPOSITORY / "examples" / "node-bot"
PYTHON_COMMAND = "python3 bot.py"
NODE_COMMAND = "node bot.js"

HOUSE_BOT = """\
from arena.bots.examples.house import HouseBot
from arena.bots.sdk import serve

serve(HouseBot())
"""


def python_package(directory: Path, source: str, name: str = "bot.py") -> Path:
    """A package of one Python file (started by ``PYTHON_COMMAND``)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_text(textwrap.dedent(source))
    return directory


def house_package(directory: Path) -> Path:
    """The house bot, which plays every game, as a Python package."""
    return python_package(directory, HOUSE_BOT)


def node_package(directory: Path) -> Path:
    """The Node.js example bot (started by ``NODE_COMMAND``): its code, its
    node_modules (``make node``) and the arena's .proto files beside it, in ``proto/``."""
    if not (NODE_BOT / "node_modules").is_dir():
        raise FileNotFoundError(f"{NODE_BOT / 'node_modules'} is missing: run `make node`")
    skip = shutil.ignore_patterns(".bin", "README.md", ".gitignore")  # .bin holds links
    shutil.copytree(NODE_BOT, directory, ignore=skip)
    shutil.copytree(REPOSITORY / "proto" / "arena", directory / "proto" / "arena")
    return directory
