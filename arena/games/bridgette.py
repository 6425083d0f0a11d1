"""Bridgette: two-player bridge with 55 cards, an exchange with the stock, and colons.

The deck is the 52 standard cards plus three *colons* that belong to no suit: the Grand
Colon (``GC``) goes with the aces, the Royal Colon (``RC``) with the kings, queens and
jacks, the Little Colon (``LC``) with the 2s to 10s. Each player gets 13 cards and the
other 29 form a face-down stock whose top card is turned up. The non-dealer takes the
up-card and the card under it and discards two; then the dealer draws 4, 8 or 12 (by the
up-card: a 2..10 or LC, a face card or RC, an ace or GC) and discards as many. The
dealer opens an auction of bids from ``0NT`` (6 tricks, no trump) up to ``7NT``, with
doubles and redoubles; the declarer's opponent leads to 13 two-card tricks; one player
scores per deal, and after 6 deals the higher total wins.

What surprises people who know bridge:

* A bid needs holdings: two cards of the suit named, one card of every suit for no
  trump, and four cards of the suit for a *jump* (a bid above the lowest level that would
  outrank the standing bid). Colons count towards none of these.
* A colon played on a led suit card of its own group (the *matching* colon) may be
  played even by a player who could follow suit; it always loses the trick, but the
  winner may not lead that suit again to the next trick (the *barred suit*) unless they
  hold nothing else. A colon of another group may only be played when nothing else is
  allowed, and loses.
* A led colon is won by the follower only with a trump or a suit card of the colon's
  group (an ace for the GC, any suit); anything else, another colon included, loses.
* If the dealer passes first, the non-dealer must bid, and that bid is the contract at
  once, undoubled: every deal is played and scored.
* Contract points depend on the contract, not on the tricks won; winning exactly the
  tricks needed, or exactly three more, earns a bonus; doubling multiplies the whole sum,
  its own bonus included. A failed contract pays the opponent by undertricks.
* Scores never go down, so the tie deal after 6 deals always decides the game.

Cards in canonical order (hands and card action ids): suits C, D, H, S, each 2 up to A
(card index = 13 * suit + rank, rank 0 for the 2 up to 12 for the ace), then the colons
LC = 52, RC = 53, GC = 54. Bids in bidding order: bid index 0 is ``0NT``; a bid of level
L >= 1 in strain s (C, D, H, S, NT = 0..4) has index 1 + 5 * (L - 1) + s, up to 35 for
``7NT``. Action ids keep one meaning for the whole game, in the order a deal unfolds::

     0..54     discard <card>    exchange, one card at a time: card index
     55        pass
     56        double
     57        redouble
     58..93     bid <bid>         58 + bid index (bid 0NT .. bid 7NT)
     94..148   play <card>       94 + card index

How the specification's gaps are settled (its Decisions D1..D12):

* D1: the up-card stays on the stock, so the non-dealer's two cards are the up-card and
  the card under it; its identity stays public for the deal.
* D2: a k-card discard is k single-card ``discard`` actions; the non-dealer finishes
  before the dealer draws.
* D3: colons count for no holding rule (two cards, four for a jump, every suit for NT).
* D4: a jump is any bid above the lowest level at which its strain would outrank the
  standing bid; a no-trump jump needs only a card of every suit.
* D5: after the dealer's opening pass the non-dealer may only bid (jumps measured from
  no bid) and that bid is the contract at once, undoubled: no deal is thrown in.
* D6: the maker of the last bid declares, even when they made the closing pass.
* D7: a colon of another group follows only when no other card may, and loses.
* D8: the doubling multiplier applies to the whole sum, bonuses included.
* D9: contract points come from the table by contract, with no per-trick points.
* D10: six or more undertricks pay the last row of the table.
* D11: the bar applies to the trick winner's next lead only, and lifts when they hold
  no card of another suit and no colon. The last trick of a deal bars nothing.
* D12: equal totals after the regular deals play another deal, which always decides.

Decisions taken beyond the rules text:

* The draws from the stock are not decisions: the non-dealer's two cards are taken when
  the deal starts, the dealer's draw when the non-dealer's last discard is made.
* Events: each draw is a public ``draw`` event (how many) followed by a ``drawn`` event
  with the cards that only the drawer sees; each discard is a ``discard`` event only its
  maker sees. The up-card is a public ``up_card`` event.
* No safeguard option is needed against endless games: the auction ends (every call
  but a pass raises the bid or its doubling), every deal is scored, one seat scores a
  positive amount in every deal and scores never fall, so at most one deal past the
  regular ones is played. The ``deals`` option (default 6, as the rules say) is an arena
  variant for shorter matches; the tie rule applies after any number.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass

from arena.games.api import (
    GAME_OVER,
    Deal,
    Event,
    Game,
    GameInfo,
    IllegalActionError,
    Options,
    OptionSpec,
    PhaseState,
)
from arena.games.cards import RANKS, SUIT_NAMES, SUITS, Card, pretty, pretty_cards
from arena.games.registry import register
from arena.games.tricks import PlayedCard, Trick, cards_that_follow, seat_after, trick_winner
from arena.wording import count

# --- Facts of the game -------------------------------------------------------------------

GAME_INFO = GameInfo(
    name="bridgette",
    title="Bridgette",
    num_seats=2,
    seat_teams=(0, 1),
    options=(
        OptionSpec(
            "deals",
            6,
            "Regular deals in a game (the rules say 6); equal totals after them play one "
            "more deal, which always decides.",
            minimum=1,
            maximum=60,
        ),
    ),
    description="Two-player bridge with 55 cards: an exchange with the stock, an auction "
    "with holding rules, and three colons that bar the next lead.",
    # Until 2026-12-03 a hand's end said "with 1 tricks"; stored replays still do.
    former_texts=((r"with 1 trick;", "with 1 tricks;"),),
)

NUM_SEATS = 2
HAND_SIZE = 13
TRICKS_PER_DEAL = 13
NON_DEALER_DRAWS = 2

SUIT_CARDS: tuple[Card, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
COLONS: tuple[Card, ...] = ("LC", "RC", "GC")
"""The colons in canonical order: the Little, Royal and Grand Colon."""
CARDS: tuple[Card, ...] = SUIT_CARDS + COLONS
"""The 55 cards in canonical order (the order of hands and of card action ids)."""
CARD_ORDER: dict[Card, int] = {card: index for index, card in enumerate(CARDS)}

NO_SUIT = ""
"""The suit a colon counts as: none, so it never follows, trumps or wins a suit lead."""
SUIT_OF: dict[Card, str] = {card: card[1] for card in SUIT_CARDS} | dict.fromkeys(COLONS, NO_SUIT)
STRENGTH: dict[Card, int] = {card: RANKS.index(card[0]) for card in SUIT_CARDS} | dict.fromkeys(
    COLONS, -1
)
"""Order within a suit, 2 (0) up to A (12); colons never win on strength."""


def _matching_colon(card: Card) -> Card:
    """The colon of a suit card's group: GC for aces, RC for K, Q, J, LC for 2..10."""
    if card[0] == "A":
        return "GC"
    if card[0] in "KQJ":
        return "RC"
    return "LC"


