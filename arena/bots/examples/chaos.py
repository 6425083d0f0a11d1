"""A misbehaving bot for testing the fault policy: each mode is one kind of fault.

Modes: ``hang`` (never answers in time), ``slow`` (answers after ``delay_ms``),
``crash`` (the process exits after ``after`` good decisions), ``illegal`` (answers an id
not in the list), ``error`` (fails with a gRPC error status), ``wrong-match`` (answers for
another match). Until ``after`` decisions have been made it plays like the random bot.
"""

from __future__ import annotations

import os
import threading

from arena.bots.examples.random_bot import RandomBot
from arena.v1 import bot_pb2

MODES = ("hang", "slow", "crash", "illegal", "error", "wrong-match")


class ChaosBot(RandomBot):
    name = "chaos"
    threaded = True  # a hanging decision must not stop the bot's other conversations

    def __init__(
        self, mode: str = "hang", after: int = 0, delay_ms: int = 0, seed: int = 0
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown chaos mode {mode!r}; modes: {', '.join(MODES)}")
        super().__init__(seed)
        self.mode = mode
        self.after = after
        self.delay_ms = delay_ms
        self.decisions = 0
        self._lock = threading.Lock()
        self._never = threading.Event()

    def close(self) -> None:
        self._never.set()  # wake every hanging decision so the process can exit

    def act(self, request: bot_pb2.ActRequest) -> int:
        with self._lock:
            self.decisions += 1
            misbehave = self.decisions > self.after
        if not misbehave:
            return super().act(request)
        if self.mode == "hang":
            self._never.wait(120)
        elif self.mode == "slow":
            self._never.wait(self.delay_ms / 1000)
        elif self.mode == "crash":
            os._exit(3)
        elif self.mode == "illegal":
            return max(a.id for a in request.legal_actions) + 1_000_000
        elif self.mode == "error":
            raise RuntimeError("chaos bot: deliberate failure")
        elif self.mode == "wrong-match":
            request.match_id = "not-" + request.match_id
        return super().act(request)
