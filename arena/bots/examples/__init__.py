"""Example bots, served by ``arena bot serve NAME``: the generic ones here, and each
game's own from its folder (``arena.games.<game>.bot``)."""

from __future__ import annotations

from collections.abc import Callable

from arena.bots.examples.chaos import ChaosBot
from arena.bots.examples.house import HouseBot, rule_based
from arena.bots.examples.paced import PacedBot
from arena.bots.examples.random_bot import RandomBot
from arena.bots.sdk import Bot

EXAMPLES: dict[str, Callable[..., Bot]] = {
    "house": HouseBot,
    "random": RandomBot,
    "chaos": ChaosBot,
    "paced": PacedBot,
    **{cls.name: cls for cls in rule_based()},
}

__all__ = ["EXAMPLES", "ChaosBot", "HouseBot", "PacedBot", "RandomBot"]