MATCHING_COLON: dict[Card, Card] = {card: _matching_colon(card) for card in SUIT_CARDS}
DEALER_DRAWS: dict[Card, int] = {
    card: {"GC": 12, "RC": 8, "LC": 4}[MATCHING_COLON.get(card, card)] for card in CARDS
}
"""Cards the dealer draws by the up-card: 4 (2..10, LC), 8 (J, Q, K, RC), 12 (A, GC)."""

# Strains in bidding order; the suit strains are also the trump suits.
STRAINS = ("C", "D", "H", "S", "NT")
NT = 4
STRAIN_NAMES = ("clubs", "diamonds", "hearts", "spades", "no_trump")
BIDS: tuple[tuple[int, int], ...] = (
    (0, NT),
    *((level, strain) for level in range(1, 8) for strain in range(5)),
)
"""Every bid as (level, strain index), in bidding order: 0NT, 1C, ..., 7NT."""
NUM_BIDS = len(BIDS)
BID_TEXTS: tuple[str, ...] = tuple(f"{level}{STRAINS[strain]}" for level, strain in BIDS)

UNDOUBLED, DOUBLED, REDOUBLED = 0, 1, 2
DOUBLING_NAMES = ("undoubled", "doubled", "redoubled")

_POINTS_BY_LEVEL = {  # clubs, diamonds, hearts, spades, no trump
    0: (0, 0, 0, 0, 150),
    1: (150, 150, 150, 150, 250),
    2: (250, 250, 250, 250, 250),
    3: (250, 250, 250, 250, 750),
    4: (250, 250, 750, 750, 750),
    5: (750, 750, 750, 750, 1500),
    6: (1500, 1500, 1500, 1500, 2200),
    7: (2200, 2200, 2200, 2200, 2500),
}
CONTRACT_POINTS: tuple[int, ...] = tuple(_POINTS_BY_LEVEL[level][s] for level, s in BIDS)
"""Points of a made contract, by bid index; not by the tricks won."""
EXACT_BONUS: tuple[int, ...] = tuple(
    250 if level <= 5 else 100 if level == 6 else 0 for level, _ in BIDS
)
"""Bonus for winning exactly 6 + level tricks: 250 up to 5NT, 100 at level 6, 0 at 7."""
OVER_THREE_BONUS = 350
"""Bonus for winning exactly three tricks more than needed."""
DOUBLE_BONUS = (0, 400, 1000)
MULTIPLIER = (1, 2, 4)
UNDERTRICK_POINTS: tuple[tuple[int, int, int], ...] = (
    (100, 200, 300),
    (200, 500, 700),
    (300, 800, 1100),
    (400, 1100, 1500),
    (700, 2000, 2700),
    (1000, 3000, 4000),
)
"""What the opponent scores for 1, 2, ... 6 or more undertricks: undoubled, doubled,
redoubled."""


