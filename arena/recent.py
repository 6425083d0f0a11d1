"""``Recent``: a bounded cache that forgets its oldest entry first, one at a time.

The referee's hot path (``arena.wire``, ``arena.wire_bytes``) keeps what it has encoded,
and a referee runs for weeks: every cache there must stop growing, and none may empty
itself all at once (every match in play would pay to rebuild it on the same request). A
hit is one lookup in the C ``OrderedDict``; moving it to the end as well (least recently
used order) would cost every hit more than rebuilding an entry a cache's worth of misses
later. Threads may share one: each step is one call into the ``OrderedDict``.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Recent(OrderedDict[K, V]):
    """At most ``size`` entries, the oldest dropped first."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"a cache keeps at least one entry, not {size}")
        super().__init__()
        self.size = size

    def keep(self, key: K, value: V) -> V:
        """Stores ``value`` under ``key``, dropping the oldest entry past ``size``."""
        self[key] = value
        if len(self) > self.size:
            self.popitem(last=False)
        return value
