"""Bot processes: the command that starts one, and the ``start_bot`` fixture's type."""

from __future__ import annotations

import sys
from collections.abc import Callable

from arena.processes import Service, arena_command
from tests.support.paths import TESTS

BotFactory = Callable[..., Service]


def bot_command(name: str, *flags: str) -> list[str]:
    if name == "spy":
        return [sys.executable, str(TESTS / "bots" / "spy_bot.py"), "--port", "0", *flags]
    return arena_command("bot", "serve", name, "--port", "0", *flags)
