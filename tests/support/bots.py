"""Bot processes: the command that starts one, and a pool of the stateless ones.

Tests start a bot process about 250 times a run, mostly the house bot and random bots,
each a third of a second of CPU before it answers anything. Those bots keep no state
between requests (a random bot's move is a hash of its seed and the request), so a test
run keeps one process per (name, example, flags) for every test of one pytest process
that asks for it: the same behaviour, one start. A test that stops or kills one gets a
new one the next time it is asked for."""

from __future__ import annotations

import sys
from collections import OrderedDict
from collections.abc import Callable

from arena.processes import Service, arena_command, start_service
from tests.support.paths import TESTS

BotFactory = Callable[..., Service]

STATELESS = frozenset({"house", "random"})
"""Examples whose every answer depends only on the request and their flags."""
POOL_SIZE = 16
"""Processes kept at most (the least recently used goes first): ~50 MB each."""


def bot_command(name: str, *flags: str) -> list[str]:
    if name == "spy":
        return [sys.executable, str(TESTS / "bots" / "spy_bot.py"), "--port", "0", *flags]
    return arena_command("bot", "serve", name, "--port", "0", *flags)


def poolable(example: str, flags: tuple[str, ...]) -> bool:
    """A stateless example with no flag but ``--seed N``."""
    return example in STATELESS and (flags == () or (len(flags) == 2 and flags[0] == "--seed"))


class BotPool:
    """Bot processes shared by the tests of one pytest process (see the module)."""

    def __init__(self, size: int = POOL_SIZE) -> None:
        self.size = size
        self._bots: OrderedDict[tuple[str, ...], Service] = OrderedDict()

    def get(self, name: str, example: str, *flags: str) -> Service:
        """The pool's process for ``name`` playing ``example`` with ``flags`` (a test's
        two bots of one example under two names are two processes, as without a pool)."""
        key = (name, example, *flags)
        bot = self._bots.pop(key, None)
        if bot is None or bot.process.poll() is not None:
            bot = start_service(bot_command(example, *flags))
        self._bots[key] = bot
        while len(self._bots) > self.size:
            _, oldest = self._bots.popitem(last=False)
            oldest.stop()
        return bot

    def owns(self, bot: Service) -> bool:
        return any(bot is kept for kept in self._bots.values())

    def stop(self) -> None:
        while self._bots:
            _, bot = self._bots.popitem()
            bot.stop()


POOL = BotPool()
"""This pytest process's pool; ``tests/conftest.py`` stops it when the session ends."""
