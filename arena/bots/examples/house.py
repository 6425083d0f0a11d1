"""The house bot: one process that plays every game, each with its rule-based example
bot (random where a game has none). It is the default opponent of the arena."""

from __future__ import annotations

from arena.bots.examples.random_bot import RandomBot
from arena.bots.sdk import Bot
from arena.games.registry import names_unloaded, part
from arena.v1 import bot_pb2


def rule_based() -> list[type[Bot]]:
    """Every game's example bot, from the game's own folder (its rules stay unloaded: a
    hosted house bot starts in a fresh sandbox for every match)."""
    found = (part(game, "bot") for game in names_unloaded())
    return [module.BOT for module in found if module is not None]


class HouseBot(Bot):
    name = "house"

    def __init__(self) -> None:
        self.by_game: dict[str, Bot] = {}
        for cls in rule_based():
            bot = cls()
            for game in bot.games:
                self.by_game[game] = bot
        self.fallback = RandomBot(seed=0)
        self.games = tuple(names_unloaded())

    def act(self, request: bot_pb2.ActRequest) -> int:
        return self.by_game.get(request.game, self.fallback).act(request)
