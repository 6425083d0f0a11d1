"""Seep's fixed facts and its action ids: seats and teams, the 52 cards (canonical order,
capture values, points), and the encoding of every play as one id, with ``decode``, each
play's text and payload. ``arena.games.seep.game`` (whose docstring describes the ids) is the
engine and exports these names; this module is its base, shared with the legal-move
generator (``seep_legal``) and the position checks (``seep_position``).
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.games.api import GameInfo, IllegalActionError, OptionSpec
from arena.games.cards import SUITS, Card

# --- Facts of the game -------------------------------------------------------------------

GAME_INFO = GameInfo(
    name="seep",
    title="Seep",
    score_unit="bazzi",
    num_seats=4,
    seat_teams=(0, 1, 0, 1),
    options=(
        OptionSpec(
            "bazzis",
            1,
            "Bazzis the match lasts; more bazzis won wins, equal is a draw.",
            minimum=1,
            maximum=99,
        ),
        OptionSpec(
            "max_deals",
            50,
            "Arena safeguard: a bazzi still open after this many deals goes to the team "
            "ahead on the running difference, or is void at 0.",
            minimum=1,
            maximum=10000,
        ),
    ),
    description="North-Indian fishing game for two partnerships: bid a house value, "
    "capture, build, cement and break houses, sweep the floor, and win a bazzi by 100.",
    former_rules=(
        (
            "void_bazzi_same_dealer",
            "after a void bazzi the same dealer dealt again (the engine before 2026-12-07; "
            "the rules have the dealer's partner deal)",
        ),
    ),
)
VOID_BAZZI_SAME_DEALER = "void_bazzi_same_dealer"
"""The former rule (``GameInfo.former_rules``): a void bazzi's dealer dealt again."""

NUM_SEATS = 4
SEAT_TEAMS = GAME_INFO.seat_teams
PLAYS_PER_DEAL = 48
BAZZI_TARGET = 100
MIN_DEAL_SCORE = 9
HOUSE_VALUES = (9, 10, 11, 12, 13)
MAX_SUM = 13

RANK_CHARS = "A23456789TJQK"
"""Rank characters by capture value 1..13 (the card code's rank character)."""

