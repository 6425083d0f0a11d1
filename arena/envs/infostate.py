"""Information-state tensors: what a seat has seen in the current hand, not only now.

The observation tensor (``arena.envs.layouts``) encodes the present observation alone, and
its card blocks say which cards lie in a field, not who put them there. The information
state tensor is that same tensor followed by a **memory** of the hand: per seat, 0/1 marks
of what the seat has seen that seat do this hand (cards played, calls made, cards
discarded or taken...). A game's ``infostate`` part (``arena.games.<game>.infostate``)
says what is remembered; this module never names a game.

It is a fold over the observations the seat received, so a bot keeps it as it plays::

    memory = start(game, seat)
    memory = update(memory, observation)   # at every request, the typed observation
    vector = tensor(memory)

and ``information_state_tensor(state, seat)`` gives the same vector from an engine state
(for OpenSpiel). The rules of the fold:

* ``update`` takes the game's observation message (``arena.wire.observation``, the one
  in ``ActRequest.observation``). Each observation shows some *sightings*, marks
  ``(block, seat, index)`` the game's part reads from it (``sightings``). The memory is
  the union of the sightings of every observation of the current hand; an observation of
  a new hand (the part's ``HAND_FIELDS`` differ) empties it first.
* What the seat saw only between its turns is not in it: the seat is sent nothing then.
  Most games' observations keep the hand's whole record (tricks, calls, plays), so
  nothing is lost; where an observation drops something (a card taken from a discard
  pile), the memory keeps it only if one of the seat's observations showed it.
  ``information_state_tensor`` reproduces exactly that from the state's events through
  the part's ``turn_sightings(state, seat)``: the sightings of the seat's observations
  at its earlier decisions of the hand that the present observation no longer shows.
* Earlier hands are not remembered beyond what the observation itself carries (scores,
  hand number, a history of earlier deals where the game sends one). That keeps the
  tensor a function of the current hand, as OpenSpiel's information state string and its
  determinization (which re-deals only the current hand) are.

Values: the first ``layouts.tensor_size(game)`` entries are the observation tensor, raw
as ``layouts`` documents (scores in points, -1 for an unset optional number); every
memory entry is 0 or 1. ``layout(game)`` names every block.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from types import ModuleType
from typing import Any

import numpy as np
from google.protobuf.message import Message

from arena import wire
from arena.envs import layouts
from arena.games import State, get_game
from arena.games.registry import part

Sighting = tuple[str, int, int]
"""``(block, seat, index)``: the seat whose deed it is, and the entry of its block."""

MEMORY_PREFIX = "memory."


@cache
def _part(game: str) -> ModuleType:
    facts = part(game, "infostate")
    if facts is None:
        raise ValueError(f"no information state tensor for game {game!r} (no infostate part)")
    return facts


def games() -> list[str]:
    """The games with an environment and an ``infostate`` part."""
    return [name for name in layouts.games() if part(name, "infostate") is not None]


@cache
def _memory_blocks(game: str) -> tuple[tuple[str, int, int], ...]:
    """(name, offset within the memory, width per seat) of every memory block."""
    out, offset = [], 0
    seats = get_game(game).info.num_seats
    for name, width, _ in _part(game).BLOCKS:
        out.append((name, offset, width))
        offset += seats * width
    return tuple(out)


@cache
def _memory_size(game: str) -> int:
    seats = get_game(game).info.num_seats
    return sum(seats * width for _, width, _ in _part(game).BLOCKS)


def blocks(game: str) -> list[tuple[str, int, str]]:
    """The game's memory blocks: (name, width per seat, what it marks)."""
    return [(name, width, what) for name, width, what in _part(game).BLOCKS]


