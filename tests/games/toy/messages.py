"""The toy's messages on the wire, declared here rather than in ``bot.proto``: the arena
packs them into the ``other`` member of ``ActRequest.observation`` and
``LegalAction.payload`` (``arena.wire``). Built in Python and added to the default
descriptor pool, so no ``protoc`` run is needed; what it declares, as a ``.proto``::

    syntax = "proto3";
    package arena.toy.v1;
    import "arena/v1/cards.proto";

    // A card and the seat that played it.
    message ToyPlay {
      int32 seat = 1;
      arena.v1.Card card = 2;
    }

    // What a seat of the toy sees.
    message ToyObservation {
      int32 seat = 1;                  // this seat
      repeated arena.v1.Card hand = 2; // its cards
      repeated ToyPlay trick = 3;      // the pair in progress, in play order
      repeated int32 hand_sizes = 4;   // cards held, by seat
      repeated int32 scores = 5;       // points, by seat
      int32 hand_number = 6;           // the hand being played, from 1
    }

    // A legal action of the toy.
    message ToyAction {
      oneof kind {
        arena.v1.Card play = 1;        // play this card
      }
    }

Fields are declared in number order, so the referee's byte-level requests
(``arena.wire_bytes``) pack exactly the bytes ``Any.Pack`` would.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.message_factory import GetMessageClass

from arena.v1 import cards_pb2

FILE = "tests/games/toy/toy.proto"
PACKAGE = "arena.toy.v1"

_F = descriptor_pb2.FieldDescriptorProto


def _field(
    name: str, number: int, kind: int, *, message: str | None = None, repeated: bool = False
) -> _F:
    field = _F(
        name=name,
        number=number,
        label=_F.LABEL_REPEATED if repeated else _F.LABEL_OPTIONAL,
        json_name=name.split("_")[0] + "".join(w.title() for w in name.split("_")[1:]),
    )
    field.type = kind  # type: ignore[assignment]
    if message is not None:
        field.type_name = message
    return field


def _file() -> descriptor_pb2.FileDescriptorProto:
    card = ".arena.v1.Card"
    play = descriptor_pb2.DescriptorProto(
        name="ToyPlay",
        field=[_field("seat", 1, _F.TYPE_INT32), _field("card", 2, _F.TYPE_MESSAGE, message=card)],
    )
    observation = descriptor_pb2.DescriptorProto(
        name="ToyObservation",
        field=[
            _field("seat", 1, _F.TYPE_INT32),
            _field("hand", 2, _F.TYPE_MESSAGE, message=card, repeated=True),
            _field("trick", 3, _F.TYPE_MESSAGE, message=f".{PACKAGE}.ToyPlay", repeated=True),
            _field("hand_sizes", 4, _F.TYPE_INT32, repeated=True),
            _field("scores", 5, _F.TYPE_INT32, repeated=True),
            _field("hand_number", 6, _F.TYPE_INT32),
        ],
    )
    action_play = _field("play", 1, _F.TYPE_MESSAGE, message=card)
    action_play.oneof_index = 0
    action = descriptor_pb2.DescriptorProto(
        name="ToyAction",
        field=[action_play],
        oneof_decl=[descriptor_pb2.OneofDescriptorProto(name="kind")],
    )
    return descriptor_pb2.FileDescriptorProto(
        name=FILE,
        package=PACKAGE,
        syntax="proto3",
        dependency=[cards_pb2.DESCRIPTOR.name],
        message_type=[play, observation, action],
    )


def _pool_file() -> Any:
    """The toy's file in the default pool, added at the first import."""
    pool = descriptor_pool.Default()
    try:
        return pool.FindFileByName(FILE)
    except KeyError:
        pool.Add(_file())
        return pool.FindFileByName(FILE)


_DESCRIPTOR = _pool_file()
PLAY: Any = GetMessageClass(_DESCRIPTOR.message_types_by_name["ToyPlay"])
OBSERVATION: Any = GetMessageClass(_DESCRIPTOR.message_types_by_name["ToyObservation"])
"""The toy's observation message: ``arena.wire`` fills it from ``ToyObservation``."""
ACTION: Any = GetMessageClass(_DESCRIPTOR.message_types_by_name["ToyAction"])
"""The toy's action payload message: ``play``, a card."""