def made_points(bid: int, doubling: int, won: int) -> int:
    """What the declarer scores for a made contract (``won`` >= 6 + level)."""
    needed = 6 + BIDS[bid][0]
    points = CONTRACT_POINTS[bid] + DOUBLE_BONUS[doubling]
    if won == needed:
        points += EXACT_BONUS[bid]
    elif won == needed + 3:
        points += OVER_THREE_BONUS
    return points * MULTIPLIER[doubling]


def failed_points(undertricks: int, doubling: int) -> int:
    """What the opponent scores when the declarer falls ``undertricks`` short."""
    return UNDERTRICK_POINTS[min(undertricks, 6) - 1][doubling]


# --- Action ids (see the module docstring) -------------------------------------------------

DISCARD_BASE = 0
PASS = 55
DOUBLE = 56
REDOUBLE = 57
BID_BASE = 58
PLAY_BASE = 94
NUM_ACTIONS = 149

DISCARD_ACTION = {card: DISCARD_BASE + i for i, card in enumerate(CARDS)}
PLAY_ACTION = {card: PLAY_BASE + i for i, card in enumerate(CARDS)}


@dataclass(frozen=True, slots=True)
class BridgetteCall:
    """One call: ``kind`` is pass, bid, double or redouble; bids give level and strain
    (``clubs`` .. ``spades`` or ``no_trump``)."""

    kind: str
    level: int | None = None
    strain: str | None = None


CALL_PASS = BridgetteCall("pass")
CALL_DOUBLE = BridgetteCall("double")
CALL_REDOUBLE = BridgetteCall("redouble")
BID_CALLS: tuple[BridgetteCall, ...] = tuple(
    BridgetteCall("bid", level, STRAIN_NAMES[strain]) for level, strain in BIDS
)

ACTION_TEXTS: tuple[str, ...] = (
    *(f"discard {card}" for card in CARDS),
    "pass",
    "double",
    "redouble",
    *(f"bid {text}" for text in BID_TEXTS),
    *(f"play {card}" for card in CARDS),
)
ACTION_PAYLOADS: tuple[tuple[str, object], ...] = (
    *(("discard", card) for card in CARDS),
    ("call", CALL_PASS),
    ("call", CALL_DOUBLE),
    ("call", CALL_REDOUBLE),
    *(("call", call) for call in BID_CALLS),
    *(("play", card) for card in CARDS),
)
assert len(ACTION_TEXTS) == len(ACTION_PAYLOADS) == NUM_ACTIONS


