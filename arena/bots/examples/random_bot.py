"""Picks a legal action at random, reproducibly: the choice depends only on its seed,
the match and the decision, not on timing or on other matches being played."""

from __future__ import annotations

import random

from arena.bots.sdk import Bot
from arena.games import game_names
from arena.v1 import bot_pb2


class RandomBot(Bot):
    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.games = tuple(game_names())

    def act(self, request: bot_pb2.ActRequest) -> int:
        rng = random.Random(f"{self.seed}:{request.match_id}:{request.decision_index}")
        return rng.choice(request.legal_actions).id
