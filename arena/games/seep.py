"""Seep: a four-player fishing game from North India, partners opposite, played to 100.

Seats 0 and 2 (team 0) play seats 1 and 3 (team 1). Play and dealing pass from seat s to
s+1. A deal starts with the bidder (dealer + 1) alone holding four cards: he names a house
value from 9 to 13 that he holds a card of, four floor cards turn up, he makes play 1,
and only then are the other 44 cards dealt in packets of four. Each of the 48 plays uses
one hand card to THROW it, CAPTURE loose cards (and the house of its value), BUILD a new
house of value 9..13, ADD to a house (cementing it) or BREAK another seat's ordinary house
to a higher value. Card points (every spade its capture value, the other aces 1, the ten
of diamonds 6: 100 in all) plus sweep bonuses make each team's deal score; the running
difference decides a *bazzi* at 100.

What surprises people who know Casino or Scopa:

* Capturing is compulsory and maximal: a card that can take something cannot be thrown,
  and a capture must leave no loose combination equal to the card (the house of the
  card's value always goes too). Building is never compulsory.
* A house is named by its value: there is at most one per value, and cards that would
  make a second one join the first (ADD, or a BREAK into an existing house). A loose card
  of a house's value can never lie beside it.
* Every owner of a house must keep a card of its value in hand until the house is
  captured or broken (the retention check); a play that breaks this rule is illegal.
  Adding to a partner's house needs no such card; adding to an opponents' house needs
  it and makes you a co-owner.
* A deal score below 9 loses the bazzi at once, whatever the running difference; a
  sweep on play 1 is worth 25, on play 48 nothing, otherwise 50.
* The deal does not pass every time: the team that trails (or a tie) keeps the deal.

Action ids keep one meaning for the whole game. An id is ``head << 52 | rank`` with
``head = (kind * 52 + card) * 5 + slot`` (at most 1,559, so ids stay below 2**63):

* ``kind``: 0 BID, 1 CAPTURE, 2 BUILD, 3 ADD, 4 BREAK, 5 THROW (the canonical order);
* ``card``: the hand card's index in canonical card order, ``4 * (value - 1) + suit``
  with suits C, D, H, S (0 for BID);
* ``slot``: BID, BUILD and ADD the value minus 9, BREAK the broken house's value minus 9,
  0 for CAPTURE and THROW;
* ``rank``: the set of loose cards moved, as its position in the lexicographic order of
  all subsets of the 52 cards listed in canonical order, a shorter prefix first (the
  empty set is 0, {AC} is 1, {AC, AD} is 2, ..., {KS} is 2**52 - 1). In closed form, with
  ``M`` the set as a 52-bit mask whose top bit is AC, ``rank = 2**52 + |S| - M - low(M)``
  where ``low(M)`` is M's lowest set bit. No plain bitmask can give this order, whatever
  the bit of each card: ``{AC, AD}`` must sort before ``{AD}``, yet has all its bits and
  one more.

So ascending ids are exactly the canonical order of the rules: kind, card, value or
house, then the loose cards card by card with a shorter prefix first.

Legal moves come from bitmasks over the loose cards (at most 16, in canonical order):
every subset whose values add up to at most 13 is a *group* of its sum, and the
t-packable sets are the unions of pairwise disjoint groups of sum t (built from the
groups, so the work follows the number of answers rather than 2**16). This analysis
depends only on the multiset of loose values and is cached per multiset, so a decision
only picks from its cached lists by the seat's hand and the houses (sets of house values
are bitmasks too), and turns each chosen mask into an id. An applied id gives its loose
cards back from its rank. The list is complete, never truncated: an adversarial floor
of 13 or more loose cards can have thousands of legal plays (``bench/seep_worst_floor``).

Starting elsewhere than at a shuffle: ``new_state(seed, deal=Deal(...))`` chooses the
first deal; ``SeepGame.from_position(SeepPosition(...))`` starts at any decision of a
deal (the floor, the hands, the piles, the bazzi so far), after checking that real play
could have such a position (a ``DealError`` says what does not fit and what would), and
``SeepState.position()`` reads the position of a state back. The seed deals what follows.

Decisions of this engine where the rules leave room (see also the rules' own Decisions):

* ``scores()`` are bazzis won per team; the deal scores and running difference are in
  the observation and in every ``hand_end`` event.
* A redeal (bidder without a card above 8) is logged as a ``throw_in`` showing the four
  cards, then a new ``deal``; it is not a deal of the match for ``max_deals``.
* Arena safeguard (option ``max_deals``, default 50): a bazzi still open after that many
  deals goes to the team ahead on the difference, or is void (over, nobody wins) at 0.
  After a void bazzi the dealer rule reads as for an undecided deal with a difference of
  0: the same dealer deals again.
* A sweep on play 48 is recorded as a sweep with bonus 0.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from arena.games.api import (
    GAME_OVER,
    Deal,
    DealError,
    Event,
    Game,
    GameError,
    GameInfo,
    IllegalActionError,
    Options,
    OptionSpec,
    PhaseState,
)
from arena.games.cards import SUITS, Card, pretty
from arena.games.registry import register

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
)

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

# --- Action ids (see the module docstring) -------------------------------------------------

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


def _codes(cards: tuple[int, ...] | list[int]) -> tuple[Card, ...]:
    return tuple(map(CARDS.__getitem__, cards))


def _indices(cards: tuple[Card, ...] | list[Card]) -> list[int]:
    """Card codes as indices, in canonical order."""
    return sorted(map(CARD_INDEX.__getitem__, cards))


def _text(d: Decoded) -> str:
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


def _payload(d: Decoded) -> tuple[str, object]:
    card, loose = CARDS[d.card], _codes(d.loose)
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


# --- Floor analysis: groups and packable sets as bitmasks over the loose cards ------------


class FloorSums:
    """What a multiset of loose values allows, as bitmasks over the loose cards listed in
    canonical order (bit i = i-th loose card). Shared by every floor with these values.

    ``groups[t]`` lists every set of loose cards whose values add up to t (1..13). A set
    is t-packable when it is a union of pairwise disjoint groups of sum t; the empty set
    is. ``required[t]`` is the mask of the loose cards of value t.
    """

    __slots__ = (
        "_capture",
        "_options",
        "_packable",
        "fits",
        "groups",
        "required",
        "sums",
    )

    def __init__(self, values: tuple[int, ...]) -> None:
        groups: list[list[int]] = [[] for _ in range(MAX_SUM + 1)]
        count = len(values)
        stack = [(0, 0, 0)]
        while stack:
            start, mask, total = stack.pop()
            for i in range(start, count):
                subtotal = total + values[i]
                if subtotal > MAX_SUM:
                    break  # values ascend: no later card fits either
                grown = mask | 1 << i
                groups[subtotal].append(grown)
                stack.append((i + 1, grown, subtotal))
        self.groups = groups
        sums = sum(1 << t for t in range(MAX_SUM + 1) if groups[t])
        self.sums = sums
        """Bit t set when some loose cards add up to t."""
        self.fits = [((sums << v) | 1 << v) & ~((1 << v) - 1) for v in range(MAX_SUM + 1)]
        """Per card value v: bit V set when v alone or v plus some loose cards make V."""
        required = [0] * (MAX_SUM + 1)
        for i, value in enumerate(values):
            required[value] |= 1 << i
        self.required = required
        self._packable: dict[int, list[int]] = {}
        self._capture: dict[int, list[int]] = {}
        self._options: dict[int, list[int]] = {}

    def packable(self, t: int) -> list[int]:
        found = self._packable.get(t)
        if found is None:
            unions = {0}
            for group in self.groups[t]:
                unions.update([u | group for u in unions if not u & group])
            found = self._packable[t] = list(unions)
        return found

    def captures(self, value: int) -> list[int]:
        """Maximal captures for a card of ``value``: value-packable sets that every group
        of that sum meets (nothing left may add up to the card). ``[0]`` when nothing sums
        to ``value``."""
        found = self._capture.get(value)
        if found is None:
            groups = self.groups[value]
            found = self._capture[value] = [
                s for s in self.packable(value) if all(s & g for g in groups)
            ]
        return found

    def options(self, target: int, short: int) -> list[int]:
        """Sets S such that a hand card worth ``target - short`` plus S is target-packable
        and S holds every loose card of value ``target``: a group of sum ``short`` (none
        when ``short`` is 0) plus a target-packable set. May include the empty set."""
        key = target * 16 + short
        found = self._options.get(key)
        if found is None:
            need = self.required[target]
            packs = [p for p in self.packable(target) if p & need == need]
            if short:
                found = list({g | p for g in self.groups[short] for p in packs if not g & p})
            else:
                found = packs
            self._options[key] = found
        return found


_FLOORS: dict[tuple[int, ...], FloorSums] = {}
_FLOOR_CACHE_SIZE = 4096
"""Floors kept analysed. Each costs 2.5 KB and more as its options are asked for, so a
referee playing Seep for hours held tens of MB here (``bench.referee_memory``); the
floors a match revisits are its own few, which a small cache keeps."""


def floor_sums(values: tuple[int, ...]) -> FloorSums:
    """The cached analysis of a multiset of loose values (ascending)."""
    found = _FLOORS.get(values)
    if found is None:
        if len(_FLOORS) >= _FLOOR_CACHE_SIZE:
            _FLOORS.clear()
        found = _FLOORS[values] = FloorSums(values)
    return found


# Phases, named as the proto's SeepPhase values (lower case, without the prefix).
BIDDING = "bid"
PLAY = "play"


def team_of(seat: int) -> int:
    return SEAT_TEAMS[seat]


def _seats_text(owners: int) -> str:
    return ", ".join(str(s) for s in range(NUM_SEATS) if owners >> s & 1)


PRETTY: tuple[str, ...] = tuple(pretty(card) for card in CARDS)
"""Human form of each card index, for event texts."""


def _pretty(cards: list[int] | tuple[int, ...]) -> str:
    return " ".join([PRETTY[c] for c in cards])


# --- Positions: a match started at any decision of a deal -----------------------------------


class PlacedHouse(NamedTuple):
    """A house of a ``SeepPosition``: its value (9..13), its cards, its owners' seats."""

    value: int
    cards: tuple[Card, ...]
    owners: tuple[int, ...]


