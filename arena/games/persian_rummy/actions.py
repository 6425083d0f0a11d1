"""Persian Rummy's fixed facts and its action ids: the game's options, the 56 cards (jokers
included) and their points, the tables of melds, runs and sets over card indices and hand masks,
and the encoding of every action as one id, with each id's text and payload. Part of the engine
``arena.games.persian_rummy.game``, which exports these names and whose docstring lists the
ids.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache

from arena.games.api import GameInfo, IllegalActionError
from arena.games.cards import JOKERS, SUITS, Card, pretty
from arena.games.persian_rummy import rules
from arena.games.persian_rummy.rules import meld_fault

# --- Facts of the game -------------------------------------------------------------------

GAME_INFO = GameInfo(
    name="persian-rummy",
    title="Persian Rummy",
    num_seats=4,
    seat_teams=(0, 1, 0, 1),
    options=(),
    description="Partnership 500 Rum with four non-wild jokers: take from anywhere in the "
    "fanned discard pile, sets of four melded at once score double, two deals.",
)

NUM_SEATS = 4
SEAT_TEAMS = GAME_INFO.seat_teams
NUM_DEALS = 2
HAND_SIZE = 7
GOING_OUT_BONUS = 25
PASSES_TO_END = 4
JOKER_RANK = rules.JOKER_RANK

RANKS = "23456789TJQKA"
CARDS: tuple[Card, ...] = (*(r + s for r in RANKS for s in SUITS), *JOKERS)
"""The 56 cards in canonical order: 2C 2D 2H 2S 3C ... AS X1 X2 X3 X4."""
NUM_CARDS = len(CARDS)
CARD_INDEX: dict[Card, int] = {card: i for i, card in enumerate(CARDS)}
PRETTY: tuple[str, ...] = tuple(pretty(card) for card in CARDS)
"""Each card as logs show it: ``Q♥``, ``10♠``, ``X1``."""

VALUE: tuple[int, ...] = tuple(
    20 if i >= 52 else 15 if i >> 2 == 12 else min(10, (i >> 2) + 2) for i in range(NUM_CARDS)
)
"""Points of each card index, on the table or left in hand: 2-9 pips, T/J/Q/K 10, A 15,
joker 20."""

DRAW_RANK: tuple[int, ...] = tuple(
    14 if i >= 52 else 1 if i >> 2 == 12 else (i >> 2) + 2 for i in range(NUM_CARDS)
)
"""Rank of a card in the draw for the first deal: ace 1, 2..10, J 11, Q 12, K 13, joker 14."""

SET_SHAPES: tuple[tuple[int, ...], ...] = ((0, 1, 2), (0, 1, 2, 3), (0, 1, 3), (0, 2, 3), (1, 2, 3))
"""The five sets of one rank (suits, or joker numbers - 1), ordered card by card."""

# --- Action ids (see the docstring of arena.games.persian_rummy.game) ----------------------

DRAW_STOCK = 0
TAKE_BASE = 1
PASS = 57
MELD_BASE = 64
RUN_SHAPE = 16
LAYOFF_BASE = 2048
LAYOFF_STRIDE = 8192
MAX_MELDS = 32
DISCARD_BASE = 1 << 24
RANK_MASK = (1 << 13) - 1


def _meld_id(first: int, shape: int) -> int:
    return MELD_BASE + 32 * first + shape


def layoff_id(meld: int, first: int, ranks: int) -> int:
    return LAYOFF_BASE + LAYOFF_STRIDE * (NUM_CARDS * meld + first) + ranks


def _build_meld_table() -> dict[int, tuple[int, ...]]:
    """Every meld id with its cards: of the candidates, each shape of set of each rank and
    each stretch of one suit, those ``meld_fault`` accepts (a run that would go past the
    ace runs into the jokers' indices and is none)."""
    table: dict[int, tuple[int, ...]] = {}
    candidates = [
        (_meld_id(4 * rank + suits[0], shape), tuple(4 * rank + s for s in suits))
        for rank in range(JOKER_RANK + 1)
        for shape, suits in enumerate(SET_SHAPES)
    ]
    candidates += [
        (_meld_id(first, RUN_SHAPE + length), tuple(first + 4 * k for k in range(length)))
        for first in range(52)
        for length in range(3, 14)
    ]
    for meld, cards in candidates:
        if meld_fault(cards) is None:
            table[meld] = cards
    return table


MELD_CARDS: dict[int, tuple[int, ...]] = _build_meld_table()

SETS_OF_SUITS: tuple[tuple[int, ...], ...] = tuple(
    tuple(shape for shape, suits in enumerate(SET_SHAPES) if all(mask >> s & 1 for s in suits))
    for mask in range(16)
)
"""For a 4-bit mask of the suits held in one rank, the set shapes that can be melded."""

SET_IDS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(
        tuple(_meld_id(4 * rank + SET_SHAPES[shape][0], shape) for shape in SETS_OF_SUITS[mask])
        for mask in range(16)
    )
    for rank in range(JOKER_RANK + 1)
)

SET_IDS_WITH: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(
        tuple(
            _meld_id(4 * rank + SET_SHAPES[shape][0], shape)
            for shape in SETS_OF_SUITS[mask]
            if suit in SET_SHAPES[shape]
        )
        for mask in range(16)
    )
    for rank in range(JOKER_RANK + 1)
    for suit in range(4)
)
"""Indexed by card index, then by rank mask: the set ids that contain that card."""