def _checked(action: int) -> int:
    if not 0 <= action < NUM_ACTIONS:
        raise IllegalActionError(f"bridgette has action ids 0..{NUM_ACTIONS - 1}, not {action}")
    return action


def _lowest_above(high: int) -> tuple[int | None, ...]:
    """For each strain, the lowest bid index of that strain above bid ``high`` (-1: none)."""
    return tuple(
        next((b for b in range(high + 1, NUM_BIDS) if BIDS[b][1] == s), None) for s in range(5)
    )


LOWEST_ABOVE: tuple[tuple[int | None, ...], ...] = tuple(
    _lowest_above(high) for high in range(-1, NUM_BIDS)
)
"""``LOWEST_ABOVE[high + 1][strain]``: the non-jump bid of a strain over bid ``high``."""

# Phases, named as the proto's BridgettePhase values (lower case, without the prefix).
DISCARD = "discard"
AUCTION = "auction"
PLAY = "play"


def suit_counts(hand: list[Card]) -> list[int]:
    """Cards held in each suit C, D, H, S; colons are in no suit."""
    counts = [0, 0, 0, 0]
    for card in hand:
        suit = SUIT_OF[card]
        if suit:
            counts[SUITS.index(suit)] += 1
    return counts


def biddable(hand: list[Card], high: int) -> list[int]:
    """Bid indices the holder of ``hand`` may bid over bid ``high`` (-1: no bid yet).

    A suit needs two cards of it, four for a jump; no trump needs a card of every suit,
    jump or not.
    """
    counts = suit_counts(hand)
    lowest = LOWEST_ABOVE[high + 1]
    has_every_suit = all(counts)
    allowed = []
    for bid in range(high + 1, NUM_BIDS):
        strain = BIDS[bid][1]
        if strain == NT:
            if has_every_suit:
                allowed.append(bid)
        elif counts[strain] >= 4 or (counts[strain] >= 2 and bid == lowest[strain]):
            allowed.append(bid)
    return allowed


def colon_lead_taken(colon: Card, card: Card, trump: str | None) -> bool:
    """Whether ``card`` beats a led colon: a trump, or a suit card of the colon's group."""
    suit = SUIT_OF[card]
    return bool(suit) and (suit == trump or MATCHING_COLON[card] == colon)


def _sorted(cards: list[Card]) -> list[Card]:
    return sorted(cards, key=CARD_ORDER.__getitem__)


# --- Game ----------------------------------------------------------------------------------


class BridgetteGame(Game):
    """Makes Bridgette matches; holds no per-match data."""

    info = GAME_INFO

    def new_state(
        self, seed: int, options: Mapping[str, object] | None = None, *, deal: Deal | None = None
    ) -> BridgetteState:
        """A match dealt from ``seed``, or whose first deal is ``deal``: ``hands`` are the
        13 cards of each seat, ``rest`` the 29 of the stock from the top, so ``rest[0]`` is
        the up-card, ``rest[:2]`` the non-dealer's draw and the next 4, 8 or 12 the
        dealer's. The deal's ``scores`` are the seats' totals, never negative;
        ``deal_number`` is at most the ``deals`` option, or one more for the tie deal when
        the scores are equal, and the match ends after the deal numbered ``deals`` (or
        the tie deal) as it would have."""
        return BridgetteState(seed, GAME_INFO.resolve_options(options), deal)


# --- State ---------------------------------------------------------------------------------


