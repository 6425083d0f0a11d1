"""The one place where engine objects become proto messages.

Engines speak plain Python (card codes, small dataclasses, lowercase enum names); bots
speak ``arena.v1``. The mapping is by name, driven by the proto descriptors, so adding a
game means adding its messages and its engine, with no per-game code here:

- a dataclass attribute fills the proto field of the same name;
- a ``Card`` field takes a card code (``"QH"``, ``"X1"``, ``"GC"``);
- a ``Suit`` field takes a suit letter; any other enum field takes the value name
  without its prefix, in lowercase (``"ask"`` for ``..._CALL_ASK``);
- ``None`` leaves a field unset; sequences fill repeated fields.

A game's observation goes into the ``ActRequest.observation`` oneof field, and its action
payloads into ``LegalAction.payload``, both named after the game (hyphens become
underscores). A game with no field there (one developed in its own folder, or a test's)
declares its messages in its folder's ``messages`` part, ``OBSERVATION`` and ``ACTION``
(message classes), and both go packed into the oneofs' ``other`` member, a
``google.protobuf.Any``; ``observation_of`` and ``payload_of`` read either form back.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from functools import cache, lru_cache
from typing import Any, Generic, TypeVar

from google.protobuf import any_pb2, duration_pb2, timestamp_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from arena.games.api import Game, State, UnknownGameError
from arena.games.registry import part
from arena.recent import Recent
from arena.v1 import bot_pb2, cards_pb2, referee_pb2

_FD = _descriptor.FieldDescriptor
_RANKS = {
    "2": cards_pb2.RANK_TWO,
    "3": cards_pb2.RANK_THREE,
    "4": cards_pb2.RANK_FOUR,
    "5": cards_pb2.RANK_FIVE,
    "6": cards_pb2.RANK_SIX,
    "7": cards_pb2.RANK_SEVEN,
    "8": cards_pb2.RANK_EIGHT,
    "9": cards_pb2.RANK_NINE,
    "T": cards_pb2.RANK_TEN,
    "J": cards_pb2.RANK_JACK,
    "Q": cards_pb2.RANK_QUEEN,
    "K": cards_pb2.RANK_KING,
    "A": cards_pb2.RANK_ACE,
}
_SUITS = {
    "C": cards_pb2.SUIT_CLUBS,
    "D": cards_pb2.SUIT_DIAMONDS,
    "H": cards_pb2.SUIT_HEARTS,
    "S": cards_pb2.SUIT_SPADES,
}
_SPECIALS = {
    "GC": cards_pb2.SPECIAL_GRAND_COLON,
    "RC": cards_pb2.SPECIAL_ROYAL_COLON,
    "LC": cards_pb2.SPECIAL_LITTLE_COLON,
}


def field_name(game_name: str) -> str:
    """Oneof field of a game: its name with underscores for hyphens."""
    return game_name.replace("-", "_")


@cache
def card(code: str) -> cards_pb2.Card:
    """The proto form of a card code. Cached: callers must not mutate the result."""
    if code in _SPECIALS:
        return cards_pb2.Card(code=code, special=_SPECIALS[code])
    if len(code) == 2 and code[0] == "X" and code[1] in "1234":
        return cards_pb2.Card(code=code, special=cards_pb2.SPECIAL_JOKER, number=int(code[1]))
    if len(code) != 2 or code[0] not in _RANKS or code[1] not in _SUITS:
        raise ValueError(f"not a card code: {code!r}")
    return cards_pb2.Card(code=code, rank=_RANKS[code[0]], suit=_SUITS[code[1]])


def _upper_snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper()


Converter = Callable[[Any], Any]


@cache
def _enum_converter(enum: _descriptor.EnumDescriptor) -> Converter:
    if enum.full_name == "arena.v1.Suit":
        return lambda letter: _SUITS[letter]
    prefix = _upper_snake(enum.name) + "_"
    numbers = {v.name[len(prefix) :].lower(): v.number for v in enum.values}
    return lambda name: numbers[name]


def scalar_converter(field: _FD) -> Converter:
    """Engine value -> proto value of a field that is not a message."""
    if field.enum_type is not None:
        return _enum_converter(field.enum_type)
    return lambda value: value


def _converter(field: _FD) -> Converter:
    if field.message_type is not None:
        if field.message_type.full_name == "arena.v1.Card":
            return card
        # Nested engine values (a played card, a finished trick) are frozen and recur in
        # every later observation: convert each once.
        return lru_cache(maxsize=4096)(_message_converter(field.message_type))
    return scalar_converter(field)


@cache
def _message_converter(message: _descriptor.Descriptor) -> Converter:
    cls = GetMessageClass(message)
    plan = [(f.name, f.is_repeated, _converter(f)) for f in message.fields]

    def convert(value: Any) -> Message:
        kwargs: dict[str, Any] = {}
        for name, repeated, conv in plan:
            item = getattr(value, name, None)
            if item is None:
                continue
            kwargs[name] = [conv(x) for x in item] if repeated else conv(item)
        return cls(**kwargs)

    return convert


OTHER = "other"
"""The member of both oneofs that holds, packed, the messages of a game not in
``bot.proto``."""
MESSAGES_PART = "messages"
"""The part of a game's folder that declares its messages when ``bot.proto`` has none."""