@dataclass(frozen=True)
class SeepPosition:
    """A Seep match at one decision, for ``SeepGame.from_position``; ``SeepState.position()``
    reads one back, every group of cards but the stock in canonical order. Cards are codes
    as in observations (``QH``); order within a hand, the loose cards, a house or a pile
    does not matter (only the stock's does).

    * ``dealer``: the dealer's seat; the bidder is ``dealer + 1``.
    * ``bid``: the bid value, 9..13; None before the bid (``play_number`` 0).
    * ``play_number``: plays made so far in this deal, 0..47 (as in observations). Play n
      is made by seat ``(dealer + n) % 4``, so the seat to act is ``to_move``.
    * ``hands``: one tuple per seat. Play 1 is made with the bidder's first four cards
      before the others are dealt; then every seat holds 12 cards less the plays it made.
    * ``loose``: the loose cards on the floor; before the bid, the four face-down ones.
    * ``houses``: ``PlacedHouse(value, cards, owners)`` for each house.
    * ``piles``: what each team (0: seats 0 and 2, 1: seats 1 and 3) captured this deal.
    * ``sweeps``: each team's sweep bonuses this deal, in order (25 for the bidder's
      sweep on play 1, else 50).
    * ``last_capture``: the team that made the latest capture (it takes the cards left
      at the end of the deal); None while nobody has captured.
    * ``stock``: before play 1 only, the 44 cards dealt after it, in the order they are
      dealt: packets of four to the bidder, b+1, b+2, the dealer, again, then to b+1,
      b+2 and the dealer (as ``Deal.rest[4:]``); empty afterwards.
    * ``scores``: bazzis won per team; ``void_bazzis``: bazzis the safeguard ended void.
    * ``difference``: team 0 minus team 1 in the open bazzi, before this deal.
    * ``deal_number``: this deal's number in the match; ``deals_in_bazzi``: in the bazzi.

    Every one of the 52 cards is in exactly one place: a hand, the floor, a pile or the
    stock. The match's play record (``plays``, ``deal_history`` and ``redeal_cards`` of
    observations) starts empty, and so does its event log.
    """

    dealer: int
    bid: int | None
    play_number: int
    hands: tuple[tuple[Card, ...], ...]
    loose: tuple[Card, ...] = ()
    houses: tuple[PlacedHouse, ...] = ()
    piles: tuple[tuple[Card, ...], ...] = ((), ())
    sweeps: tuple[tuple[int, ...], ...] = ((), ())
    last_capture: int | None = None
    stock: tuple[Card, ...] = ()
    scores: tuple[int, ...] = (0, 0)
    void_bazzis: int = 0
    difference: int = 0
    deal_number: int = 1
    deals_in_bazzi: int = 1

    @property
    def bidder(self) -> int:
        return (self.dealer + 1) % NUM_SEATS

    @property
    def to_move(self) -> int:
        """The seat to act: the bidder before the bid and for play 1, then each in turn."""
        return (self.dealer + 1 + self.play_number) % NUM_SEATS