class BridgetteState(PhaseState):
    """One match, from the first deal to the last (6 by default, plus a tie deal).

    The legal actions are computed once after every change and kept, so asking for them
    is cheap and does not alter the state.
    """

    game_info = GAME_INFO

    def __init__(self, seed: int, options: Options, deal: Deal | None = None) -> None:
        self._rng = random.Random(seed)
        self.deals = int(options["deals"])
        self.events: list[Event] = []
        self.team_scores = [0, 0]
        self.deal_number = 0
        self.winning_team: int | None = None
        self.dealer = self._rng.randrange(NUM_SEATS)
        if deal is None:
            self._deal()
            return
        self.dealer = deal.check(
            GAME_INFO.name,
            CARDS,
            lambda _: [HAND_SIZE] * NUM_SEATS,
            self.dealer,
            "the stock, top card first",
            teams=GAME_INFO.num_teams,
            progress=self._progress_problem,
        )
        self.team_scores = list(deal.start_scores(GAME_INFO.num_teams))
        self.deal_number = deal.deal_number - 1
        self._begin_deal([list(hand) for hand in deal.hands], list(deal.rest), deal)

    def _progress_problem(self, scores: tuple[int, ...], deal_number: int) -> str | None:
        """What keeps a chosen deal's scores and deal number from a match in progress."""
        if min(scores) < 0:
            return f"scores are never negative in bridgette, not {scores}"
        if deal_number > self.deals + (scores[0] == scores[1]):
            return (
                f"deal_number must be 1..{self.deals} (the deals option), or "
                f"{self.deals + 1} for the tie deal with equal scores, not {deal_number} "
                f"with scores {scores}"
            )
        return None

    # -- the contract --------------------------------------------------------------------

    def action_text(self, action: int) -> str:
        return ACTION_TEXTS[_checked(action)]

    def action_payload(self, action: int) -> tuple[str, object]:
        return ACTION_PAYLOADS[_checked(action)]

    def _apply(self, action: int) -> None:
        if action >= PLAY_BASE:
            self._play(CARDS[action - PLAY_BASE])
        elif action < PASS:
            self._discard(CARDS[action])
        else:
            self._call(action)

    # -- deal and exchange ------------------------------------------------------------------

    def _deal(self) -> None:
        """Shuffle all 55; deal 13 each one at a time from the non-dealer; the rest is
        the stock, its first card the top (the up-card)."""
        deck = list(CARDS)
        self._rng.shuffle(deck)
        dealt = HAND_SIZE * NUM_SEATS
        hands: list[list[Card]] = [[], []]
        hands[1 - self.dealer] = deck[0:dealt:2]
        hands[self.dealer] = deck[1:dealt:2]
        self._begin_deal(hands, deck[dealt:])

    def _begin_deal(
        self, hands: list[list[Card]], stock: list[Card], chosen: Deal | None = None
    ) -> None:
        """Start a deal from dealt hands and the stock (top first): reset the deal's
        record, turn the up-card, and let the non-dealer draw."""
        self.deal_number += 1
        self.hands = [_sorted(hand) for hand in hands]
        self.stock = list(stock)
        if self._first_deal is None:
            scores = None if chosen is None else chosen.scores
            hands_dealt = tuple(map(tuple, self.hands))
            self._first_deal = Deal(
                hands_dealt, self.dealer, tuple(stock), scores, self.deal_number
            )
        self.up_card = self.stock[0]
        self.dealer_draws = DEALER_DRAWS[self.up_card]
        self.drawn: list[list[Card]] = [[], []]
        self.discards: list[list[Card]] = [[], []]
        self.to_discard = 0
        self.calls: list[BridgetteCallMade] = []
        self.high_bid: int | None = None
        self.high_bidder: int | None = None
        self.doubling = UNDOUBLED
        self.forced_bid = False
        self.declarer: int | None = None
        self.contract: int | None = None
        self.trump: str | None = None
        self.trick: list[PlayedCard] = []
        self.tricks: list[Trick] = []
        self.tricks_won = [0, 0]
        self.barred: str | None = None
        self.events.append(
            Event(
                "deal",
                f"Deal {self.deal_number}: seat {self.dealer} deals",
                self.dealer,
                {
                    "dealer": self.dealer,
                    "hands": [list(hand) for hand in self.hands],
                    "stock": list(self.stock),
                },
                visible_to=(),
            )
        )
        self.events.append(
            Event(
                "up_card",
                f"Up-card {pretty(self.up_card)}: the dealer will draw {self.dealer_draws}",
                None,
                {"card": self.up_card, "dealer_draws": self.dealer_draws},
            )
        )
        self.phase = DISCARD
        self._draw(1 - self.dealer, NON_DEALER_DRAWS)

    def _draw(self, seat: int, count: int) -> None:
        """``seat`` takes ``count`` cards from the top of the stock, then owes as many
        discards."""
        cards = self.stock[:count]
        del self.stock[:count]
        self.hands[seat] = _sorted(self.hands[seat] + cards)
        self.drawn[seat] = cards
        self.events.append(
            Event("draw", f"Seat {seat} draws {count} cards", seat, {"count": count})
        )
        self.events.append(
            Event(
                "drawn",
                f"Seat {seat} draws {pretty_cards(cards)}",
                seat,
                {"cards": list(cards)},
                visible_to=(seat,),
            )
        )
        self.current = seat
        self.to_discard = count
        self._legal = [DISCARD_ACTION[card] for card in self.hands[seat]]

    def _discard(self, card: Card) -> None:
        seat = self.current
        hand = self.hands[seat]
        hand.remove(card)
        self.discards[seat].append(card)
        self.events.append(
            Event(
                "discard",
                f"Seat {seat} discards {pretty(card)}",
                seat,
                {"card": card},
                visible_to=(seat,),
            )
        )
        self.to_discard -= 1
        if self.to_discard:
            self._legal = [DISCARD_ACTION[c] for c in hand]
        elif seat != self.dealer:
            self._draw(self.dealer, self.dealer_draws)
        else:
            self.phase = AUCTION
            self.current = self.dealer
            self._legal = [PASS] + [BID_BASE + bid for bid in biddable(self.hands[seat], -1)]

    # -- auction ----------------------------------------------------------------------------

    def _call(self, action: int) -> None:
        seat = self.current
        if action == PASS:
            call = CALL_PASS
            text = f"Seat {seat} passes"
        elif action == DOUBLE:
            call = CALL_DOUBLE
            text = f"Seat {seat} doubles"
        elif action == REDOUBLE:
            call = CALL_REDOUBLE
            text = f"Seat {seat} redoubles"
        else:
            call = BID_CALLS[action - BID_BASE]
            text = f"Seat {seat} bids {BID_TEXTS[action - BID_BASE]}"
        self.calls.append(BridgetteCallMade(seat, call))
        data: dict[str, object] = {"call": call.kind}
        if action >= BID_BASE:
            level, strain = BIDS[action - BID_BASE]
            data["level"], data["strain"] = level, STRAINS[strain]
        self.events.append(Event("call", text, seat, data))
        other = 1 - seat
        if action == PASS:
            if self.high_bid is not None:
                self._close_auction()
                return
            # The dealer passed first: the non-dealer must bid, and that bid stands.
            self.forced_bid = True
            self.current = other
            self._legal = [BID_BASE + bid for bid in biddable(self.hands[other], -1)]
            return
        if action == DOUBLE:
            self.doubling = DOUBLED
        elif action == REDOUBLE:
            self.doubling = REDOUBLED
        else:
            self.high_bid, self.high_bidder = action - BID_BASE, seat
            self.doubling = UNDOUBLED
            if self.forced_bid:
                self._close_auction()
                return
        self.current = other
        legal = [PASS]
        if self.high_bidder == seat and self.doubling == UNDOUBLED:
            legal.append(DOUBLE)
        elif self.high_bidder == other and self.doubling == DOUBLED:
            legal.append(REDOUBLE)
        assert self.high_bid is not None
        legal += [BID_BASE + bid for bid in biddable(self.hands[other], self.high_bid)]
        self._legal = legal

    def _close_auction(self) -> None:
        """The last bid is the contract as it stands; its maker declares, the other leads."""
        assert self.high_bid is not None and self.high_bidder is not None
        self.declarer, self.contract = self.high_bidder, self.high_bid
        strain = BIDS[self.contract][1]
        self.trump = None if strain == NT else SUITS[strain]
        suffix = {UNDOUBLED: "", DOUBLED: " doubled", REDOUBLED: " redoubled"}[self.doubling]
        self.events.append(
            Event(
                "contract",
                f"Contract {BID_TEXTS[self.contract]}{suffix} by seat {self.declarer}",
                self.declarer,
                {
                    "declarer": self.declarer,
                    "level": BIDS[self.contract][0],
                    "strain": STRAINS[strain],
                    "doubling": DOUBLING_NAMES[self.doubling],
                },
            )
        )
        self.phase = PLAY
        self.current = 1 - self.declarer
        self._legal = [PLAY_ACTION[card] for card in self.hands[self.current]]

    # -- play -------------------------------------------------------------------------------

    def _play(self, card: Card) -> None:
        seat = self.current
        hand = self.hands[seat]
        hand.remove(card)
        trick = self.trick
        trick.append(PlayedCard(seat, card))
        self.events.append(Event("play", f"Seat {seat} plays {pretty(card)}", seat, {"card": card}))
        if len(trick) == NUM_SEATS:
            self._finish_trick()
            return
        self.barred = None  # the bar only ever restricts the lead just made
        following = seat_after(seat, NUM_SEATS)
        self.current = following
        self._legal = [PLAY_ACTION[c] for c in self._follows(self.hands[following], card)]

    @staticmethod
    def _follows(hand: list[Card], led: Card) -> list[Card]:
        """Cards of ``hand`` that may follow ``led``. On a suit card: its matching colon,
        or the led suit if held, else any suit card; a colon of another group only when
        nothing else may be played. On a colon: anything."""
        suit = SUIT_OF[led]
        if not suit:
            return hand
        colons_at = len(hand)
        while colons_at and not SUIT_OF[hand[colons_at - 1]]:
            colons_at -= 1
        playable = cards_that_follow(hand[:colons_at], suit, SUIT_OF.__getitem__)
        matching = MATCHING_COLON[led]
        if matching in hand:
            playable.append(matching)  # colons sort after every suit card
        return playable if playable else hand

    def _leads(self, hand: list[Card]) -> list[Card]:
        """Any card, except the barred suit while another suit's card or a colon is held."""
        barred = self.barred
        if barred is None:
            return hand
        allowed = [card for card in hand if SUIT_OF[card] != barred]
        return allowed if allowed else hand

    def _finish_trick(self) -> None:
        lead, follow = self.trick
        led = lead.card
        cards = (lead, follow)
        if SUIT_OF[led]:
            winner = trick_winner(cards, self.trump, SUIT_OF.__getitem__, STRENGTH.__getitem__)
            barring = follow.card == MATCHING_COLON[led] and len(self.tricks) < TRICKS_PER_DEAL - 1
            self.barred = SUIT_OF[led] if barring else None
        else:
            winner = follow.seat if colon_lead_taken(led, follow.card, self.trump) else lead.seat
            self.barred = None
        self.tricks.append(Trick(lead.seat, cards, winner))
        self.trick = []
        self.tricks_won[winner] += 1
        text = f"Seat {winner} takes the trick"
        if self.barred is not None:
            text += f" and may not lead {SUIT_NAMES[self.barred]} next"
        self.events.append(
            Event(
                "trick",
                text,
                winner,
                {
                    "leader": lead.seat,
                    "cards": [{"seat": p.seat, "card": p.card} for p in cards],
                    "winner": winner,
                    "barred": self.barred,
                },
            )
        )
        if len(self.tricks) == TRICKS_PER_DEAL:
            self._score_deal()
        else:
            self.current = winner
            self._legal = [PLAY_ACTION[card] for card in self._leads(self.hands[winner])]

    # -- scoring and the end ----------------------------------------------------------------

    def _score_deal(self) -> None:
        """Exactly one seat scores: the declarer for a made contract, else the opponent."""
        assert self.declarer is not None and self.contract is not None
        declarer, bid, doubling = self.declarer, self.contract, self.doubling
        won = self.tricks_won[declarer]
        needed = 6 + BIDS[bid][0]
        made = won >= needed
        points = [0, 0]
        if made:
            points[declarer] = made_points(bid, doubling, won)
        else:
            points[1 - declarer] = failed_points(needed - won, doubling)
        for seat in range(NUM_SEATS):
            self.team_scores[seat] += points[seat]
        suffix = {UNDOUBLED: "", DOUBLED: " doubled", REDOUBLED: " redoubled"}[doubling]
        outcome = "made" if made else f"down {needed - won}"
        self.events.append(
            Event(
                "hand_end",
                f"Deal {self.deal_number}: {BID_TEXTS[bid]}{suffix} by seat {declarer} "
                f"{outcome} with {count(won, 'trick')}; points {points[0]}/{points[1]}, "
                f"scores {self.team_scores[0]}:{self.team_scores[1]}",
                None,
                {
                    "deal_number": self.deal_number,
                    "declarer": declarer,
                    "level": BIDS[bid][0],
                    "strain": STRAINS[BIDS[bid][1]],
                    "doubling": DOUBLING_NAMES[doubling],
                    "made": made,
                    "tricks": list(self.tricks_won),
                    "points": points,
                    "scores": list(self.team_scores),
                },
            )
        )
        a, b = self.team_scores
        if self.deal_number >= self.deals and a != b:
            self._end_game(0 if a > b else 1)
        else:
            self.dealer = 1 - self.dealer
            self._deal()

    def _end_game(self, winning_team: int) -> None:
        self.winning_team = winning_team
        self.phase = GAME_OVER
        self.current = -1
        self._legal = []
        a, b = self.team_scores
        self.events.append(
            Event(
                "game_end",
                f"Seat {winning_team} wins {a}:{b} after {self.deal_number} deals",
                None,
                {"winner": winning_team, "scores": [a, b], "deals": self.deal_number},
            )
        )

    # -- observation ----------------------------------------------------------------------

    def _bid_record(self, bid: int, bidder: int) -> BridgetteContract:
        level, strain = BIDS[bid]
        return BridgetteContract(
            declarer=bidder,
            level=level,
            strain=STRAIN_NAMES[strain],
            doubling=DOUBLING_NAMES[self.doubling],
            tricks_needed=6 + level,
        )

    def observation(self, seat: int) -> BridgetteObservation:
        """The one place that decides what a seat sees: its own hand, draws and discards,
        the up-card and the public record. The stock and the other seat's hand and
        discards are shown to nobody."""
        if not 0 <= seat < NUM_SEATS:
            raise ValueError(f"bridgette has seats 0 and 1, not {seat}")
        high = (
            None
            if self.high_bid is None or self.high_bidder is None
            else self._bid_record(self.high_bid, self.high_bidder)
        )
        return BridgetteObservation(
            seat=seat,
            dealer=self.dealer,
            phase=self.phase,
            deal_number=self.deal_number,
            deals=self.deals,
            hand=tuple(self.hands[seat]),
            up_card=self.up_card,
            dealer_draws=self.dealer_draws,
            drawn=tuple(self.drawn[seat]),
            discards=tuple(self.discards[seat]),
            to_discard=self.to_discard if self.phase == DISCARD and seat == self.current else 0,
            stock_size=len(self.stock),
            calls=tuple(self.calls),
            high_bid=high,
            contract=high if self.contract is not None else None,
            trump=self.trump,
            trick=tuple(self.trick),
            tricks=tuple(self.tricks),
            barred_suit=self.barred if not self.trick else None,
            tricks_won=tuple(self.tricks_won),
            scores=tuple(self.team_scores),
            hand_sizes=tuple(len(hand) for hand in self.hands),
        )