def _game_message(container: Any, game_name: str, declared: str) -> _descriptor.Descriptor:
    """The per-game message type held in ``container``'s field named after the game, else
    the one the game's ``messages`` part declares as ``declared``."""
    field = container.fields_by_name.get(field_name(game_name))
    if field is not None and field.name != OTHER and field.message_type is not None:
        found: _descriptor.Descriptor = field.message_type
        return found
    messages = part(game_name, MESSAGES_PART)
    cls = getattr(messages, declared, None)
    if cls is None:
        raise LookupError(
            f"{container.full_name} has no field for game {game_name!r}, and its folder "
            f"declares no {declared} message ({MESSAGES_PART} part)"
        )
    declared_message: _descriptor.Descriptor = cls.DESCRIPTOR
    return declared_message


@cache
def observation_message(game_name: str) -> _descriptor.Descriptor:
    """The observation message type of a game: its ``ActRequest.observation`` field's,
    else the ``OBSERVATION`` of its folder's ``messages`` part."""
    return _game_message(bot_pb2.ActRequest.DESCRIPTOR, game_name, "OBSERVATION")


@cache
def payload_message(game_name: str) -> _descriptor.Descriptor:
    """The action payload message type of a game: its ``LegalAction.payload`` field's,
    else the ``ACTION`` of its folder's ``messages`` part."""
    return _game_message(bot_pb2.LegalAction.DESCRIPTOR, game_name, "ACTION")


@cache
def packed(game_name: str) -> bool:
    """Whether a game's messages travel packed in ``other`` (it has no field of its own)."""
    field = bot_pb2.ActRequest.DESCRIPTOR.fields_by_name.get(field_name(game_name))
    return field is None or field.name == OTHER


def _pack(message: Message) -> any_pb2.Any:
    box = any_pb2.Any()
    box.Pack(message)
    return box


def _unpack(box: any_pb2.Any, message: _descriptor.Descriptor) -> Message | None:
    out: Message = GetMessageClass(message)()
    return out if box.Unpack(out) else None


def observation(game_name: str, obs: object) -> Message:
    """The typed observation message of a game from the engine's observation object."""
    message: Message = _message_converter(observation_message(game_name))(obs)
    return message


def observation_of(request: bot_pb2.ActRequest) -> Message | None:
    """The typed observation a request carries, unpacked from ``other`` for a game whose
    messages its folder declares; None when it carries none, or a packed one of a game
    not registered here (or of another type than its folder declares)."""
    return _typed(request, "observation", lambda: observation_message(request.game))


def payload_of(game_name: str, action: bot_pb2.LegalAction) -> Message | None:
    """The typed payload of a legal action of ``game_name``, unpacked as
    ``observation_of`` unpacks an observation."""
    return _typed(action, "payload", lambda: payload_message(game_name))


def _typed(
    holder: Message, oneof: str, declared: Callable[[], _descriptor.Descriptor]
) -> Message | None:
    which = holder.WhichOneof(oneof)
    if which is None:
        return None
    if which != OTHER:
        held: Message = getattr(holder, which)
        return held
    box: any_pb2.Any = getattr(holder, OTHER)
    try:
        return _unpack(box, declared())
    except (UnknownGameError, LookupError):
        return None


@cache
def _payload_converters(game_name: str) -> dict[str, Converter]:
    message = payload_message(game_name)
    return {f.name: _converter(f) for f in message.fields}


@cache
def _payload_class(game_name: str) -> Any:
    return GetMessageClass(payload_message(game_name))


LEGAL_ACTION_CACHE_SIZE = 1 << 13
"""Legal actions kept converted, by game and id (here and in ``arena.wire_bytes``). Most
games have a few hundred ids; a game whose ids name melds and lay-offs has many, and a referee
met about ten new ones a match, so at 65,536 these caches grew for thousands of matches
(``bench.referee_memory``). A full cache drops its oldest action, not all of them."""

Converted = TypeVar("Converted")


