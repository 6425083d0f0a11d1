"""The house bot: one process that plays every game, each with its rule-based example
bot (random where a game has none). It is the default opponent of the arena."""

from __future__ import annotations

from arena.bots.examples.baloot_basic import BalootBasicBot
from arena.bots.examples.bid_euchre_basic import BidEuchreBasicBot
from arena.bots.examples.bridgette_basic import BridgetteBasicBot
from arena.bots.examples.persian_rummy_basic import PersianRummyBasicBot
from arena.bots.examples.random_bot import RandomBot
from arena.bots.examples.seep_basic import SeepBasicBot
from arena.bots.sdk import Bot
from arena.games import game_names
from arena.v1 import bot_pb2

RULE_BASED: tuple[type[Bot], ...] = (
    BalootBasicBot,
    BidEuchreBasicBot,
    BridgetteBasicBot,
    PersianRummyBasicBot,
    SeepBasicBot,
)


class HouseBot(Bot):
    name = "house"

    def __init__(self) -> None:
        self.by_game: dict[str, Bot] = {}
        for cls in RULE_BASED:
            bot = cls()
            for game in bot.games:
                self.by_game[game] = bot
        self.fallback = RandomBot(seed=0)
        self.games = tuple(game_names())

    def act(self, request: bot_pb2.ActRequest) -> int:
        return self.by_game.get(request.game, self.fallback).act(request)
