"""Seep's information state memory (``arena.envs.infostate``): which card each seat
played this deal, and which floor cards its captures took.

The observation keeps the deal's whole record (``plays``, each with the cards it moved),
so the memory is what the present observation shows, with each deed tied to its seat:
nothing seen between turns is lost. The observation tensor's ``piles`` block marks the
cards taken by either team together; ``captured`` tells them apart by seat."""

from __future__ import annotations

from collections.abc import Iterator

from arena.games.seep.layout import PACK
from arena.v1 import seep_pb2

INDEX = {code: i for i, code in enumerate(PACK)}

HAND_FIELDS = ("deal_number",)
BLOCKS = (
    ("played", len(PACK), "cards it played from its hand this deal"),
    ("captured", len(PACK), "floor cards (loose or in houses) its captures took this deal"),
)


def sightings(observation: seep_pb2.SeepObservation) -> Iterator[tuple[str, int, int]]:
    for play in observation.plays:
        yield "played", play.seat, INDEX[play.card.code]
        if play.kind == seep_pb2.SEEP_PLAY_KIND_CAPTURE:
            for card in [*play.loose, *play.house_cards]:
                yield "captured", play.seat, INDEX[card.code]