class LegalActionCache(Generic[Converted]):
    """Legal actions in a wire form, ``convert(state, action)`` made at an action's first
    use and kept by game and id: an id means the same action for the whole game (the
    engine contract), so any state of the game converts it alike and the result never
    changes (an ``lru_cache`` would key on the state too). Keeps ``size`` actions, the
    oldest dropped first (``arena.recent.Recent``)."""

    def __init__(
        self, convert: Callable[[State, int], Converted], size: int = LEGAL_ACTION_CACHE_SIZE
    ) -> None:
        self._convert = convert
        self._kept: Recent[tuple[str, int], Converted] = Recent(size)

    def get(self, state: State, action: int) -> Converted:
        """``action`` converted, from the cache or made now and kept."""
        key = (state.game_info.name, action)
        kept = self._kept
        found = kept.get(key)
        if found is None:
            found = kept.keep(key, self._convert(state, action))
        return found


def _convert_legal_action(state: State, action: int) -> bot_pb2.LegalAction:
    game_name = state.game_info.name
    kind, value = state.action_payload(action)
    payload = _payload_class(game_name)(**{kind: _payload_converters(game_name)[kind](value)})
    return bot_pb2.LegalAction(
        id=action,
        text=state.action_text(action),
        **_per_game(game_name, payload),
    )


def _per_game(game_name: str, message: Message) -> dict[str, Any]:
    """The oneof member a game's message goes in: its own field, else ``other``, packed."""
    if packed(game_name):
        return {OTHER: _pack(message)}
    return {field_name(game_name): message}


_legal_actions = LegalActionCache(_convert_legal_action)
"""Legal actions as ``LegalAction`` messages, by game and id."""


def legal_action(state: State, action: int) -> bot_pb2.LegalAction:
    """The wire form of a legal action. Cached (``LegalActionCache``): an id means the same
    action for the whole game (the engine contract), so its text and payload never change.
    Callers must not mutate the result."""
    return _legal_actions.get(state, action)


@lru_cache(maxsize=256)
def duration(seconds: float) -> duration_pb2.Duration:
    """A Duration message. Cached: callers must not mutate the result."""
    d = duration_pb2.Duration()
    d.FromTimedelta(timedelta(seconds=seconds))
    return d


def timestamp(seconds: float) -> timestamp_pb2.Timestamp:
    """A Timestamp message of a time.time() value."""
    stamp = timestamp_pb2.Timestamp()
    stamp.FromNanoseconds(int(seconds * 1e9))
    return stamp


def instant(value: timestamp_pb2.Timestamp) -> float:
    """A Timestamp as a time.time() value."""
    return value.seconds + value.nanos / 1e9


MAX_DURATION_SECONDS = 315_576_000_000  # 10,000 years: google.protobuf.Duration's range


def seconds(value: duration_pb2.Duration) -> float:
    """A Duration in seconds; ValueError, never OverflowError, for one outside the range
    protobuf defines (a caller can send any int64 seconds and int32 nanos)."""
    if not -MAX_DURATION_SECONDS <= value.seconds <= MAX_DURATION_SECONDS:
        raise ValueError(f"duration of {value.seconds} s is out of range")
    if not -999_999_999 <= value.nanos <= 999_999_999 or value.seconds * value.nanos < 0:
        raise ValueError(f"duration nanos {value.nanos} out of range or of the wrong sign")
    return value.seconds + value.nanos / 1e9


def act_request(
    state: State,
    *,
    match_id: str,
    decision_index: int,
    deadline_s: float,
    legal: list[int],
    time_bank_s: float = 0.0,
) -> bot_pb2.ActRequest:
    """The request for the seat to act: its observation and the legal actions only."""
    seat = state.current_seat()
    game_name = state.game_info.name
    per_game = _per_game(game_name, observation(game_name, state.observation(seat)))
    return bot_pb2.ActRequest(
        match_id=match_id,
        game=game_name,
        seat=seat,
        team=state.game_info.seat_teams[seat],
        decision_index=decision_index,
        deadline=duration(deadline_s),
        legal_actions=[legal_action(state, a) for a in legal],
        time_bank=duration(time_bank_s) if time_bank_s > 0 else None,
        **per_game,
    )


def game_description(game: Game) -> referee_pb2.GameDescription:
    info = game.info
    options = []
    for spec in info.options:
        is_bool = isinstance(spec.default, bool)
        options.append(
            referee_pb2.GameOption(
                name=spec.name,
                type=referee_pb2.OPTION_TYPE_BOOL if is_bool else referee_pb2.OPTION_TYPE_INT,
                default_value=str(spec.default).lower() if is_bool else str(spec.default),
                description=spec.help,
                minimum=spec.minimum,
                maximum=spec.maximum,
            )
        )
    return referee_pb2.GameDescription(
        name=info.name,
        title=info.title,
        seats=info.num_seats,
        seat_teams=list(info.seat_teams),
        teams=info.num_teams,
        options=options,
        description=info.description,
    )