CARDS: tuple[Card, ...] = tuple(r + s for r in RANK_CHARS for s in SUITS)
"""The 52 cards in canonical order: capture value, then suit C, D, H, S."""
CARD_INDEX: dict[Card, int] = {card: i for i, card in enumerate(CARDS)}
VALUE: tuple[int, ...] = tuple(i // 4 + 1 for i in range(52))
"""Capture value by card index: A 1, 2..10 pips, J 11, Q 12, K 13."""


def _points(card: Card) -> int:
    value = RANK_CHARS.index(card[0]) + 1
    if card[1] == "S":
        return value
    if card[0] == "A":
        return 1
    return 6 if card == "TD" else 0


POINTS: tuple[int, ...] = tuple(_points(card) for card in CARDS)
"""Point value by card index; the pack totals 100."""
assert sum(POINTS) == 100

SWEEP_OPENING = 25
SWEEP_NORMAL = 50
SWEEP_LAST = 0

# --- Action ids (see the docstring of arena.games.seep.game) -----------------------------------

BID, CAPTURE, BUILD, ADD, BREAK, THROW = range(6)
KIND_NAMES = ("bid", "capture", "build", "add", "break", "throw")
RANK_BITS = 52
FULL = 1 << RANK_BITS
MAX_HEAD = (THROW * 52 + 51) * 5 + 4
ACTION_LIMIT = (MAX_HEAD + 1) << RANK_BITS
assert ACTION_LIMIT <= 2**63

CARD_OFFSET: tuple[int, ...] = tuple((card * 5) << RANK_BITS for card in range(52))
"""What a card adds to an id: ids of one kind and slot differ by card only here."""


def _base(kind: int, slot: int) -> int:
    return (kind * 260 + slot) << RANK_BITS


BID_ACTIONS: dict[int, int] = {value: _base(BID, value - 9) for value in HOUSE_VALUES}
THROW_BASE = _base(THROW, 0)
CAPTURE_BASE = _base(CAPTURE, 0)
BUILD_BASE = {value: _base(BUILD, value - 9) for value in HOUSE_VALUES}
ADD_BASE = {value: _base(ADD, value - 9) for value in HOUSE_VALUES}
BREAK_BASE = {value: _base(BREAK, value - 9) for value in HOUSE_VALUES[:-1]}
HOUSE_BITS = sum(1 << value for value in HOUSE_VALUES)
ALL_VALUES = sum(1 << value for value in range(1, 14))
BREAK_ROOM = tuple((1 << (14 - v)) - 1 for v in range(14))
"""Per card value v: bit W set when a house of value W can rise by v (W + v <= 13)."""

MASK_WEIGHT: tuple[int, ...] = tuple(1 << (51 - card) for card in range(52))
"""Bit of each card in the 52-bit mask ``M`` of the docstring (AC is the top bit)."""


def loose_cards(rank: int) -> list[int]:
    """The card indices of a ``rank`` (module docstring), in canonical order.

    Below a set whose last card is c - 1, the sets that continue with card e (e >= c) fill
    a block of 2**(51 - e) ranks, so the next card is the first whose blocks reach past
    the rank: found from the bit length of what is left, not by walking the cards.
    """
    cards: list[int] = []
    card = 0
    while rank:
        rank -= 1  # past the set that stops here
        room = 1 << (52 - card)  # the blocks of cards card..51 fill room - 1 ranks
        following = 51 - ((room - rank - 1).bit_length() - 1)
        rank -= room - (1 << (52 - following))  # the blocks of the cards skipped
        cards.append(following)
        card = following + 1
    return cards


@dataclass(frozen=True, slots=True)
class SeepCapture:
    """Payload of a CAPTURE: the hand card and the loose cards taken."""

    card: Card
    loose: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class SeepBuild:
    """Payload of a BUILD: the hand card, the new house's value, the loose cards moved."""

    card: Card
    value: int
    loose: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class SeepAdd:
    """Payload of an ADD: the hand card, the house's value, the loose cards moved."""

    card: Card
    value: int
    loose: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class SeepBreak:
    """Payload of a BREAK: the hand card, the broken house's value and its new value."""

    card: Card
    house: int
    value: int
    loose: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Decoded:
    """An action id taken apart; ``value`` is the house value after the play (BID: the
    bid; CAPTURE and THROW: the card's value) and ``house`` the broken value of a BREAK."""

    kind: int
    card: int
    value: int
    house: int
    loose: tuple[int, ...]


def decode(action: int) -> Decoded:
    """Take an id apart; anything that is no Seep action raises ``IllegalActionError``."""
    if not isinstance(action, int) or not 0 <= action < ACTION_LIMIT:
        raise IllegalActionError(f"seep has action ids 0..{ACTION_LIMIT - 1}, not {action!r}")
    head, rank = action >> RANK_BITS, action & (FULL - 1)
    slot, kind_card = head % 5, head // 5
    kind, card = divmod(kind_card, 52)
    loose = tuple(loose_cards(rank))
    value, house = VALUE[card], 0
    if kind == BID:
        ok = card == 0 and not loose
        value = 9 + slot
    elif kind == THROW:
        ok = slot == 0 and not loose
    elif kind == CAPTURE:
        ok = slot == 0 and card not in loose
    elif kind == BREAK:
        house = 9 + slot
        value += house
        ok = value <= MAX_SUM and card not in loose
    else:  # BUILD or ADD; only an ADD of a card of the house's value moves no loose card
        ok = value <= 9 + slot and card not in loose
        ok = ok and (bool(loose) or (kind == ADD and value == 9 + slot))
        value = 9 + slot
    if not ok:
        raise IllegalActionError(f"{action} is not a seep action id")
    return Decoded(kind, card, value, house, loose)


def card_codes(cards: tuple[int, ...] | list[int]) -> tuple[Card, ...]:
    return tuple(map(CARDS.__getitem__, cards))


def card_indices(cards: tuple[Card, ...] | list[Card]) -> list[int]:
    """Card codes as indices, in canonical order."""
    return sorted(map(CARD_INDEX.__getitem__, cards))


def play_text(d: Decoded) -> str:
    tail = "".join(" " + CARDS[c] for c in d.loose)
    card = CARDS[d.card]
    if d.kind == BID:
        return f"bid {d.value}"
    if d.kind == THROW:
        return f"throw {card}"
    if d.kind == CAPTURE:
        return f"capture {card}{tail}"
    if d.kind == BREAK:
        return f"break {card} {d.house}{tail}"
    return f"{KIND_NAMES[d.kind]} {card} {d.value}{tail}"


def play_payload(d: Decoded) -> tuple[str, object]:
    card, loose = CARDS[d.card], card_codes(d.loose)
    if d.kind == BID:
        return ("bid", d.value)
    if d.kind == THROW:
        return ("throw", card)
    if d.kind == CAPTURE:
        return ("capture", SeepCapture(card, loose))
    if d.kind == BUILD:
        return ("build", SeepBuild(card, d.value, loose))
    if d.kind == ADD:
        return ("add", SeepAdd(card, d.value, loose))
    return ("break_house", SeepBreak(card, d.house, d.value, loose))
