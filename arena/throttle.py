"""Token buckets per client, for reads that anyone may make but that cost real work.

The web site spends one for each replay page, frame or sent request a visitor reads
(``arena leaderboard serve --replay-reads-per-s``), the Arena API one for each costly
read an anonymous caller makes: a fit or a scan of every result (``arena.api.reads``,
``arena api serve --reads-per-s``). A client (by address) may read at a person's pace,
and in bursts after a pause; past its budget it is told how long to wait (429 or
RESOURCE_EXHAUSTED, with ``Retry-After``), so one client cannot spend the CPU that
everyone else shares.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable

READS_PER_S = 10.0
"""A client's sustained rate of costly reads (the site's ``--replay-reads-per-s``, the
API's ``--reads-per-s``)."""
BURST = 60
"""How many a client may make at once after a pause (the API's ``--read-burst``)."""
JOINS_PER_MINUTE = 6.0
"""An address's sustained rate of JoinCompetition calls (``arena api serve
--joins-per-minute``): joining is anonymous, so guessing invite codes is throttled."""
JOIN_BURST = 10
"""How many joins an address may make at once after a pause (``--join-burst``)."""
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


def peer_host(peer: str) -> str:
    """The address part of a gRPC peer ("ipv4:10.0.0.5:4321", "ipv6:[::1]:4321"): who
    the client is, whatever port it came from."""
    kind, _, rest = peer.partition(":")
    if kind in ("ipv4", "ipv6"):
        return rest.rpartition(":")[0].strip("[]")
    return peer
