"""What the API's calls share: timestamps on the wire, and when a tournament's secrets
(seeds, replays, hosted bots' logs) may be read."""

from __future__ import annotations

import math

from google.protobuf import timestamp_pb2

from arena.store import TournamentRecord
from arena.store.tournaments import CANCELLED, FINISHED


def timestamp(seconds: float) -> timestamp_pb2.Timestamp:
    """``time.time()`` on the wire. The whole seconds and the fraction are converted apart:
    ``seconds * 1e9`` as a float is off by up to 128 ns today (2^53 ns is 104 days)."""
    whole = math.floor(seconds)
    nanos = min(round((seconds - whole) * 1e9), 999_999_999)
    return timestamp_pb2.Timestamp(seconds=whole, nanos=nanos)


def revealed(record: TournamentRecord) -> bool:
    """A tournament's seeds, deals, replays and logs are public once it has ended and
    none of its matches is still being played, never before: a bot that read them could
    know the cards of a match it is playing or still has to play."""
    return record.state in (FINISHED, CANCELLED) and record.playing == 0
