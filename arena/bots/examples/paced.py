"""A random bot that takes a set time over every decision: the load of bots that think.

It waits with ``asyncio.sleep``, so a single process can hold hundreds of decisions at
once, as many bots in separate processes would. Given a ``pace_file``, it takes its time
only while that file exists: whoever watches a match (a test driving a browser) can let
the rest of it run at full speed once it has seen what it came for.
"""

from __future__ import annotations

import asyncio
import os

from arena.bots.examples.random_bot import RandomBot
from arena.v1 import bot_pb2


class PacedBot(RandomBot):
    name = "paced"

    def __init__(self, seed: int = 0, delay_ms: int = 50, pace_file: str | None = None) -> None:
        super().__init__(seed)
        self.delay_s = delay_ms / 1000
        self.pace_file = pace_file

    async def act(self, request: bot_pb2.ActRequest) -> int:  # type: ignore[override]
        if self.pace_file is None or os.path.exists(self.pace_file):
            await asyncio.sleep(self.delay_s)
        return super().act(request)