# --- Observation -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BridgetteCallMade:
    """One call of the auction and the seat that made it."""

    seat: int
    call: BridgetteCall


@dataclass(frozen=True, slots=True)
class BridgetteContract:
    """A bid with its maker and doubling (``undoubled``, ``doubled``, ``redoubled``)."""

    declarer: int
    level: int
    strain: str
    doubling: str
    tricks_needed: int


@dataclass(frozen=True, slots=True)
class BridgetteObservation:
    """What one seat may know; fields mirror the proto ``BridgetteObservation`` by name.

    ``high_bid`` is the standing bid (``None`` before the first bid); ``contract`` is the
    same once the auction is over. ``barred_suit`` is set only while the seat to lead is
    barred from a suit; ``to_discard`` only for the seat that is discarding.
    """

    seat: int
    dealer: int
    phase: str
    deal_number: int
    deals: int
    hand: tuple[Card, ...]
    up_card: Card
    dealer_draws: int
    drawn: tuple[Card, ...]
    discards: tuple[Card, ...]
    to_discard: int
    stock_size: int
    calls: tuple[BridgetteCallMade, ...]
    high_bid: BridgetteContract | None
    contract: BridgetteContract | None
    trump: str | None
    trick: tuple[PlayedCard, ...]
    tricks: tuple[Trick, ...]
    barred_suit: str | None
    tricks_won: tuple[int, ...]
    scores: tuple[int, ...]
    hand_sizes: tuple[int, ...]


register(BridgetteGame())