def plays_made(dealer: int, play_number: int) -> list[int]:
    """How many plays each seat has made once ``play_number`` plays are over."""
    bidder = (dealer + 1) % NUM_SEATS
    return [
        max(0, (play_number - (seat - bidder) % NUM_SEATS + 3) // 4) for seat in range(NUM_SEATS)
    ]


def _is_int(value: object) -> bool:
    return type(value) is int


def _fail(message: str) -> DealError:
    return DealError(f"seep: {message}")


def _card_list(what: str, cards: object) -> list[str]:
    if isinstance(cards, str) or not isinstance(cards, tuple | list):
        raise _fail(f"{what} must be a tuple of card codes such as ('QH', 'TD'), not {cards!r}")
    return list(cards)


def _pair(what: str, value: object, meaning: str) -> tuple[Any, Any]:
    if not isinstance(value, tuple | list) or len(value) != 2:
        raise _fail(f"{what} must be a pair, {meaning}, not {value!r}")
    return value[0], value[1]


def check_position(p: SeepPosition, options: Options) -> None:
    """Raise ``DealError`` unless real play could reach ``p`` as far as the rules' counts
    and floor invariants tell: the checks of ``SeepGame.from_position``."""
    # -- the numbers that say where in the deal we are
    if not _is_int(p.dealer) or not 0 <= p.dealer < NUM_SEATS:
        raise _fail(f"the dealer must be a seat 0..3, not {p.dealer!r}")
    if p.bid is not None and (not _is_int(p.bid) or p.bid not in HOUSE_VALUES):
        raise _fail(f"the bid must be a house value 9..13 (or None before the bid), not {p.bid!r}")
    if not _is_int(p.play_number) or not 0 <= p.play_number < PLAYS_PER_DEAL:
        raise _fail(
            f"play_number counts the plays made, 0..47 (play 48 ends the deal), "
            f"not {p.play_number!r}"
        )
    if p.bid is None and p.play_number:
        raise _fail(
            f"no play comes before the bid: with bid None play_number must be 0, "
            f"not {p.play_number}"
        )
    # -- every card in one place
    if not isinstance(p.hands, tuple | list) or len(p.hands) != NUM_SEATS:
        raise _fail(f"hands must hold one tuple of cards per seat, four, not {p.hands!r}")
    pile_0, pile_1 = _pair("piles", p.piles, "the cards team 0 and team 1 captured")
    floor = "the face-down floor" if p.bid is None else "the loose cards"
    places: list[tuple[str, list[str]]] = [
        (f"seat {seat}'s hand", _card_list(f"seat {seat}'s hand", hand))
        for seat, hand in enumerate(p.hands)
    ]
    places.append((floor, _card_list(floor.removeprefix("the "), p.loose)))
    if not isinstance(p.houses, tuple | list):
        raise _fail(
            f"houses must be a tuple of PlacedHouse(value, cards, owners), not {p.houses!r}"
        )
    for house in p.houses:
        if not isinstance(house, tuple | list) or len(house) != 3:
            raise _fail(f"a house is PlacedHouse(value, cards, owners), not {house!r}")
        places.append((f"the {house[0]!r}-house", _card_list("a house's cards", house[1])))
    places.append(("team 0's pile", _card_list("team 0's pile", pile_0)))
    places.append(("team 1's pile", _card_list("team 1's pile", pile_1)))
    places.append(("the stock", _card_list("the stock", p.stock)))
    where: dict[str, str] = {}
    for place, cards in places:
        for card in cards:
            if card not in CARD_INDEX:
                raise _fail(
                    f"{card!r} in {place} is not a Seep card: a rank of A 2 3 4 5 6 7 8 9 T "
                    f"J Q K and a suit of C D H S, such as 'TD'"
                )
            if card in where:
                raise _fail(f"{card} is placed twice, in {where[card]} and in {place}")
            where[card] = place
    missing = [card for card in CARDS if card not in where]
    if missing:
        raise _fail(
            f"every card of the pack must be placed once (a hand, the floor, a pile or the "
            f"stock); missing: {' '.join(missing)}"
        )
    # -- hands and stock for the play number
    bidder, m = p.bidder, p.play_number
    if m == 0:
        sizes = [4 * (seat == bidder) for seat in range(NUM_SEATS)]
        rule = "before play 1 only the bidder holds cards, four"
        if len(p.stock) != 44:
            raise _fail(
                f"before play 1 the stock holds the 44 cards dealt after it, not {len(p.stock)}"
            )
    else:
        made = plays_made(p.dealer, m)
        sizes = [12 - n for n in made]
        rule = f"after {m} plays seat s holds 12 cards less the plays it made ({made} by seat)"
        if p.stock:
            raise _fail(
                f"the stock is dealt after play 1: with {m} plays made it must be "
                f"empty, not {len(p.stock)} cards"
            )
    for seat, (hand, size) in enumerate(zip(p.hands, sizes, strict=True)):
        if len(hand) != size:
            raise _fail(f"seat {seat} must hold {size} cards here, not {len(hand)} ({rule})")
    hand_values = [{VALUE[CARD_INDEX[c]] for c in hand} for hand in p.hands]
    loose_values = [VALUE[CARD_INDEX[c]] for c in p.loose]
    # -- the start of the deal: before the bid and the opening play
    if m == 0:
        if len(p.loose) != 4:
            raise _fail(
                f"before play 1 the floor is the four cards dealt to it, not {len(p.loose)}"
            )
        if p.houses or pile_0 or pile_1 or any(p.sweeps) or p.last_capture is not None:
            raise _fail("before play 1 there are no houses, captured cards, sweeps or last capture")
        if p.bid is None and max(hand_values[bidder]) <= 8:
            raise _fail(
                f"the bidder (seat {bidder}) must hold a card above 8 to bid; with "
                "none the deal is thrown in"
            )
        if p.bid is not None and p.bid not in hand_values[bidder]:
            raise _fail(
                f"for play 1 the bidder (seat {bidder}) must hold a card of the bid "
                f"value {p.bid}, as bidding requires"
            )
    # -- the floor: loose cards only come from the four dealt and from throws
    if len(p.loose) - len(set(loose_values)) > 3:
        raise _fail(
            "loose cards come from the four dealt to the floor and from throws, and no card "
            "is thrown beside a loose card of its value: at most 3 loose cards may share a "
            f"value with another, here {len(p.loose) - len(set(loose_values))}"
        )
    seen_values: set[int] = set()
    for value, members, owners in p.houses:
        if not _is_int(value) or value not in HOUSE_VALUES:
            raise _fail(f"a house's value must be 9..13, not {value!r}")
        if value in seen_values:
            raise _fail(
                f"two houses of value {value}: there is one house per value at most "
                "(cards that would make a second join the first)"
            )
        seen_values.add(value)
        total = sum(VALUE[CARD_INDEX[c]] for c in members)
        if len(members) < 2 or total % value:
            raise _fail(
                f"the {value}-house must be two or more cards whose values add up to a "
                f"multiple of {value}, not {' '.join(members) or 'no card'} (total {total})"
            )
        if (
            not isinstance(owners, tuple | list)
            or not owners
            or any(not _is_int(s) or not 0 <= s < NUM_SEATS for s in owners)
            or len(set(owners)) != len(owners)
        ):
            raise _fail(
                f"the {value}-house's owners must be one or more different seats "
                f"0..3, not {owners!r}"
            )
        if total == value and len(owners) != 1:
            raise _fail(
                f"the {value}-house is ordinary (its cards add up to {value} once), "
                f"and an ordinary house has one owner, not {len(owners)}"
            )
        for seat in owners:
            if value not in hand_values[seat]:
                raise _fail(
                    f"seat {seat} owns the {value}-house but holds no card of value "
                    f"{value}: an owner keeps one until the house goes"
                )
        if value in loose_values:
            raise _fail(
                f"a loose card of value {value} cannot lie beside the {value}-house "
                "(it would have been taken into it)"
            )
    # -- piles, sweeps and the last capture
    sweeps = _pair("sweeps", p.sweeps, "the sweep bonuses of team 0 and team 1")
    made = plays_made(p.dealer, m)
    for team, (pile, bonuses) in enumerate(zip((pile_0, pile_1), sweeps, strict=True)):
        team_plays = sum(n for seat, n in enumerate(made) if SEAT_TEAMS[seat] == team)
        if not isinstance(bonuses, tuple | list) or any(b not in (25, 50) for b in bonuses):
            raise _fail(
                f"team {team}'s sweeps must be bonuses 25 (play 1) or 50 (plays 2 to "
                f"47), not {bonuses!r}"
            )
        if 25 in bonuses and (
            team != SEAT_TEAMS[bidder] or list(bonuses).index(25) or bonuses.count(25) > 1
        ):
            raise _fail(
                f"a sweep of 25 is the bidder's on play 1: only the first of the bidder's "
                f"team's (team {SEAT_TEAMS[bidder]}) sweeps, not team {team}'s {bonuses!r}"
            )
        if len(bonuses) > team_plays:
            raise _fail(f"team {team} made {team_plays} plays, too few for {len(bonuses)} sweeps")
        if pile and not team_plays:
            raise _fail(f"team {team} has made no play yet, so its pile must be empty")
        if len(pile) < 2 * len(bonuses):
            raise _fail(
                f"a sweep takes two cards or more, so team {team}'s pile cannot hold "
                f"{len(pile)} card(s) with {len(bonuses)} sweep(s)"
            )
    if p.last_capture is None:
        if pile_0 or pile_1:
            raise _fail(
                "some cards were captured, so last_capture must name the team that "
                "captured last, 0 or 1, not None"
            )
    elif p.last_capture not in (0, 1) or type(p.last_capture) is not int:
        raise _fail(f"last_capture is a team, 0 or 1, or None, not {p.last_capture!r}")
    elif not (pile_0, pile_1)[p.last_capture]:
        raise _fail(f"team {p.last_capture} made the last capture but its pile is empty")
    # -- the match so far
    won = _pair("scores", p.scores, "the bazzis won by team 0 and team 1")
    if not all(_is_int(n) and n >= 0 for n in (*won, p.void_bazzis)):
        raise _fail(
            f"scores and void_bazzis count bazzis, whole numbers 0 or more, not "
            f"{p.scores!r} and {p.void_bazzis!r}"
        )
    over = won[0] + won[1] + p.void_bazzis
    bazzis = int(options["bazzis"])
    if over >= bazzis:
        raise _fail(
            f"the match lasts {bazzis} bazzi(s) and {over} are over: a position needs "
            "one still open (more with the option bazzis)"
        )
    if not _is_int(p.difference) or not -BAZZI_TARGET < p.difference < BAZZI_TARGET:
        raise _fail(f"the difference must be -99..99 (100 decides the bazzi), not {p.difference!r}")
    max_deals = int(options["max_deals"])
    if not _is_int(p.deals_in_bazzi) or not 1 <= p.deals_in_bazzi <= max_deals:
        raise _fail(
            f"deals_in_bazzi counts this deal too: 1..{max_deals} (the option "
            f"max_deals), not {p.deals_in_bazzi!r}"
        )
    if p.deals_in_bazzi == 1 and p.difference:
        raise _fail(
            f"the difference is 0 at the start of a bazzi, so in its first deal, not {p.difference}"
        )
    least = p.deals_in_bazzi + over
    if not _is_int(p.deal_number) or p.deal_number < least:
        raise _fail(
            f"deal_number must be at least {least}: {p.deals_in_bazzi} deal(s) of "
            f"this bazzi and one or more for each of the {over} over, not "
            f"{p.deal_number!r}"
        )


# --- Game ----------------------------------------------------------------------------------


class SeepGame(Game):
    """Makes Seep matches; holds no per-match data."""

    info = GAME_INFO

    def new_state(
        self, seed: int, options: Mapping[str, object] | None = None, *, deal: Deal | None = None
    ) -> SeepState:
        """A match dealt from ``seed``, or whose first deal is ``deal``: ``hands`` are what
        the seats hold at the bid (the bidder, dealer + 1, four cards; the others none),
        ``rest[:4]`` the face-down floor, and ``rest[4:]`` the other 44 cards in the order
        they are dealt after play 1: packets of four to the bidder, b+1, b+2, the dealer,
        again, then to b+1, b+2 and the dealer. A chosen deal whose bidder holds no card
        above 8 is thrown in as the rules say, and the seed deals the next one. The
        deal's ``scores`` are bazzis won, never negative, fewer in all than the ``bazzis``
        option; the deal opens a bazzi (running difference 0) after that many decided
        ones, so ``deal_number`` is at least one more than the bazzis won."""
        return SeepState(seed, GAME_INFO.resolve_options(options), deal)

    def from_position(
        self,
        position: SeepPosition,
        *,
        seed: int = 0,
        options: Mapping[str, object] | None = None,
    ) -> SeepState:
        """A match at ``position``, a decision in the middle of a deal (or at its bid),
        whatever came before; the seed deals the deals after this one. The position is
        checked against what real play allows (``check_position``: every card once, the
        hand sizes of the play number, the floor's invariants, the piles, sweeps and
        bazzi so far) and anything else is a ``DealError`` saying what is wrong."""
        resolved = GAME_INFO.resolve_options(options)
        check_position(position, resolved)
        return SeepState._at_position(position, seed, resolved)


# --- State ---------------------------------------------------------------------------------


class House:
    """A house on the floor: its value, its cards, their total and its owners (a seat
    bitmask). Multiplicity k = total // value; k >= 2 means cemented."""

    __slots__ = ("cards", "owners", "total", "value")

    def __init__(self, value: int, cards: list[int], total: int, owners: int) -> None:
        self.value = value
        self.cards = cards
        self.total = total
        self.owners = owners

    @property
    def cemented(self) -> bool:
        return self.total > self.value


# --- Legal plays: section 4, one helper per clause ------------------------------------------

HOUSES_IN: tuple[tuple[int, ...], ...] = tuple(
    tuple(value for value in HOUSE_VALUES if bits >> (value - 9) & 1) for bits in range(32)
)
"""The house values in a set of them, ascending, indexed by the set's bits 9..13 (``>> 9``)."""


BIG_FLOOR = 6
"""Above this many loose cards, ``Turn.ids`` reads card masks from byte tables."""


def _mask_tables(loose: list[int]) -> tuple[list[int], list[int]]:
    """The card mask ``M`` of every subset of the first 8 loose cards, and of the next 8."""
    tables = []
    for part in (loose[:8], loose[8:16]):
        table = [0]
        for card in part:
            weight = MASK_WEIGHT[card]
            table += [m + weight for m in table]
        tables.append(table)
    return tables[0], tables[1]


class Turn:
    """The legal plays of one decision, clause by clause of section 4 of the rules.

    Made once per decision from the state. Sets of values are bitmasks (bit V for value
    V); sets of loose cards are masks over the loose list (bit i for the i-th loose card),
    as ``FloorSums`` gives them. ``plays_of(v)`` lists what a card of value v may do, as
    ids without the card's part; each clause is a method below, named after the play.
    """

    __slots__ = (
        "_loose",
        "_tables",
        "breakable",
        "capturers",
        "floor",
        "held",
        "held_twice",
        "own",
        "partners",
        "reach",
        "retained",
        "standing",
        "takers",
        "throwers",
        "unbuilt",
    )

    def __init__(self, state: SeepState) -> None:
        seat = state.current
        me, partner = 1 << seat, 1 << ((seat + 2) % NUM_SEATS)
        held = held_twice = 0
        for card in state.hands[seat]:
            bit = 1 << VALUE[card]
            held_twice |= held & bit
            held |= bit
        self.held = held  # values the mover holds
        self.held_twice = held_twice  # values he holds two or more cards of
        standing = own = partners = breakable = 0
        for value, house in state.houses.items():
            bit = 1 << value
            standing |= bit
            if house.owners & me:
                own |= bit
            else:
                if house.owners & partner:
                    partners |= bit  # his partner's, not his
                if house.total == value:
                    breakable |= bit  # ordinary and not his
        self.standing = standing  # every house
        self.own = own  # the houses he owns
        self.partners = partners
        self.breakable = breakable
        self.unbuilt = HOUSE_BITS & ~standing  # values a new house may take
        self.takers = ALL_VALUES  # values whose cards may capture or be thrown
        if state.play_number == 0:  # section 5: the opening uses the bid value
            assert state.bid is not None
            self.unbuilt &= 1 << state.bid
            self.takers = 1 << state.bid
        loose = state.loose
        values = tuple(map(VALUE.__getitem__, loose))
        self.floor = _FLOORS.get(values) or floor_sums(values)
        self._loose = loose
        self._tables: tuple[list[int], list[int]] | None = None
        self.capturers = self.capturing_values()
        self.throwers = self.throwing_values()
        self.retained = self.retained_values()
        self.reach = (held | partners) & (self.unbuilt | standing)
        """House values a card might make or join: free or standing, and held by the
        mover or his partner's house (a first sieve for ``may_house``)."""

    def plays_of(self, v: int) -> list[int]:
        """Every legal play of a card of value v, in kind order, as ids without the card.

        A card captures or is thrown, never both (it is thrown only when it cannot
        capture); it may also build, add or break, unless retention holds it back.
        """
        bit = 1 << v
        housing = not self.retained & bit and self.may_house(v)
        if self.throwers & bit and not housing:
            return [THROW_BASE]  # the most common case: a card that can only be thrown
        plays = self.ids(CAPTURE_BASE, self.capture_sets(v)) if self.capturers & bit else []
        if housing:
            kept = self.held_after(v)
            for value in HOUSES_IN[self.build_values(v, kept) >> 9]:
                plays += self.ids(BUILD_BASE[value], self.build_sets(v, value))
            for value in HOUSES_IN[self.add_values(v, kept) >> 9]:
                plays += self.ids(ADD_BASE[value], self.floor.options(value, value - v))
            for house in HOUSES_IN[self.break_values(v, kept) >> 9]:
                plays += self.ids(BREAK_BASE[house], self.floor.options(house + v, 0))
        if self.throwers & bit:
            plays.append(THROW_BASE)
        return plays

    # -- what the mover holds and owns -------------------------------------------------------

    def held_after(self, v: int) -> int:
        """The values the mover still holds once a card of value v has left his hand."""
        bit = 1 << v
        return (self.held & ~bit) | (self.held_twice & bit)

    def retained_values(self) -> int:
        """Retention: the values of the houses the mover owns of which he holds one card
        only. That last card may only capture, which takes the house and ends the duty;
        any other play would leave him owning a house whose value he no longer holds (a
        card of the value cannot be thrown anyway while its house stands). A card of
        another value leaves all his houses safe."""
        return self.own & ~self.held_twice

    # -- CAPTURE and THROW (and section 5's opening) -----------------------------------------

    def capturing_values(self) -> int:
        """The values whose cards capture: a house of the value stands or some loose cards
        add up to it; on the opening (section 5) only the bid value captures or throws."""
        return self.takers & (self.standing | self.floor.sums)

    def throwing_values(self) -> int:
        """THROW: the values whose cards are thrown, those that cannot capture (no house of
        the value and no loose cards adding up to it); on the opening only the bid value."""
        return self.takers & ~(self.standing | self.floor.sums)

    def capture_sets(self, v: int) -> list[int]:
        """CAPTURE with a card of value v (one of ``capturing_values``): every set S of
        loose cards that is v-packable and leaves no loose cards adding up to v (the
        capture is maximal). S is empty only when nothing adds up to v, and then the house
        of value v stands: every capture by v takes it along."""
        return self.floor.captures(v)

    # -- BUILD, ADD and BREAK ----------------------------------------------------------------

    def may_house(self, v: int) -> bool:
        """A quick test that spares most cards the three below: false when a card of
        value v can neither BUILD, nor ADD, nor BREAK, because v alone or with loose cards
        makes no value that is free or standing and that the mover holds or his partner
        has a house of, and no house may be broken by him."""
        return bool(self.floor.fits[v] & self.reach or self.breakable)

    def build_values(self, v: int, kept: int) -> int:
        """BUILD with a card of value v: values V of 9..13 with no house yet (the opening:
        the bid only) that v alone or v with loose cards can make, and that the mover
        still holds after the play (nobody builds for his partner)."""
        return self.unbuilt & self.floor.fits[v] & kept

    def build_sets(self, v: int, value: int) -> list[int]:
        """BUILD's loose cards S for a house of ``value`` and a card of value v: S is not
        empty, the card and S are ``value``-packable (beside the card's own group, S may
        hold further groups), and S holds every loose card of that value."""
        sets = self.floor.options(value, value - v)
        return sets if value != v else [s for s in sets if s]

    def add_values(self, v: int, kept: int) -> int:
        """ADD with a card of value v to a standing house of value V, ordinary or cemented,
        that v alone or v with loose cards can make. Allowed to its owner (the retention
        check keeps a V in his hand, so V is kept), to his partner without a V, and to an
        opponent only if he still holds a V after the play (he then joins the owners).
        The loose cards are ``FloorSums.options(V, V - v)``: empty only when v is V."""
        return self.standing & self.floor.fits[v] & (kept | self.partners)

    def break_values(self, v: int, kept: int) -> int:
        """BREAK with a card of value v: ordinary houses of value W that the mover does not
        own (his partner's or an opponent's; cemented houses never break), with W + v at
        most 13, when he still holds a card of W + v after the play. The loose cards are
        any (W + v)-packable set holding every loose card of W + v:
        ``FloorSums.options(W + v, 0)``, which may be empty."""
        return self.breakable & (kept >> v) & BREAK_ROOM[v]

    # -- ids ---------------------------------------------------------------------------------

    def ids(self, base: int, sets: list[int]) -> list[int]:
        """``base`` (kind and slot) plus the rank part of the id of each set of loose cards,
        by the closed form of the module docstring. The card mask ``M`` of a set is summed
        card by card on a small floor; on a big one (where the lists are long) it comes
        from two byte tables, the masks of every subset of the first 8 loose cards and of
        the next 8, made at the first use."""
        loose = self._loose
        tables = self._tables
        if tables is None and len(loose) > BIG_FLOOR:
            tables = self._tables = _mask_tables(loose)
        found = []
        for s in sets:
            if not s:
                found.append(base)  # the empty set's rank is 0
                continue
            if tables is not None:
                m = tables[0][s & 255] + tables[1][s >> 8]
            else:
                m = 0
                rest = s
                while rest:
                    low = rest & -rest
                    m += MASK_WEIGHT[loose[low.bit_length() - 1]]
                    rest ^= low
            found.append(base + FULL + s.bit_count() - m - (m & -m))
        return found


class SeepState(PhaseState):
    """One match, from the first deal to the last bazzi (or the safeguard).

    The legal actions are computed once after every change and kept, so asking for them
    is cheap and changes nothing.
    """

    game_info = GAME_INFO
    phase: str
    current: int
    loose: list[int]

    def __init__(self, seed: int, options: Options, deal: Deal | None = None) -> None:
        self._rng = random.Random(seed)
        self.bazzis_to_play = int(options["bazzis"])
        self.max_deals = int(options["max_deals"])
        self.events: list[Event] = []
        self.team_scores = [0, 0]  # bazzis won
        self.bazzis_over = 0
        self.difference = 0
        self.deal_number = 0
        self.deals_in_bazzi = 0
        self.deal_history: list[SeepDealResult] = []
        self.winning_team: int | None = None
        self.dealer = self._rng.randrange(NUM_SEATS)
        self._chosen_scores: tuple[int, ...] | None = None
        if deal is None:
            self._deal()
            return
        self.dealer = deal.check(
            GAME_INFO.name,
            CARDS,
            lambda dealer: [4 * (seat == (dealer + 1) % NUM_SEATS) for seat in range(NUM_SEATS)],
            self.dealer,
            "the floor's four face-down cards, then the stock in the order it is dealt",
            teams=GAME_INFO.num_teams,
            progress=self._progress_problem,
        )
        self._chosen_scores = deal.scores
        self.team_scores = list(deal.start_scores(GAME_INFO.num_teams))
        self.bazzis_over = sum(self.team_scores)
        self.deal_number = deal.deal_number - 1
        bidder = deal.hands[(self.dealer + 1) % NUM_SEATS]
        self._deal([CARD_INDEX[card] for card in (*bidder, *deal.rest)])

    def _progress_problem(self, scores: tuple[int, ...], deal_number: int) -> str | None:
        """What keeps a chosen deal's scores (bazzis won) and deal number from a match."""
        if min(scores) < 0 or sum(scores) >= self.bazzis_to_play:
            return (
                f"scores are bazzis won, at least 0 and fewer than {self.bazzis_to_play} "
                f"(the bazzis option) in all, not {scores}"
            )
        if deal_number <= sum(scores):
            return (
                f"deal_number must be at least {sum(scores) + 1}, one more than the bazzis "
                f"won (each took a deal), not {deal_number}"
            )
        return None

    _position: SeepPosition | None = None

    def position(self) -> SeepPosition:
        """Where the match stands, as ``SeepGame.from_position`` takes it: the whole state
        of the deal (every hand and the stock too, not one seat's view) and the bazzi so
        far. A match over has no position (``GameError``)."""
        if self.phase == GAME_OVER:
            raise GameError("seep: the match is over, there is no position to describe")
        before_bid = self.phase == BIDDING
        return SeepPosition(
            dealer=self.dealer,
            bid=self.bid,
            play_number=self.play_number,
            hands=tuple(map(_codes, self.hands)),
            loose=_codes(self.face_down if before_bid else self.loose),
            houses=tuple(
                [
                    PlacedHouse(value, _codes(house.cards), OWNER_SEATS[house.owners])
                    for value, house in sorted(self.houses.items())
                ]
            ),
            piles=tuple(map(_codes, self.piles)),
            sweeps=tuple(map(tuple, self.sweep_bonuses)),
            last_capture=self.last_capture_team,
            stock=_codes(self.stock),
            scores=tuple(self.team_scores),
            void_bazzis=self.bazzis_over - sum(self.team_scores),
            difference=self.difference,
            deal_number=self.deal_number,
            deals_in_bazzi=self.deals_in_bazzi,
        )

    def initial_deal(self) -> Deal:
        if self._position is not None:
            raise GameError(
                "seep: this match started from a position (SeepGame.from_position), not "
                "from a deal; position() describes where it stands"
            )
        return super().initial_deal()

    # -- the contract --------------------------------------------------------------------

    def action_text(self, action: int) -> str:
        return _text(decode(action))

    def action_payload(self, action: int) -> tuple[str, object]:
        return _payload(decode(action))

    def _apply(self, action: int) -> None:
        if self.phase == BIDDING:
            self._bid(9 + (action >> RANK_BITS))
            return
        head = action >> RANK_BITS
        slot, kind_card = head % 5, head // 5
        kind, card = divmod(kind_card, 52)
        seat = self.current
        self.hands[seat].remove(card)
        rank = action & (FULL - 1)
        taken = loose_cards(rank) if rank else []
        if taken:
            self.loose = [c for c in self.loose if c not in taken]
        if kind == CAPTURE:
            self._capture(seat, card, taken)
        elif kind == THROW:
            self._throw(seat, card)
        elif kind == BREAK:
            self._break(seat, card, 9 + slot, taken)
        else:
            self._house(seat, kind, card, 9 + slot, taken)
        self._next_play()

    def public_table(self) -> str:
        """The floor as everyone sees it, for replays: loose cards, then the houses."""
        parts = [_pretty(self.loose)] if self.loose else []
        for value, house in sorted(self.houses.items()):
            cemented = " cemented" if house.total > value else ""
            owners = OWNER_TEXT[house.owners]
            parts.append(f"house {value}{cemented} [{_pretty(house.cards)}] of seat {owners}")
        return "Floor: " + ("; ".join(parts) or "empty")

    # -- deal and bid ---------------------------------------------------------------------

    def _deal(self, chosen: list[int] | None = None) -> None:
        """Shuffle the whole pack and deal, again and again while the bidder has no card
        above 8; a ``chosen`` pack order is dealt first, without a shuffle."""
        self.redeal_cards: list[int] = []
        if chosen is not None and self._begin_deal(chosen):
            return
        while True:
            deck = list(range(52))
            self._rng.shuffle(deck)
            if self._begin_deal(deck):
                return

    def _begin_deal(self, deck: list[int]) -> bool:
        """Four cards to the bidder, four face down to the floor. A bidder with no card
        above 8 shows them and the deal is void (False): the same dealer deals again."""
        self.bidder = (self.dealer + 1) % NUM_SEATS
        self.bid: int | None = None
        self.hands: list[list[int]] = [[] for _ in range(NUM_SEATS)]
        self.hands[self.bidder] = sorted(deck[:4])
        self.face_down = sorted(deck[4:8])
        self.stock = deck[8:]
        self.loose = []
        self.houses: dict[int, House] = {}
        self.piles: list[list[int]] = [[], []]
        self.pile_points = [0, 0]
        self.sweep_bonuses: list[list[int]] = [[], []]
        self.pile_views = [EMPTY_PILE, EMPTY_PILE]
        self.last_capture_team: int | None = None
        self.play_number = 0
        self.plays: list[SeepPlay] = []
        hands = [[CARDS[c] for c in hand] for hand in self.hands]
        self.events.append(
            Event(
                "deal",
                f"Seat {self.dealer} deals four cards to seat {self.bidder} and four to the floor",
                self.dealer,
                {
                    "dealer": self.dealer,
                    "hands": hands,
                    "floor": [CARDS[c] for c in self.face_down],
                },
                visible_to=(),
            )
        )
        shown = self.hands[self.bidder]
        if VALUE[shown[-1]] <= 8:
            self.redeal_cards.extend(shown)
            self.events.append(
                Event(
                    "throw_in",
                    f"Seat {self.bidder} shows {_pretty(shown)}: no card above 8, redeal",
                    self.bidder,
                    {
                        "reason": "no_card_above_8",
                        "cards": [CARDS[c] for c in shown],
                        "dealer": self.dealer,
                        "scores": list(self.team_scores),
                    },
                )
            )
            return False
        self.deal_number += 1
        self.deals_in_bazzi += 1
        if self._first_deal is None:
            rest = tuple(CARDS[c] for c in deck[4:])
            self._first_deal = Deal(
                tuple(map(tuple, hands)), self.dealer, rest, self._chosen_scores, self.deal_number
            )
        self.phase = BIDDING
        self.current = self.bidder
        values = {VALUE[c] for c in shown}
        self._legal = [BID_ACTIONS[v] for v in HOUSE_VALUES if v in values]
        return True

    def _bid(self, value: int) -> None:
        seat = self.current
        self.bid = value
        self.events.append(Event("bid", f"Seat {seat} bids {value}", seat, {"value": value}))
        self.loose = self.face_down
        self.face_down = []
        self.events.append(
            Event(
                "floor",
                f"The floor turns up {_pretty(self.loose)}",
                None,
                {"cards": [CARDS[c] for c in self.loose]},
            )
        )
        self.phase = PLAY
        self._compute_legal()

    def _deal_rest(self) -> None:
        """After play 1: packets of four to b, b+1, b+2, dealer, twice, then b+1, b+2,
        dealer; each seat sees only its own packets."""
        b = self.bidder
        order = [b, b + 1, b + 2, b + 3, b, b + 1, b + 2, b + 3, b + 1, b + 2, b + 3]
        got: list[list[int]] = [[] for _ in range(NUM_SEATS)]
        stock = self.stock
        for packet, seat in enumerate(order):
            got[seat % NUM_SEATS].extend(stock[4 * packet : 4 * packet + 4])
        self.stock = []
        for k in range(NUM_SEATS):
            seat = (b + k) % NUM_SEATS
            self.hands[seat] = sorted(self.hands[seat] + got[seat])
            self.events.append(
                Event(
                    "deal_rest",
                    f"Seat {seat} receives {_pretty(got[seat])}",
                    None,
                    {"seat": seat, "cards": [CARDS[c] for c in got[seat]]},
                    visible_to=(seat,),
                )
            )

    # -- a position ------------------------------------------------------------------------

    @classmethod
    def _at_position(cls, position: SeepPosition, seed: int, options: Options) -> SeepState:
        """A state at ``position``, already checked (``SeepGame.from_position`` checks)."""
        state = cls.__new__(cls)
        state._start_at(position, seed, options)
        return state

    def _start_at(self, p: SeepPosition, seed: int, options: Options) -> None:
        """Every field ``__init__`` and ``_begin_deal`` set, from a position."""
        self._rng = random.Random(seed)
        self._position = p
        self._chosen_scores = None
        self.bazzis_to_play = int(options["bazzis"])
        self.max_deals = int(options["max_deals"])
        self.events = []
        self.team_scores = list(p.scores)  # bazzis won
        self.bazzis_over = sum(p.scores) + p.void_bazzis
        self.difference = p.difference
        self.deal_number = p.deal_number
        self.deals_in_bazzi = p.deals_in_bazzi
        self.deal_history = []
        self.winning_team = None
        self.dealer = p.dealer
        self.redeal_cards = []
        self.bidder = p.bidder
        self.bid = p.bid
        self.hands = [_indices(hand) for hand in p.hands]
        floor = _indices(p.loose)
        self.face_down, self.loose = (floor, []) if p.bid is None else ([], floor)
        self.stock = [CARD_INDEX[card] for card in p.stock]
        self.houses = {}
        for value, cards, owners in p.houses:
            members = _indices(cards)
            total = sum(VALUE[c] for c in members)
            self.houses[value] = House(value, members, total, sum(1 << s for s in owners))
        self.piles = [[], []]
        self.pile_points = [0, 0]
        self.sweep_bonuses = [list(p.sweeps[0]), list(p.sweeps[1])]
        self.pile_views = [EMPTY_PILE, EMPTY_PILE]
        for team in (0, 1):
            self._take(team, _indices(p.piles[team]))
        self.last_capture_team = p.last_capture
        self.play_number = p.play_number
        self.plays = []
        self.current = p.to_move
        if p.bid is None:
            self.phase = BIDDING
            values = {VALUE[c] for c in self.hands[self.bidder]}
            self._legal = [BID_ACTIONS[v] for v in HOUSE_VALUES if v in values]
        else:
            self.phase = PLAY
            self._compute_legal()

    # -- legal plays ------------------------------------------------------------------------

    def _compute_legal(self) -> None:
        """Every legal play of the seat to act, as ascending ids; ``Turn`` holds the rules.

        Cards of one value have the same plays (only the card in the id differs), so the
        plays are found once per value and then stamped with each card.
        """
        turn = Turn(self)
        ids: list[int] = []
        plays: list[int] = []
        previous = 0
        for card in self.hands[self.current]:
            v = VALUE[card]
            if v != previous:
                previous, plays = v, turn.plays_of(v)
            offset = CARD_OFFSET[card]
            for play in plays:
                ids.append(play + offset)
        ids.sort()
        self._legal = ids

    # -- plays ------------------------------------------------------------------------------

    def _throw(self, seat: int, card: int) -> None:
        bisect.insort(self.loose, card)
        play = self.play_number + 1
        code = CARDS[card]
        self.plays.append(SeepPlay(play, seat, "throw", code))
        self.events.append(
            Event("throw", f"Seat {seat} throws {PRETTY[card]}", seat, {"card": code, "play": play})
        )

    def _capture(self, seat: int, card: int, taken: list[int]) -> None:
        value = VALUE[card]
        house = self.houses.pop(value, None)
        house_cards = house.cards if house is not None else []
        team = SEAT_TEAMS[seat]
        self.last_capture_team = team
        play = self.play_number + 1
        sweep = not self.loose and not self.houses
        bonus = 0
        if sweep:
            bonus = SWEEP_NORMAL
            if play == 1:
                bonus = SWEEP_OPENING
            elif play == PLAYS_PER_DEAL:
                bonus = SWEEP_LAST
            self.sweep_bonuses[team].append(bonus)
        self._take(team, [card, *taken, *house_cards])
        code = CARDS[card]
        loose = _codes(taken)
        house_codes = _codes(house_cards)
        self.plays.append(
            SeepPlay(
                play,
                seat,
                "capture",
                code,
                value if house is not None else None,
                None,
                loose,
                house_codes,
                sweep,
                bonus,
            )
        )
        text = f"Seat {seat} captures {_pretty([*taken, *house_cards])} with {PRETTY[card]}"
        if sweep:
            text += f": a sweep, +{bonus}"
        self.events.append(
            Event(
                "capture",
                text,
                seat,
                {
                    "card": code,
                    "play": play,
                    "loose": list(loose),
                    "house": list(house_codes),
                    "sweep": sweep,
                    "bonus": bonus,
                },
            )
        )

    def _take(self, team: int, cards: list[int]) -> None:
        """Cards go to a team's pile; its view for observations is made here, once."""
        pile = self.piles[team]
        pile += cards
        pile.sort()
        self.pile_points[team] += sum(map(POINTS.__getitem__, cards))
        bonuses = self.sweep_bonuses[team]
        points, sweep_points = self.pile_points[team], sum(bonuses)
        self.pile_views[team] = SeepTeamPile(
            _codes(pile), points, len(bonuses), sweep_points, points + sweep_points
        )

    def _house(self, seat: int, kind: int, card: int, value: int, taken: list[int]) -> None:
        """BUILD a new house, or ADD to the existing one of ``value``."""
        moved = [card, *taken]
        total = VALUE[card]
        for c in taken:
            total += VALUE[c]
        me = 1 << seat
        if kind == BUILD:
            house = self.houses[value] = House(value, sorted(moved), total, me)
            text = f"Seat {seat} builds a {value}-house of {_pretty(house.cards)}"
        else:
            house = self.houses[value]
            house.cards = sorted(house.cards + moved)
            house.total += total
            partner = 1 << ((seat + 2) % NUM_SEATS)
            if not house.owners & (me | partner):
                house.owners |= me
            text = (
                f"Seat {seat} adds {_pretty(moved)} to the {value}-house, now "
                f"{house.total // value} x {value}, owners {_seats_text(house.owners)}"
            )
        kind_name = KIND_NAMES[kind]
        play = self.play_number + 1
        code = CARDS[card]
        loose = _codes(taken)
        self.plays.append(SeepPlay(play, seat, kind_name, code, value, None, loose))
        self.events.append(
            Event(
                kind_name,
                text,
                seat,
                {"card": code, "play": play, "value": value, "loose": list(loose)},
            )
        )

    def _break(self, seat: int, card: int, old: int, taken: list[int]) -> None:
        broken = self.houses.pop(old)
        value = old + VALUE[card]
        moved = [*broken.cards, card, *taken]
        total = broken.total + VALUE[card]
        for c in taken:
            total += VALUE[c]
        target = self.houses.get(value)
        if target is None:
            self.houses[value] = House(value, sorted(moved), total, 1 << seat)
            into = "a"
        else:
            target.cards = sorted(target.cards + moved)
            target.total += total
            target.owners |= 1 << seat
            into = "the"
        play = self.play_number + 1
        code = CARDS[card]
        loose = _codes(taken)
        self.plays.append(SeepPlay(play, seat, "break", code, value, old, loose))
        self.events.append(
            Event(
                "break",
                f"Seat {seat} breaks the {old}-house with {PRETTY[card]} into {into} {value}-house",
                seat,
                {"card": code, "play": play, "house": old, "value": value, "loose": list(loose)},
            )
        )

    def _next_play(self) -> None:
        self.play_number += 1
        if self.play_number == 1:
            self._deal_rest()
        if self.play_number == PLAYS_PER_DEAL:
            self._end_deal()
            return
        self.current = (self.current + 1) % NUM_SEATS
        self._compute_legal()

    # -- scoring, bazzis and the end ------------------------------------------------------

    def _end_deal(self) -> None:
        """Left-over loose cards go to the team of the latest capture (no sweep), then the
        deal is scored."""
        assert not self.houses, "a house outlived its owners"
        if self.loose:
            team = self.last_capture_team
            assert team is not None, "a deal without any capture"
            left = self.loose
            self._take(team, left)
            self.events.append(
                Event(
                    "leftover",
                    f"Team {team} takes the cards left on the floor: {_pretty(left)}",
                    None,
                    {"team": team, "cards": [CARDS[c] for c in left]},
                )
            )
            self.loose = []
        points = list(self.pile_points)
        bonuses = [sum(b) for b in self.sweep_bonuses]
        deal_scores = [points[t] + bonuses[t] for t in (0, 1)]
        self._settle(deal_scores, points, bonuses)

    def _settle(self, deal_scores: list[int], points: list[int], bonuses: list[int]) -> None:
        """The 9-point rule, the running difference, the safeguard, the next dealer."""
        a, b = deal_scores
        winner: int | None = None
        over = False
        if a < MIN_DEAL_SCORE or b < MIN_DEAL_SCORE:
            winner, over = (1 if a < MIN_DEAL_SCORE else 0), True
            reason = "under_9"
        else:
            self.difference += a - b
            reason = "difference"
            if self.difference >= BAZZI_TARGET:
                winner, over = 0, True
            elif self.difference <= -BAZZI_TARGET:
                winner, over = 1, True
            elif self.deals_in_bazzi >= self.max_deals:
                over, reason = True, "max_deals"
                winner = None if self.difference == 0 else (0 if self.difference > 0 else 1)
        dealer = self.dealer
        dealer_team = team_of(dealer)
        if over and winner is not None:
            following = (dealer + 3) % NUM_SEATS if winner == dealer_team else (dealer + 2) % 4
        else:
            lead = self.difference if dealer_team == 0 else -self.difference
            following = (dealer + 1) % NUM_SEATS if lead > 0 else dealer
        if over:
            self.difference = 0
            self.bazzis_over += 1
            self.deals_in_bazzi = 0
            if winner is not None:
                self.team_scores[winner] += 1
        result = SeepDealResult(
            self.deal_number,
            self.bazzis_over + (0 if over else 1),
            dealer,
            (a, b),
            self.difference,
            winner if over else None,
            over,
        )
        self.deal_history.append(result)
        self.events.append(
            Event(
                "hand_end",
                f"Deal {self.deal_number}: team 0 scores {a}, team 1 scores {b}; "
                f"difference {self.difference:+d}",
                None,
                {
                    "deal_number": self.deal_number,
                    "points": list(points),
                    "sweep_bonuses": list(bonuses),
                    "deal_scores": [a, b],
                    "difference": self.difference,
                    "bazzi_over": over,
                    "bazzi_winner": winner if over else None,
                    "reason": reason if over else None,
                    "scores": list(self.team_scores),
                    "next_dealer": following,
                },
            )
        )
        if over:
            text = (
                f"Bazzi {self.bazzis_over} is void"
                if winner is None
                else f"Team {winner} wins bazzi {self.bazzis_over}"
            )
            self.events.append(
                Event(
                    "bazzi_end",
                    text,
                    None,
                    {
                        "bazzi": self.bazzis_over,
                        "winner": winner,
                        "reason": reason,
                        "scores": list(self.team_scores),
                    },
                )
            )
        if self.bazzis_over >= self.bazzis_to_play:
            x, y = self.team_scores
            self._end_game(None if x == y else (0 if x > y else 1))
            return
        self.dealer = following
        self._deal()

    def _end_game(self, winning_team: int | None) -> None:
        self.winning_team = winning_team
        self.phase = GAME_OVER
        self.current = -1
        self._legal = []

        a, b = self.team_scores
        text = (
            f"Draw, bazzis {a}:{b}" if winning_team is None else f"Team {winning_team} wins {a}:{b}"
        )
        self.events.append(
            Event(
                "game_end",
                text,
                None,
                {"winner": winning_team, "scores": list(self.team_scores)},
            )
        )

    # -- observation ----------------------------------------------------------------------

    def observation(self, seat: int) -> SeepObservation:
        """The one place that decides what a seat sees: its own hand and the public table
        (the floor once turned up, every play, the piles, the scores)."""
        if not 0 <= seat < NUM_SEATS:
            raise ValueError(f"seep has seats 0..3, not {seat}")
        houses = tuple(
            [
                SeepHouse(
                    value,
                    _codes(house.cards),
                    house.total > value,
                    house.total // value,
                    OWNER_SEATS[house.owners],
                )
                for value, house in sorted(self.houses.items())
            ]
        )
        return SeepObservation(
            seat=seat,
            phase=self.phase,
            dealer=self.dealer,
            bidder=self.bidder,
            bid=self.bid,
            hand=_codes(self.hands[seat]),
            loose=_codes(self.loose),
            houses=houses,
            face_down_floor=len(self.face_down),
            play_number=self.play_number,
            hand_sizes=tuple(map(len, self.hands)),
            captured_counts=tuple(map(len, self.piles)),
            piles=tuple(self.pile_views),
            last_capture_team=self.last_capture_team,
            plays=tuple(self.plays),
            difference=self.difference,
            scores=tuple(self.team_scores),
            bazzi_number=min(self.bazzis_over + 1, self.bazzis_to_play),
            bazzis=self.bazzis_to_play,
            deal_number=self.deal_number,
            deals_in_bazzi=self.deals_in_bazzi,
            max_deals=self.max_deals,
            deal_history=tuple(self.deal_history),
            redeal_cards=_codes(self.redeal_cards),
        )


# --- Observation -----------------------------------------------------------------------------
# The nested records are named tuples rather than frozen dataclasses: they are as
# immutable and hashable, convert to proto by field name just the same, and are three
# times cheaper to build, which counts since every play and observation makes some.

OWNER_SEATS: tuple[tuple[int, ...], ...] = tuple(
    tuple(s for s in range(NUM_SEATS) if owners >> s & 1) for owners in range(1 << NUM_SEATS)
)
"""The seats of an owner bitmask, ascending."""
OWNER_TEXT: tuple[str, ...] = tuple("+".join(map(str, seats)) for seats in OWNER_SEATS)
"""The same, as text for logs: "0+2"."""


class SeepHouse(NamedTuple):
    """A house as the proto ``SeepHouse``: value, cards, cemented flag, k and owners."""

    value: int
    cards: tuple[Card, ...]
    cemented: bool
    multiplicity: int
    owners: tuple[int, ...]


class SeepPlay(NamedTuple):
    """One play of the deal as the proto ``SeepPlay``; ``kind`` is throw, capture, build,
    add or break. ``value`` is the house value after the play (CAPTURE: of the house
    taken), ``broken_value`` the value a BREAK started from."""

    play_number: int
    seat: int
    kind: str
    card: Card
    value: int | None = None
    broken_value: int | None = None
    loose: tuple[Card, ...] = ()
    house_cards: tuple[Card, ...] = ()
    sweep: bool = False
    bonus: int = 0


class SeepTeamPile(NamedTuple):
    """What a team took in this deal: cards, their points, sweeps and the deal score."""

    cards: tuple[Card, ...]
    points: int
    sweeps: int
    sweep_points: int
    deal_score: int


EMPTY_PILE = SeepTeamPile((), 0, 0, 0, 0)


class SeepDealResult(NamedTuple):
    """One finished deal: deal scores, the difference after it, and the bazzi outcome."""

    deal_number: int
    bazzi_number: int
    dealer: int
    deal_scores: tuple[int, ...]
    difference: int
    bazzi_winner: int | None
    bazzi_over: bool


@dataclass(slots=True)
class SeepObservation:
    """What one seat may know; fields mirror the proto ``SeepObservation`` by name.

    ``difference`` is team 0 minus team 1 within the current bazzi; ``scores`` are bazzis
    won. During the bid only the bidder holds cards and the floor is face down.

    Not frozen: one is built for every decision, and a frozen dataclass of 24 fields costs
    three times as much to build. Every field holds an immutable value, and each call
    makes a new observation, so nothing a caller does to one reaches the state.
    """

    seat: int
    phase: str
    dealer: int
    bidder: int
    bid: int | None
    hand: tuple[Card, ...]
    loose: tuple[Card, ...]
    houses: tuple[SeepHouse, ...]
    face_down_floor: int
    play_number: int
    hand_sizes: tuple[int, ...]
    captured_counts: tuple[int, ...]
    piles: tuple[SeepTeamPile, ...]
    last_capture_team: int | None
    plays: tuple[SeepPlay, ...]
    difference: int
    scores: tuple[int, ...]
    bazzi_number: int
    bazzis: int
    deal_number: int
    deals_in_bazzi: int
    max_deals: int
    deal_history: tuple[SeepDealResult, ...]
    redeal_cards: tuple[Card, ...]


register(SeepGame())
