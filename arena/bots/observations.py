"""The engine's observation of a game back from the proto a bot is sent: the inverse of
``arena.wire.observation``, for bots that reuse engine code (determinization, search).

``arena.wire`` maps engine fields to proto fields by name; this reads them back the
same way, driven by the engine observation's type hints: a card is its code, the suit
enum its letter, another enum its value name in lower case without the prefix, an
unset optional field ``None``, a repeated field a tuple, a nested message the engine
record of the hinted type. No game is named here; the observation's type comes from
the engine (``State.observation``).
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from functools import cache
from typing import Any

from google.protobuf import descriptor as _descriptor
from google.protobuf.message import Message

from arena.games import get_game
from arena.v1 import cards_pb2

_SUIT_LETTERS = {
    cards_pb2.SUIT_CLUBS: "C",
    cards_pb2.SUIT_DIAMONDS: "D",
    cards_pb2.SUIT_HEARTS: "H",
    cards_pb2.SUIT_SPADES: "S",
}


@cache
def observation_type(game: str) -> type:
    """The class of the game's engine observations."""
    return type(get_game(game).new_state(0).observation(0))


def engine_observation(game: str, message: Message) -> Any:
    """The engine observation a proto observation of ``game`` was made from."""
    return _record(observation_type(game), message)


def _record(cls: type, message: Message) -> Any:
    fields = message.DESCRIPTOR.fields_by_name
    return cls(**{name: _value(hint, fields[name], message) for name, hint in _hints(cls)})


@cache
def _hints(cls: type) -> tuple[tuple[str, Any], ...]:
    """The record's fields in order, each with its type hint."""
    hints = typing.get_type_hints(cls)
    names = (
        [f.name for f in dataclasses.fields(cls)]
        if dataclasses.is_dataclass(cls)
        else list(getattr(cls, "_fields", hints))
    )
    return tuple((name, hints[name]) for name in names)


def _value(hint: Any, field: Any, message: Message) -> Any:
    inner, optional = _unwrap(hint)
    if field.is_repeated:
        (item,) = typing.get_args(inner)[:1] or (Any,)
        return tuple(_scalar(item, field, v) for v in getattr(message, field.name))
    if optional and field.has_presence and not message.HasField(field.name):
        return None
    value = _scalar(inner, field, getattr(message, field.name))
    if optional and value in ("", "unspecified"):
        return None
    return value


def _unwrap(hint: Any) -> tuple[Any, bool]:
    """The type inside ``X | None``, and whether None was allowed."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        return args[0], len(args) < len(typing.get_args(hint))
    return hint, False


def _scalar(hint: Any, field: Any, value: Any) -> Any:
    if field.message_type is not None:
        if field.message_type.full_name == "arena.v1.Card":
            return value.code
        return _record(hint, value)
    if field.enum_type is not None:
        if field.enum_type.full_name == "arena.v1.Suit":
            return _SUIT_LETTERS.get(value, "")
        return _enum_names(field.enum_type)[value]
    return value


@cache
def _enum_names(enum: _descriptor.EnumDescriptor) -> dict[int, str]:
    prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", enum.name).upper() + "_"
    return {v.number: v.name[len(prefix) :].lower() for v in enum.values}