def layout(game: str) -> list[tuple[str, int, int]]:
    """Every block of the information state tensor: (name, offset, size); the
    observation tensor's blocks first, then ``memory.<block>``, seat 0's part first."""
    base = layouts.tensor_size(game)
    seats = get_game(game).info.num_seats
    out = list(layouts.layout(game))
    for name, offset, width in _memory_blocks(game):
        out.append((MEMORY_PREFIX + name, base + offset, seats * width))
    return out


def information_state_tensor_size(game: str) -> int:
    return layouts.tensor_size(game) + _memory_size(game)


def information_state_tensor_shape(game: str) -> list[int]:
    """OpenSpiel's ``information_state_tensor_shape``: one flat dimension."""
    return [information_state_tensor_size(game)]


@dataclass(frozen=True)
class Memory:
    """What one seat has seen of the current hand; replace it with ``update``'s result."""

    game: str
    seat: int
    hand: tuple[Any, ...] | None = None
    """The hand the sightings belong to (the part's ``HAND_FIELDS``); None before any."""
    seen: frozenset[Sighting] = frozenset()
    present: np.ndarray | None = field(default=None, compare=False)
    """The observation tensor of the latest observation."""


def start(game: str, seat: int) -> Memory:
    """The memory of a seat that has been sent nothing yet."""
    _part(game)
    return Memory(game, seat)


def hand_fields(game: str) -> tuple[str, ...]:
    """The observation fields whose change starts a new hand (the part's ``HAND_FIELDS``)."""
    fields: tuple[str, ...] = _part(game).HAND_FIELDS
    return fields


def hand_of(game: str, observation: Message) -> tuple[Any, ...]:
    return tuple(getattr(observation, name) for name in hand_fields(game))


def sightings(game: str, observation: Message) -> frozenset[Sighting]:
    """The marks one observation shows (the game part's ``sightings``)."""
    return frozenset(_part(game).sightings(observation))


def update(memory: Memory, observation: Message) -> Memory:
    """The memory after the seat is sent ``observation`` (its game's message)."""
    hand = hand_of(memory.game, observation)
    earlier = memory.seen if hand == memory.hand else frozenset()
    return Memory(
        memory.game,
        memory.seat,
        hand,
        earlier | sightings(memory.game, observation),
        layouts.encode(memory.game, memory.seat, observation),
    )


def fold(game: str, seat: int, observations: Iterable[Message]) -> Memory:
    """The memory after ``observations``, in the order the seat was sent them."""
    memory = start(game, seat)
    for observation in observations:
        memory = update(memory, observation)
    return memory


def _vector(game: str, present: np.ndarray, seen: Iterable[Sighting]) -> np.ndarray:
    out = np.zeros(information_state_tensor_size(game), dtype=np.float32)
    out[: present.size] = present
    base = present.size
    where = {name: (offset, width) for name, offset, width in _memory_blocks(game)}
    for name, seat, index in seen:
        offset, width = where[name]
        if not 0 <= index < width:
            raise ValueError(f"{game}: sighting {name} index {index} is outside 0..{width - 1}")
        out[base + offset + seat * width + index] = 1.0
    return out


def tensor(memory: Memory) -> np.ndarray:
    """The information state tensor (float32) of a memory that has seen an observation."""
    if memory.present is None:
        raise ValueError("the seat has been sent no observation yet")
    return _vector(memory.game, memory.present, memory.seen)


def encode_state(state: State, seat: int) -> np.ndarray:
    """The tensor of ``seat`` in an engine state: the fold over the observations the seat
    was sent at its decisions of the current hand, and its present one."""
    game = state.game_info.name
    message = wire.observation(game, state.observation(seat))
    seen = set(sightings(game, message))
    earlier = getattr(_part(game), "turn_sightings", None)
    if earlier is not None:
        seen.update(earlier(state, seat))
    return _vector(game, layouts.encode(game, seat, message), seen)


def information_state_tensor(state: State, seat: int) -> list[float]:
    """OpenSpiel's ``information_state_tensor`` of ``seat`` in an engine state."""
    values: list[float] = encode_state(state, seat).tolist()
    return values
