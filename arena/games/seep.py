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
from typing import NamedTuple

from arena.games.api import (
    GAME_OVER,
    Deal,
    Event,
    Game,
    GameError,
    Options,
    PhaseState,
)
from arena.games.cards import Card, pretty
from arena.games.registry import register
from arena.games.seep_actions import (
    ACTION_LIMIT,
    ADD,
    ADD_BASE,
    ALL_VALUES,
    BAZZI_TARGET,
    BID,
    BID_ACTIONS,
    BREAK,
    BREAK_BASE,
    BREAK_ROOM,
    BUILD,
    BUILD_BASE,
    CAPTURE,
    CAPTURE_BASE,
    CARD_INDEX,
    CARD_OFFSET,
    CARDS,
    FULL,
    GAME_INFO,
    HOUSE_BITS,
    HOUSE_VALUES,
    KIND_NAMES,
    MASK_WEIGHT,
    MAX_HEAD,
    MAX_SUM,
    MIN_DEAL_SCORE,
    NUM_SEATS,
    PLAYS_PER_DEAL,
    POINTS,
    RANK_BITS,
    RANK_CHARS,
    SEAT_TEAMS,
    SWEEP_LAST,
    SWEEP_NORMAL,
    SWEEP_OPENING,
    THROW,
    THROW_BASE,
    VALUE,
    Decoded,
    SeepAdd,
    SeepBreak,
    SeepBuild,
    SeepCapture,
    _codes,
    _indices,
    _payload,
    _text,
    decode,
    loose_cards,
)
from arena.games.seep_legal import (
    BIG_FLOOR,
    HOUSES_IN,
    FloorSums,
    Turn,
    floor_sums,
)
from arena.games.seep_position import (
    HOUSE_RULES,
    POSITION_RULES,
    TEAM_RULES,
    PlacedHouse,
    SeepPosition,
    check_position,
    plays_made,
)

__all__ = [
    "ACTION_LIMIT",
    "ADD",
    "ADD_BASE",
    "ALL_VALUES",
    "BAZZI_TARGET",
    "BID",
    "BIDDING",
    "BID_ACTIONS",
    "BIG_FLOOR",
    "BREAK",
    "BREAK_BASE",
    "BREAK_ROOM",
    "BUILD",
    "BUILD_BASE",
    "CAPTURE",
    "CAPTURE_BASE",
    "CARDS",
    "CARD_INDEX",
    "CARD_OFFSET",
    "EMPTY_PILE",
    "FULL",
    "GAME_INFO",
    "HOUSES_IN",
    "HOUSE_BITS",
    "HOUSE_RULES",
    "HOUSE_VALUES",
    "KIND_NAMES",
    "MASK_WEIGHT",
    "MAX_HEAD",
    "MAX_SUM",
    "MIN_DEAL_SCORE",
    "NUM_SEATS",
    "OWNER_SEATS",
    "OWNER_TEXT",
    "PLAY",
    "PLAYS_PER_DEAL",
    "POINTS",
    "POSITION_RULES",
    "PRETTY",
    "RANK_BITS",
    "RANK_CHARS",
    "SEAT_TEAMS",
    "SWEEP_LAST",
    "SWEEP_NORMAL",
    "SWEEP_OPENING",
    "TEAM_RULES",
    "THROW",
    "THROW_BASE",
    "VALUE",
    "Decoded",
    "FloorSums",
    "House",
    "PlacedHouse",
    "SeepAdd",
    "SeepBreak",
    "SeepBuild",
    "SeepCapture",
    "SeepDealResult",
    "SeepGame",
    "SeepHouse",
    "SeepObservation",
    "SeepPlay",
    "SeepPosition",
    "SeepState",
    "SeepTeamPile",
    "Turn",
    "check_position",
    "decode",
    "floor_sums",
    "loose_cards",
    "plays_made",
    "team_of",
]
"""Seep's public names, wherever they are defined: import them from here."""

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
            self._throw_in(shown)
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

    def _throw_in(self, shown: list[int]) -> None:
        """The bidder shows his four cards, none above 8: the deal is void."""
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
        winner, over, reason = self._bazzi_outcome(a, b)
        following = self._next_dealer(winner, over)
        if over:
            self.difference = 0
            self.bazzis_over += 1
            self.deals_in_bazzi = 0
            if winner is not None:
                self.team_scores[winner] += 1
        result = SeepDealResult(
            self.deal_number,
            self.bazzis_over + (0 if over else 1),
            self.dealer,
            (a, b),
            self.difference,
            winner if over else None,
            over,
        )
        self.deal_history.append(result)
        self._log_deal_end(result, points, bonuses, reason, following)
        if over:
            self._log_bazzi_end(winner, reason)
        if self.bazzis_over >= self.bazzis_to_play:
            x, y = self.team_scores
            self._end_game(None if x == y else (0 if x > y else 1))
            return
        self.dealer = following
        self._deal()

    def _bazzi_outcome(self, a: int, b: int) -> tuple[int | None, bool, str]:
        """Whether the deal scored ``a`` and ``b`` ends the bazzi, who wins it (None: void)
        and why; the running difference takes the deal in unless the 9-point rule ends it."""
        if a < MIN_DEAL_SCORE or b < MIN_DEAL_SCORE:
            return (1 if a < MIN_DEAL_SCORE else 0), True, "under_9"
        self.difference += a - b
        if self.difference >= BAZZI_TARGET:
            return 0, True, "difference"
        if self.difference <= -BAZZI_TARGET:
            return 1, True, "difference"
        if self.deals_in_bazzi >= self.max_deals:
            winner = None if self.difference == 0 else (0 if self.difference > 0 else 1)
            return winner, True, "max_deals"
        return None, False, "difference"

    def _next_dealer(self, winner: int | None, over: bool) -> int:
        """A decided bazzi's losers deal the next; otherwise the team that trails (or a tie)
        keeps the deal, and a leading dealer's team passes it on."""
        dealer = self.dealer
        dealer_team = team_of(dealer)
        if over and winner is not None:
            return (dealer + 3) % NUM_SEATS if winner == dealer_team else (dealer + 2) % 4
        lead = self.difference if dealer_team == 0 else -self.difference
        return (dealer + 1) % NUM_SEATS if lead > 0 else dealer

    def _log_deal_end(
        self,
        result: SeepDealResult,
        points: list[int],
        bonuses: list[int],
        reason: str,
        following: int,
    ) -> None:
        a, b = result.deal_scores
        over = result.bazzi_over
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
                    "bazzi_winner": result.bazzi_winner,
                    "reason": reason if over else None,
                    "scores": list(self.team_scores),
                    "next_dealer": following,
                },
            )
        )

    def _log_bazzi_end(self, winner: int | None, reason: str) -> None:
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
