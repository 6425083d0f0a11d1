"""Seep's deals: ``SeepDeals``, the part of the state that starts each deal (the shuffle, the
bidder's four cards and the floor, a redeal, the bid and the rest of the cards) or starts at a
position. Part of the engine ``arena.games.seep.game``, which exports these names.
"""

from __future__ import annotations

import random

from arena.games.api import Deal, Event, Options
from arena.games.seep.actions import (
    BID_ACTIONS,
    CARD_INDEX,
    CARDS,
    HOUSE_VALUES,
    NUM_SEATS,
    VALUE,
    card_indices,
)
from arena.games.seep.observation import EMPTY_PILE, SeepDealResult, SeepPlay
from arena.games.seep.plays import BIDDING, PLAY, House, SeepPlays, pretty_indices
from arena.games.seep.position import SeepPosition

_DRAWS: tuple[tuple[int, int, int], ...] = tuple(
    (i, i + 1, (i + 1).bit_length()) for i in reversed(range(1, 52))
)
"""``random.shuffle``'s draws for a pack: each position from the last down to the second,
the number of cards it draws among (up to it) and that number's bit length."""


def _shuffle(rng: random.Random, deck: list[int]) -> None:
    """``rng.shuffle(deck)`` for the 52 cards, the same draws from ``rng`` in the same
    order (``random.Random``'s rejection sampling over ``getrandbits``), without its two
    method calls a card, which cost more than the cards' own work; the fingerprints of
    the engine's matches check that the deals are the same."""
    getrandbits = rng.getrandbits
    for i, count, bits in _DRAWS:
        j = getrandbits(bits)
        while j >= count:
            j = getrandbits(bits)
        deck[i], deck[j] = deck[j], deck[i]


class SeepDeals(SeepPlays):
    """The start of each deal, for ``SeepState``: the shuffle, the four cards of the bidder
    and the floor, a redeal, the bid and the rest of the deal, or a start at a position.
    """

    deal_history: list[SeepDealResult]
    _position: SeepPosition | None
    _chosen_scores: tuple[int, ...] | None

    # -- deal and bid ---------------------------------------------------------------------

    def _deal(self, chosen: list[int] | None = None) -> None:
        """Shuffle the whole pack and deal, again and again while the bidder has no card
        above 8; a ``chosen`` pack order is dealt first, without a shuffle."""
        self.redeal_cards: list[int] = []
        if chosen is not None and self._begin_deal(chosen):
            return
        while True:
            deck = list(range(52))
            _shuffle(self._rng, deck)
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
        hands = [list(map(CARDS.__getitem__, hand)) for hand in self.hands]
        self.events.append(
            Event(
                "deal",
                f"Seat {self.dealer} deals four cards to seat {self.bidder} and four to the floor",
                self.dealer,
                {
                    "dealer": self.dealer,
                    "hands": hands,
                    "floor": list(map(CARDS.__getitem__, self.face_down)),
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
                f"Seat {self.bidder} shows {pretty_indices(shown)}: no card above 8, redeal",
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
                f"The floor turns up {pretty_indices(self.loose)}",
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
                    f"Seat {seat} receives {pretty_indices(got[seat])}",
                    None,
                    {"seat": seat, "cards": list(map(CARDS.__getitem__, got[seat]))},
                    visible_to=(seat,),
                )
            )

    # -- a position ------------------------------------------------------------------------

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
        self.hands = [card_indices(hand) for hand in p.hands]
        floor = card_indices(p.loose)
        self.face_down, self.loose = (floor, []) if p.bid is None else ([], floor)
        self.stock = [CARD_INDEX[card] for card in p.stock]
        self.houses = {}
        for value, cards, owners in p.houses:
            members = card_indices(cards)
            total = sum(VALUE[c] for c in members)
            self.houses[value] = House(value, members, total, sum(1 << s for s in owners))
        self.piles = [[], []]
        self.pile_points = [0, 0]
        self.sweep_bonuses = [list(p.sweeps[0]), list(p.sweeps[1])]
        self.pile_views = [EMPTY_PILE, EMPTY_PILE]
        for team in (0, 1):
            self._take(team, card_indices(p.piles[team]))
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
