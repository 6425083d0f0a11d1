"""A per-client budget for the site's costly anonymous reads.

A replay's frames or one of its sent requests costs the web, the API and the engine
real work, and anyone may ask; a token bucket per client (by address) lets a reader
step through replays at a person's pace, lets a burst through, and answers a client
past its budget 429 with how long to wait, so one client cannot spend the site's CPU
for everyone else.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable

READS_PER_S = 10.0
"""A client's sustained rate of costly reads (``--costly-reads-per-s``)."""
BURST = 60
"""How many a client may make at once after a pause."""
CLIENTS = 10_000
"""Clients remembered at once; the one idle longest is forgotten first (with a full
bucket, so forgetting it gives it nothing it would not have had)."""


class Throttle:
    """Token buckets by client: ``take`` spends one, or says how long until one is due."""

    def __init__(
        self,
        rate_per_s: float = READS_PER_S,
        burst: int = BURST,
        clock: Callable[[], float] = time.monotonic,
        clients: int = CLIENTS,
    ) -> None:
        if rate_per_s <= 0 or burst < 1:
            raise ValueError(
                f"a throttle needs a positive rate and burst, not {rate_per_s}, {burst}"
            )
        self.rate_per_s = rate_per_s
        self.burst = burst
        self.clock = clock
        self.clients = clients
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        """Per client: tokens left, and when they were counted."""

    def __len__(self) -> int:
        """Clients remembered now."""
        return len(self._buckets)

    def take(self, client: str) -> int | None:
        """Spend one read of ``client``'s budget: None if it had one, else the whole
        seconds to wait for the next (for ``Retry-After``)."""
        now = self.clock()
        tokens, then = self._buckets.pop(client, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - then) * self.rate_per_s)
        if tokens >= 1:
            self._buckets[client] = (tokens - 1, now)
            wait = None
        else:
            self._buckets[client] = (tokens, now)
            wait = max(1, math.ceil((1 - tokens) / self.rate_per_s))
        while len(self._buckets) > self.clients:
            self._buckets.popitem(last=False)
        return wait
