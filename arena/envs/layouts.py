"""Fixed-size numeric tensors of a seat's observation, and each game's action indexing.

The tensor is read from exactly the observation message a bot is sent (the game's field
of ``ActRequest.observation``, or the message its folder declares, built by
``arena.wire``), field by field in the proto's order, by one rule for every game. Only
two facts come from the game's own ``layout`` part (``arena.games.<game>.layout``): the
game's pack (``PACK``, the card codes in the engine's canonical order) and how actions
are numbered in the environment.

Tensor layout, float32, blocks in this order:

=========================  =========================  ===========================================
block                      size                       content
=========================  =========================  ===========================================
``seat_one_hot``           number of seats            one-hot of the observing seat
then, for each top-level field of the observation message, in proto field order:
a field holding cards      cards in the pack          multi-hot of every card code anywhere in
(``hand``, ``trick``,                                 the field (a hand, the trick on the table,
``tricks``, ``loose``...)                             the finished tricks of the hand, melds...)
an enum (``phase``...)     enum values                one-hot of the value (index 0: unset)
a number or bool           1                          its value; an ``optional`` one that is
                                                      unset reads -1
repeated numbers           number of seats            the values (per seat or per team),
(``scores``...)                                       zero-padded
a message without cards    its fields, by these       flattened one level, named
(a ``contract``...)         rules                      ``field.subfield``; 1 presence slot first
repeated messages without  1                          how many there are
cards (``calls``, ``bids``)
=========================  =========================  ===========================================

Values are raw (scores in the game's points, not scaled). ``layout(game)`` lists every
block as ``(name, offset, size)``; ``docs/writing-a-bot.md`` has the sizes per game. The
tensor is a summary for learning: what is in the observation but not in the tensor (the
order of the bids, who played which card of a finished trick) is in the dict form.

Actions. A game whose part gives ``NUM_ACTIONS`` numbers its actions densely, so the
environment's action is the engine's own stable id and the action space is
``Discrete(NUM_ACTIONS)``. A game whose ids encode whole card sets (captured floor cards,
melds) has ids no mask can cover; its part gives ``MAX_LEGAL`` instead, the environment's
action is an index into the legal list (``State.legal_actions()``, ascending ids), the
action space is ``Discrete(MAX_LEGAL)`` and the mask has ones on ``0..len(legal) - 1``;
``CardArenaEnv.action_id(index)`` gives the stable id. ``MAX_LEGAL`` is far above what
play reaches; a position with more legal actions raises ``GameError``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
from google.protobuf import descriptor as _descriptor
from google.protobuf.message import Message

from arena import wire
from arena.games import game_names, get_game
from arena.games.registry import part

_FD = _descriptor.FieldDescriptor
_CARD = "arena.v1.Card"


@dataclass(frozen=True)
class GameTable:
    """What the tensor and the action space need to know of one game: its ``layout``
    part (``arena.games.registry.part``)."""

    pack: tuple[str, ...]
    """The card codes of the pack, in the engine's canonical order."""
    num_actions: int | None
    """Dense ids: max id + 1, the action space; None for index mode."""
    max_legal: int | None = None
    """Index mode: the size of the action space (a bound on the legal list)."""


@cache
def table(game: str) -> GameTable:
    facts = part(game, "layout")
    if facts is None:
        raise ValueError(f"no environment for game {game!r}; games: {', '.join(games())}")
    return GameTable(
        facts.PACK, getattr(facts, "NUM_ACTIONS", None), getattr(facts, "MAX_LEGAL", None)
    )


def games() -> list[str]:
    """The games with a ``layout`` part: the ones with an environment."""
    return [name for name in game_names() if part(name, "layout") is not None]


def action_space_size(game: str) -> int:
    entry = table(game)
    size = entry.num_actions if entry.num_actions is not None else entry.max_legal
    assert size is not None
    return size


def uses_ids(game: str) -> bool:
    """True when the environment's actions are the engine's ids, False for indices."""
    return table(game).num_actions is not None


def pack(game: str) -> tuple[str, ...]:
    return table(game).pack


