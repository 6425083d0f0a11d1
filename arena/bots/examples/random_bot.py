"""Picks a legal action at random, reproducibly: the choice depends only on its seed and
on what it is shown (its seat's observation, the decision index and the legal actions),
not on timing, on other matches being played, or on the match's token, which is new in
every match. The same deal played the same way gets the same moves."""

from __future__ import annotations

import hashlib
import random

from arena.bots.sdk import Bot
from arena.games.registry import names_unloaded
from arena.v1 import bot_pb2


class RandomBot(Bot):
    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.games = tuple(names_unloaded())

    def act(self, request: bot_pb2.ActRequest) -> int:
        field = request.WhichOneof("observation")
        shown = (
            b"" if field is None else getattr(request, field).SerializeToString(deterministic=True)
        )
        seen = hashlib.sha256(shown)
        seen.update(f"{self.seed}:{request.seat}:{request.decision_index}".encode())
        rng = random.Random(seen.digest())
        return rng.choice(request.legal_actions).id
