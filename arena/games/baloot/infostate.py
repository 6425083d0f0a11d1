"""Baloot's information state memory (``arena.envs.infostate``): who played which card,
who bid what in which bidding round, who doubled, and whose projects hold which cards,
this round.

The observation keeps the round's whole record (``bids``, ``doublings``, ``projects``,
``trick``, ``tricks``), so the memory is what the present observation shows, with each
deed tied to its seat: nothing seen between turns is lost."""

from __future__ import annotations

from collections.abc import Iterator

from arena.games.baloot.layout import PACK
from arena.v1 import baloot_pb2

BIDS = len(baloot_pb2.BalootBid.values())
DOUBLINGS = len(baloot_pb2.BalootDoubling.values())
BIDDING_ROUNDS = 2
INDEX = {code: i for i, code in enumerate(PACK)}

HAND_FIELDS = ("round_number",)
BLOCKS = (
    ("played", len(PACK), "cards it played this round, the trick in progress included"),
    (
        "bids",
        BIDDING_ROUNDS * BIDS,
        "its bids: index (bidding round - 1) * 5 + the BalootBid value",
    ),
    ("doublings", DOUBLINGS, "its steps of the doubling chain (the BalootDoubling value)"),
    ("projects", len(PACK), "cards of the projects it declared, once the seat sees them"),
)


def sightings(observation: baloot_pb2.BalootObservation) -> Iterator[tuple[str, int, int]]:
    for played in observation.trick:
        yield "played", played.seat, INDEX[played.card.code]
    for trick in observation.tricks:
        for played in trick.cards:
            yield "played", played.seat, INDEX[played.card.code]
    for bid in observation.bids:
        bidding_round = min(max(bid.bidding_round, 1), BIDDING_ROUNDS)
        yield "bids", bid.seat, (bidding_round - 1) * BIDS + bid.bid
    for doubling in observation.doublings:
        yield "doublings", doubling.seat, doubling.doubling
    for project in [*observation.own_projects, *observation.projects]:
        for card in project.cards:
            yield "projects", project.seat, INDEX[card.code]