def _holds_cards(message: _descriptor.Descriptor, seen: frozenset[str] = frozenset()) -> bool:
    if message.full_name == _CARD:
        return True
    if message.full_name in seen:
        return False
    return any(
        f.message_type is not None and _holds_cards(f.message_type, seen | {message.full_name})
        for f in message.fields
    )


def _message(game: str) -> _descriptor.Descriptor:
    """The game's observation message: the one ``arena.wire`` sends its bots."""
    return wire.observation_message(game)


Block = tuple[str, str, int, _FD | None, _FD | None]
"""(name, kind, size, top-level field, sub-field)."""


@cache
def _blocks(game: str) -> tuple[Block, ...]:
    seats = get_game(game).info.num_seats
    cards = len(pack(game))
    blocks: list[Block] = [("seat_one_hot", "seat", seats, None, None)]

    def scalar(name: str, f: _FD, top: _FD | None) -> Block:
        sub = f if top is not None else None
        owner = top if top is not None else f
        if f.enum_type is not None and not f.is_repeated:
            return (name, "enum", len(f.enum_type.values), owner, sub)
        if f.is_repeated:
            return (name, "numbers", seats, owner, sub)
        return (name, "number", 1, owner, sub)

    for f in _message(game).fields:
        if f.message_type is not None and _holds_cards(f.message_type):
            blocks.append((f.name, "cards", cards, f, None))
        elif f.message_type is not None and f.is_repeated:
            blocks.append((f.name, "count", 1, f, None))
        elif f.message_type is not None:
            blocks.append((f.name, "present", 1, f, None))
            for sub in f.message_type.fields:
                if sub.message_type is None:
                    blocks.append(scalar(f"{f.name}.{sub.name}", sub, f))
        else:
            blocks.append(scalar(f.name, f, None))
    return tuple(blocks)


def layout(game: str) -> list[tuple[str, int, int]]:
    """Every block of the game's tensor: (name, offset, size)."""
    out, offset = [], 0
    for name, _, size, _, _ in _blocks(game):
        out.append((name, offset, size))
        offset += size
    return out


def tensor_size(game: str) -> int:
    return sum(size for _, _, size, _, _ in _blocks(game))


def _card_codes(value: object, out: list[str]) -> None:
    if isinstance(value, Message):
        if value.DESCRIPTOR.full_name == _CARD:
            out.append(value.code)  # type: ignore[attr-defined]
            return
        for _, item in value.ListFields():
            _card_codes(item, out)
    elif not isinstance(value, str | bytes | int | float):  # a repeated field
        for item in value:  # type: ignore[attr-defined]
            _card_codes(item, out)


def _number(message: Message, f: _FD) -> float:
    if f.has_presence and not message.HasField(f.name):
        return -1.0
    return float(getattr(message, f.name))


@cache
def _card_index(game: str) -> dict[str, int]:
    return {code: i for i, code in enumerate(pack(game))}


def encode(game: str, seat: int, observation: Message) -> np.ndarray:
    """The tensor of ``observation``, the game's observation message for ``seat``."""
    out = np.zeros(tensor_size(game), dtype=np.float32)
    index = _card_index(game)
    offset = 0
    for _, kind, size, top, sub in _blocks(game):
        if kind == "seat":
            out[offset + seat] = 1.0
        elif kind == "cards":
            assert top is not None
            codes: list[str] = []
            _card_codes(getattr(observation, top.name), codes)
            for code in codes:
                if code:  # a face-down card has no code
                    out[offset + index[code]] = 1.0
        elif kind == "count":
            assert top is not None
            out[offset] = len(getattr(observation, top.name))
        elif kind == "present":
            assert top is not None
            out[offset] = float(observation.HasField(top.name))
        else:
            assert top is not None
            holder = observation
            f = top
            if sub is not None:
                holder = getattr(observation, top.name)
                f = sub
            if kind == "enum":
                number = getattr(holder, f.name)
                assert f.enum_type is not None
                position = [v.number for v in f.enum_type.values].index(number)
                out[offset + position] = 1.0
            elif kind == "numbers":
                values = list(getattr(holder, f.name))[:size]
                out[offset : offset + len(values)] = values
            else:
                out[offset] = _number(holder, f)
        offset += size
    return out
