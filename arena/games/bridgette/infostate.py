"""Bridgette's information state memory (``arena.envs.infostate``): who played which
card, and who made which call, this deal.

The observation keeps the deal's whole record (``calls``, ``trick``, ``tricks``, and the
seat's own ``drawn`` and ``discards``, which the observation tensor holds), so the memory
is what the present observation shows, with each deed tied to its seat: nothing seen
between turns is lost."""

from __future__ import annotations

from collections.abc import Iterator

from arena.games.bridgette.layout import PACK
from arena.v1 import bridgette_pb2

K = bridgette_pb2.BridgetteCallKind
S = bridgette_pb2.BridgetteStrain
BIDS = 36
"""Bids in bidding order, 0NT up to 7NT (``arena.games.bridgette.game``)."""
OTHER_CALLS = {K.BRIDGETTE_CALL_KIND_PASS: 0, K.BRIDGETTE_CALL_KIND_DOUBLE: 1}
OTHER_CALLS[K.BRIDGETTE_CALL_KIND_REDOUBLE] = 2
INDEX = {code: i for i, code in enumerate(PACK)}

HAND_FIELDS = ("deal_number",)
BLOCKS = (
    ("played", len(PACK), "cards it played this deal, the trick in progress included"),
    (
        "calls",
        len(OTHER_CALLS) + BIDS,
        "its calls: 0 pass, 1 double, 2 redouble, 3 + bid index (0NT = 0; level L in "
        "strain s, C D H S NT = 0..4: 1 + 5 (L - 1) + s)",
    ),
)


def call_index(call: bridgette_pb2.BridgetteCall) -> int:
    if call.kind != K.BRIDGETTE_CALL_KIND_BID:
        return OTHER_CALLS[call.kind]
    if call.level == 0:
        return len(OTHER_CALLS)
    strain = call.strain - S.BRIDGETTE_STRAIN_CLUBS
    return len(OTHER_CALLS) + 1 + 5 * (call.level - 1) + strain


def sightings(observation: bridgette_pb2.BridgetteObservation) -> Iterator[tuple[str, int, int]]:
    for played in observation.trick:
        yield "played", played.seat, INDEX[played.card.code]
    for trick in observation.tricks:
        for played in trick.cards:
            yield "played", played.seat, INDEX[played.card.code]
    for call in observation.calls:
        yield "calls", call.seat, call_index(call.call)
