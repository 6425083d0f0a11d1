"""The referee's hot path: ``wire.act_request``, produced as protobuf bytes directly.

Building an ``ActRequest`` message field by field and then serializing it cost more
than the gRPC stream exchange itself. Here the same name-driven mapping as ``wire``
(same descriptors, same rules) writes the wire format straight away, and everything
that recurs is encoded once and cached: each field's piece for a value seen before (a
score, a phase, a hand of cards), a played card or a finished trick (the engine's frozen
values), a growing auction or list of tricks up to what it held last time, a legal
action (an id means the same action all game), the head of a seat's requests. Protobuf
parsers take fields in any order and merge repeated ones, so the request is a
concatenation of cached pieces. A game whose messages its folder declares (``wire.packed``)
has its observation wrapped as ``other``'s ``Any``; which way a game goes is decided once
per game, so the others pay nothing for it.

``tests/referee/test_wire_bytes.py`` checks over random playouts of every game that the
bytes parse to exactly the message ``wire.act_request`` builds.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, lru_cache
from typing import Any

from google.protobuf import descriptor as _descriptor

from arena import wire
from arena.games.api import State
from arena.recent import Recent
from arena.v1 import bot_pb2

_FD = _descriptor.FieldDescriptor
Encoder = Callable[[Any], bytes]

_VARINT_TYPES = {
    _FD.TYPE_INT32,
    _FD.TYPE_INT64,
    _FD.TYPE_UINT32,
    _FD.TYPE_UINT64,
    _FD.TYPE_BOOL,
    _FD.TYPE_ENUM,
}


def varint(value: int) -> bytes:
    """Base-128 varint; negative ints take ten bytes, as protobuf sends int32/int64."""
    value &= 0xFFFF_FFFF_FFFF_FFFF
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_SMALL_VARINTS = [varint(n) for n in range(128)]


def _varint(value: int) -> bytes:
    if 0 <= value < 0x80:
        return _SMALL_VARINTS[value]
    if 0 < value < 0x4000:
        return bytes((value & 0x7F | 0x80, value >> 7))
    return varint(value)


def _delimited(data: bytes) -> bytes:
    return _varint(len(data)) + data


class _Memo(Recent[Any, bytes]):
    """Encoded pieces by value. A hit is a dict lookup in C (use ``memo.__getitem__``);
    a miss encodes and keeps the piece (``Recent``: the oldest goes first)."""

    def __init__(self, piece: Encoder, size: int = 4096) -> None:
        super().__init__(size)
        self.piece = piece

    def __missing__(self, value: Any) -> bytes:
        return self.keep(value, self.piece(value))


def _hashable_or_not(memo: _Memo) -> Encoder:
    """A repeated field's memo: engines give tuples, but a list is served too, unmemoized."""

    def encode(values: Any) -> bytes:
        try:
            return memo[values]
        except TypeError:  # unhashable
            return memo.piece(values)

    return encode


def _scalar_piece(field: _FD) -> Encoder:
    """Tag and value of a scalar field; proto3 drops zero values of fields without
    presence, as ``wire`` does."""
    convert = wire.scalar_converter(field)
    delimited_tag = varint(field.number << 3 | 2)
    if field.is_repeated:  # proto3 packs repeated scalars
        return lambda values: (
            delimited_tag + _delimited(b"".join([_varint(convert(v)) for v in values]))
            if values
            else b""
        )
    keep_zero = field.has_presence
    if field.type == _FD.TYPE_STRING:
        return lambda text: delimited_tag + _delimited(text.encode()) if text or keep_zero else b""
    if field.type not in _VARINT_TYPES:
        raise TypeError(f"{field.full_name}: this field type is not supported yet")
    tag = varint(field.number << 3)

    def piece(value: Any) -> bytes:
        number = convert(value)
        return tag + _varint(number) if number or keep_zero else b""

    return piece


def _field_piece(field: _FD) -> Encoder:
    """Tag, length and payload of one field of an engine value, memoized where values
    recur: scalars and card codes by value, nested engine values (a played card, a
    finished trick) by identity, and a repeated field of them by the prefix it had last
    time, since auctions and tricks only grow."""
    if field.type != _FD.TYPE_MESSAGE:
        memo = _Memo(_scalar_piece(field))
        return _hashable_or_not(memo) if field.is_repeated else memo.__getitem__
    tag = varint(field.number << 3 | 2)
    message = field.message_type
    assert message is not None
    if message.full_name == "arena.v1.Card":
        card = _Memo(lambda code: tag + _delimited(_card(code)))
        if not field.is_repeated:
            return card.__getitem__
        return _hashable_or_not(_Memo(lambda codes: b"".join(map(card.__getitem__, codes))))
    encode = message_encoder(message)
    element = _by_identity(lambda value: tag + _delimited(encode(value)))
    return _growing(element) if field.is_repeated else element


def _by_identity(piece: Encoder) -> Encoder:
    """Caches ``piece`` by the value's identity. Engines keep their frozen values and
    hand the same objects to every observation, and an identity lookup costs less than
    hashing a nested tuple. The cache holds each value, so no id is reused meanwhile."""
    kept: Recent[int, tuple[Any, bytes]] = Recent(4096)

    def lookup(value: Any) -> bytes:
        hit = kept.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
        return kept.keep(id(value), (value, piece(value)))[1]

    return lookup


GROWING_MEMO_SIZE = 512
"""Repeated fields remembered per field: one per hand being played (its auction, its
tricks), so a few hundred matches at once keep theirs. Each entry holds its whole
sequence, values and bytes, kilobytes by a hand's end; at 4,096 a referee's memory grew
for thousands of matches before the first clear (``bench.referee_memory``)."""


