"""Bid Euchre's information state memory (``arena.envs.infostate``): who played which
card, and who made which call, this hand.

The observation keeps the hand's whole record (``calls``, ``trick``, ``tricks``), so the
memory is what the present observation shows, with each deed tied to its seat: nothing
seen between turns is lost. The observation tensor already holds the exchanged and
discarded cards."""

from __future__ import annotations

from collections.abc import Iterator

from arena.games.bid_euchre.layout import PACK
from arena.v1 import bid_euchre_pb2

CALLS = len(bid_euchre_pb2.BidEuchreCall.values())
INDEX = {code: i for i, code in enumerate(PACK)}

HAND_FIELDS = ("hand_number",)
BLOCKS = (
    ("played", len(PACK), "cards it played this hand, the trick in progress included"),
    ("calls", CALLS, "calls it made this hand (index: the BidEuchreCall value)"),
)


def sightings(observation: bid_euchre_pb2.BidEuchreObservation) -> Iterator[tuple[str, int, int]]:
    for played in observation.trick:
        yield "played", played.seat, INDEX[played.card.code]
    for trick in observation.tricks:
        for played in trick.cards:
            yield "played", played.seat, INDEX[played.card.code]
    for call in observation.calls:
        yield "calls", call.seat, call.call