def _stretch_table() -> tuple[int, ...]:
    """For each 13-bit rank mask, the ranks that lie in a stretch of 3+ consecutive ranks."""
    table = []
    for mask in range(1 << 13):
        keep = 0
        rank = 0
        while rank < 13:
            if mask >> rank & 1:
                end = rank
                while end + 1 < 13 and mask >> (end + 1) & 1:
                    end += 1
                if end - rank >= 2:
                    keep |= ((1 << (end + 1)) - 1) ^ ((1 << rank) - 1)
                rank = end + 1
            else:
                rank += 1
        table.append(keep)
    return tuple(table)


IN_STRETCH: tuple[int, ...] = _stretch_table()


@cache
def runs_of(suit: int, mask: int) -> tuple[tuple[int, int, int], ...]:
    """Every run a hand with these ranks of ``suit`` can meld: (action id, low, high)."""
    runs = []
    keep = IN_STRETCH[mask]
    for low in range(11):
        if not keep >> low & 1:
            continue
        high = low + 1
        while high < 13 and mask >> high & 1:
            if high - low >= 2:
                runs.append((_meld_id(4 * low + suit, RUN_SHAPE + high - low + 1), low, high))
            high += 1
    return tuple(runs)


POPCOUNT4 = tuple(bin(m).count("1") for m in range(16))
NIBBLE_ONES = int("1" * 14, 16)
"""0x1111...: one bit per rank nibble of a hand mask (14 ranks, jokers included)."""
PAIR_BITS = int("5" * 14, 16)
QUAD_BITS = int("3" * 14, 16)


def ranks_with_three(hand: int) -> int:
    """Bit ``4 * rank + 2`` set for every rank of which the hand holds 3 or 4 cards."""
    pairs = (hand & PAIR_BITS) + ((hand >> 1) & PAIR_BITS)
    counts = (pairs & QUAD_BITS) + ((pairs >> 2) & QUAD_BITS)
    return (counts + NIBBLE_ONES) & (NIBBLE_ONES << 2)


SUIT_BIT: tuple[int, ...] = tuple(
    0 if i >= 52 else 1 << (16 * (i & 3) + (i >> 2)) for i in range(NUM_CARDS)
)
"""A card's bit in a hand's suit-major mask (bit 16 * suit + rank); jokers have none."""

_BYTE_ITEMS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(8 * k + b for b in range(8) if byte >> b & 1) for byte in range(256))
    for k in range(7)
)
"""For byte ``k`` of a hand mask and its value: the card indices it holds."""
BYTE_DISCARDS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(DISCARD_BASE + c for c in items) for items in per_byte) for per_byte in _BYTE_ITEMS
)
"""The same, as the ids of discarding those cards."""


def bits(mask: int, table: tuple[tuple[tuple[int, ...], ...], ...] = _BYTE_ITEMS) -> list[int]:
    """The card indices of a 56-bit hand mask, ascending (or, with ``BYTE_DISCARDS``, the
    ids of discarding them)."""
    out: list[int] = []
    k = 0
    while mask:
        out += table[k][mask & 255]
        mask >>= 8
        k += 1
    return out


@lru_cache(maxsize=1 << 14)
def mask_codes(mask: int) -> tuple[Card, ...]:
    """The codes of the cards in a card mask (a hand, a seat's known cards), in pack
    order."""
    return tuple(CARDS[i] for i in bits(mask))


# --- Decoding action ids (text and payload depend on the id only) --------------------------


@dataclass(frozen=True, slots=True)
class PersianRummyMeldCards:
    """Payload of a MELD: the new meld's cards in canonical order."""

    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class PersianRummyLayoffCards:
    """Payload of a LAYOFF: the table meld's id and the cards added to it."""

    meld_id: int
    cards: tuple[Card, ...]


def _bad(action: int) -> IllegalActionError:
    return IllegalActionError(f"persian-rummy has no action {action}")


@lru_cache(maxsize=1 << 13)  # ids met so far; see arena.wire
def layoff_parts(action: int) -> tuple[int, tuple[int, ...]]:
    """The meld id and card indices of a LAYOFF id; raises for ids that name no cards."""
    offset = action - LAYOFF_BASE
    ranks = offset & RANK_MASK
    meld, first = divmod(offset // LAYOFF_STRIDE, NUM_CARDS)
    if meld >= MAX_MELDS:
        raise _bad(action)
    if first >= 52:
        if ranks:
            raise _bad(action)
        return meld, (first,)
    suit, rank = first & 3, first >> 2
    if not ranks >> rank & 1 or ranks & ((1 << rank) - 1):
        raise _bad(action)
    return meld, tuple(4 * r + suit for r in range(rank, 13) if ranks >> r & 1)


@lru_cache(maxsize=1 << 13)  # ids met so far; see arena.wire
def describe(action: int) -> tuple[str, tuple[str, object]]:
    """Canonical text and payload of an action id."""
    if action == DRAW_STOCK:
        return "draw", ("draw_stock", True)
    if TAKE_BASE <= action < TAKE_BASE + NUM_CARDS:
        return f"take {action - TAKE_BASE}", ("take", action - TAKE_BASE)
    if action == PASS:
        return "pass", ("pass_turn", True)
    if action in MELD_CARDS:
        cards = tuple(CARDS[i] for i in MELD_CARDS[action])
        return "meld " + " ".join(cards), ("meld", PersianRummyMeldCards(cards))
    if LAYOFF_BASE <= action < DISCARD_BASE:
        meld, indices = layoff_parts(action)
        cards = tuple(CARDS[i] for i in indices)
        return (
            f"layoff {meld} " + " ".join(cards),
            ("layoff", PersianRummyLayoffCards(meld, cards)),
        )
    if DISCARD_BASE <= action < DISCARD_BASE + NUM_CARDS:
        card = CARDS[action - DISCARD_BASE]
        return f"discard {card}", ("discard", card)
    raise _bad(action)