def _growing(element: Encoder) -> Encoder:
    """A repeated field encoded from what it held last time, plus what was appended.

    The last time is found by the identity of the field's first value: a match's auction
    or tricks keep their first object while they grow, and every match has its own, so
    matches played at once do not evict each other. Tuple comparison checks identity
    first, so confirming the prefix is cheap."""
    memo: Recent[int, tuple[Any, tuple[Any, ...], bytes]] = Recent(GROWING_MEMO_SIZE)

    def encode(values: Any) -> bytes:
        values = tuple(values)  # a tuple gives itself back
        first = values[0]  # never empty: encoders skip empty repeated fields
        hit = memo.get(id(first))
        if hit is not None and hit[0] is first and values[: len(hit[1])] == hit[1]:
            if len(values) == len(hit[1]):
                return hit[2]
            encoded = hit[2] + b"".join(map(element, values[len(hit[1]) :]))
        else:
            encoded = b"".join(map(element, values))
        memo.keep(id(first), (first, values, encoded))  # one object: threads see all or nothing
        return encoded

    return encode


def _card(code: str) -> bytes:
    return wire.card(code).SerializeToString()


@cache
def message_encoder(message: _descriptor.Descriptor) -> Encoder:
    """Serializes an engine value as ``message`` the way ``wire`` would convert it.

    The encoder is generated source, one straight run of lines per field, as
    ``dataclasses`` does for ``__init__``: a loop over a field plan cost twice as much,
    and this runs for every decision of every match."""
    env: dict[str, Any] = {}
    lines = ["def encode(v):", "    out = []"]
    for n, field in enumerate(message.fields):
        env[f"P{n}"] = _field_piece(field)
        # A repeated field is skipped when empty, any other when None.
        test = "x" if field.is_repeated else "x is not None"
        lines += [
            f"    x = getattr(v, {field.name!r}, None)",
            f"    if {test}:",
            f"        out.append(P{n}(x))",
        ]
    lines.append("    return b''.join(out)")
    exec("\n".join(lines), env)  # source built from descriptors only
    encode: Encoder = env["encode"]
    return encode


_ANY_TYPE_URL_TAG = varint(1 << 3 | 2)
_ANY_VALUE_TAG = varint(2 << 3 | 2)
ANY_TYPE_URL_PREFIX = "type.googleapis.com/"
"""What ``Any.Pack`` puts before a message's full name in ``Any.type_url``."""


@cache
def _observation_encoder(game_name: str) -> Encoder:
    """A game's observation as a piece of the request, decided once per game: its own
    field of the oneof, or, for a game whose folder declares its messages, ``other``
    holding an ``Any`` (field 1 the type URL, field 2 the message's bytes)."""
    message = wire.observation_message(game_name)
    encode = message_encoder(message)
    if not wire.packed(game_name):
        tag = varint(
            bot_pb2.ActRequest.DESCRIPTOR.fields_by_name[wire.field_name(game_name)].number << 3 | 2
        )
        return lambda observation: tag + _delimited(encode(observation))
    other = varint(bot_pb2.ActRequest.DESCRIPTOR.fields_by_name[wire.OTHER].number << 3 | 2)
    type_url = _ANY_TYPE_URL_TAG + _delimited((ANY_TYPE_URL_PREFIX + message.full_name).encode())

    def packed(observation: Any) -> bytes:
        value = encode(observation)
        return other + _delimited(type_url + (_ANY_VALUE_TAG + _delimited(value) if value else b""))

    return packed


_LEGAL_ACTIONS_TAG = varint(
    bot_pb2.ActRequest.DESCRIPTOR.fields_by_name["legal_actions"].number << 3 | 2
)
_DECISION_INDEX_TAG = varint(
    bot_pb2.ActRequest.DESCRIPTOR.fields_by_name["decision_index"].number << 3
)
_TIME_BANK_TAG = varint(bot_pb2.ActRequest.DESCRIPTOR.fields_by_name["time_bank"].number << 3 | 2)


def _legal_action_piece(state: State, action: int) -> bytes:
    return _LEGAL_ACTIONS_TAG + _delimited(wire.legal_action(state, action).SerializeToString())


_legal_action = wire.LegalActionCache(_legal_action_piece).get
"""A legal action's piece of the request, by game and id (``wire.LegalActionCache``)."""


@lru_cache(maxsize=1024)
def _request_head(game_name: str, match_id: str, seat: int, team: int, deadline_s: float) -> bytes:
    return bot_pb2.ActRequest(
        match_id=match_id, game=game_name, seat=seat, team=team, deadline=wire.duration(deadline_s)
    ).SerializeToString()


def act_request(
    state: State,
    *,
    match_id: str,
    decision_index: int,
    deadline_s: float,
    legal: list[int],
    time_bank_s: float = 0.0,
) -> bytes:
    """The serialized form of ``wire.act_request`` with the same arguments."""
    seat = state.current_seat()
    game_name = state.game_info.name
    parts = [
        _request_head(game_name, match_id, seat, state.game_info.seat_teams[seat], deadline_s),
        _DECISION_INDEX_TAG + _varint(decision_index) if decision_index else b"",
        _observation_encoder(game_name)(state.observation(seat)),
    ]
    parts.extend([_legal_action(state, action) for action in legal])
    if time_bank_s > 0:
        parts.append(_TIME_BANK_TAG + _delimited(wire.duration(time_bank_s).SerializeToString()))
    return b"".join(parts)
