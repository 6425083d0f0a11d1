"""A random bot that takes a set time over every decision: the load of bots that think.

It waits with ``asyncio.sleep``, so a single process can hold hundreds of decisions at
once, as many bots in separate processes would.
"""

from __future__ import annotations

import asyncio

from arena.bots.examples.random_bot import RandomBot
from arena.v1 import bot_pb2


class PacedBot(RandomBot):
    name = "paced"

    def __init__(self, seed: int = 0, delay_ms: int = 50) -> None:
        super().__init__(seed)
        self.delay_s = delay_ms / 1000

    async def act(self, request: bot_pb2.ActRequest) -> int:  # type: ignore[override]
        await asyncio.sleep(self.delay_s)
        return super().act(request)
