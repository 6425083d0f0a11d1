"""Example bots, served by ``arena bot serve NAME``."""

from __future__ import annotations

from collections.abc import Callable

from arena.bots.examples.baloot_basic import BalootBasicBot
from arena.bots.examples.bid_euchre_basic import BidEuchreBasicBot
from arena.bots.examples.bridgette_basic import BridgetteBasicBot
from arena.bots.examples.chaos import ChaosBot
from arena.bots.examples.house import HouseBot
from arena.bots.examples.paced import PacedBot
from arena.bots.examples.persian_rummy_basic import PersianRummyBasicBot
from arena.bots.examples.random_bot import RandomBot
from arena.bots.examples.seep_basic import SeepBasicBot
from arena.bots.sdk import Bot

EXAMPLES: dict[str, Callable[..., Bot]] = {
    "house": HouseBot,
    "persian-rummy-basic": PersianRummyBasicBot,
    "random": RandomBot,
    "seep-basic": SeepBasicBot,
    "baloot-basic": BalootBasicBot,
    "bid-euchre-basic": BidEuchreBasicBot,
    "bridgette-basic": BridgetteBasicBot,
    "chaos": ChaosBot,
    "paced": PacedBot,
}

__all__ = [
    "EXAMPLES",
    "BalootBasicBot",
    "BidEuchreBasicBot",
    "BridgetteBasicBot",
    "ChaosBot",
    "HouseBot",
    "PacedBot",
    "PersianRummyBasicBot",
    "RandomBot",
    "SeepBasicBot",
]
