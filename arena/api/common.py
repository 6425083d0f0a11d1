"""What the API's calls share: timestamps on the wire, and when a tournament's secrets
(seeds, replays, hosted bots' logs) may be read.

The reveal rule: a match's seed, salt, replay id and replay are published once no match
still to be played, or being played, shares its deal. Every tournament publishes all of
them together when it has ended and no match of it is still being played (``revealed``).
An open ladder never ends, and each of its matches has a deal of its own (its deal key
names its half: ``arena.tournament.formats.base.unit_matches``), so it publishes each
match's as soon as that match has ended: its result is stored and no attempt at it
still holds a lease (``deal_revealed``). Everything else of a running ladder stays as
in any running tournament: its master seed, its schedule's match ids (public ids stand
for them), deal numbers and keys. A sealed or trusted ladder plays duplicate pairs and
keeps the end-of-tournament rule (``docs/formats.md``, "Ladder").
"""

from __future__ import annotations

import math
from collections.abc import Collection

from google.protobuf import timestamp_pb2

from arena.store import MatchResult, TournamentRecord
from arena.store.leases import MatchLeases
from arena.store.tournaments import CANCELLED, FINISHED, TournamentStore
from arena.tournament import formats
from arena.tournament.fair_play import PUBLIC_ID


def timestamp(seconds: float) -> timestamp_pb2.Timestamp:
    """``time.time()`` on the wire. The whole seconds and the fraction are converted apart:
    ``seconds * 1e9`` as a float is off by up to 128 ns today (2^53 ns is 104 days)."""
    whole = math.floor(seconds)
    nanos = min(round((seconds - whole) * 1e9), 999_999_999)
    return timestamp_pb2.Timestamp(seconds=whole, nanos=nanos)


def revealed(record: TournamentRecord) -> bool:
    """A tournament's seeds, deals, replays and logs are public once it has ended and
    none of its matches is still being played, never before: a bot that read them could
    know the cards of a match it is playing or still has to play. (An open ladder
    publishes each match's deal before that: ``deal_revealed``.)"""
    return record.state in (FINISHED, CANCELLED) and record.playing == 0


def reveals_each_match(record: TournamentRecord) -> bool:
    """Whether the running tournament publishes each match's deal once that match has
    ended, as its format says (``Format.reveals_each_match``): an open ladder's, whose
    every match is dealt cards of its own."""
    return formats.get(record.spec.format).reveals_each_match(record.spec.fair_play)


def deal_revealed(record: TournamentRecord, result: MatchResult, playing: Collection[str]) -> bool:
    """Whether ``result``'s seed, salt, replay id and replay may be read: its tournament
    is ``revealed``; or it publishes each match (``reveals_each_match``), the match had
    a deal of its own (not a duplicate half) and no attempt at it is in ``playing`` (the
    matches whose lease is live: a copy of it still running would see its own cards)."""
    if revealed(record):
        return True
    return (
        reveals_each_match(record)
        and not result.paired
        and result.pair_key == result.match_id
        and result.match_id not in playing
    )


def schedule_id(tournaments: TournamentStore, record: TournamentRecord, match_id: str) -> str:
    """The schedule's id of the match ``match_id`` names: itself, or the match whose
    public id it is (found among the results: only a played match has a replay or logs)."""
    if not PUBLIC_ID.fullmatch(match_id) or tournaments.has_result(record.id, match_id):
        return match_id
    public_id = record.spec.seed.public_id
    ids = (r.match_id for r in tournaments.results(record.id))
    return next((m for m in ids if public_id(m) == match_id), match_id)


def deal_ended(
    tournaments: TournamentStore, leases: MatchLeases, record: TournamentRecord, match_id: str
) -> bool:
    """Whether the stored match ``match_id`` (a schedule id) has a result whose deal may
    be published now (``deal_revealed``): what a running open ladder's replays and logs
    wait for."""
    result = tournaments.result(record.id, match_id)
    return result is not None and deal_revealed(record, result, leases.live(record.id))
