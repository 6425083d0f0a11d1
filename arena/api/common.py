"""What the API's calls share: timestamps on the wire, and when a tournament's secrets
(seeds, replays, hosted bots' logs) may be read."""

from __future__ import annotations

from google.protobuf import timestamp_pb2

from arena.store import TournamentRecord
from arena.store.tournaments import CANCELLED, FINISHED


def timestamp(seconds: float) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromNanoseconds(int(seconds * 1e9))
    return stamp


def revealed(record: TournamentRecord) -> bool:
    """A tournament's seeds, deals, replays and logs are public once it has ended and
    none of its matches is still being played, never before: a bot that read them could
    know the cards of a match it is playing or still has to play."""
    return record.state in (FINISHED, CANCELLED) and record.playing == 0
