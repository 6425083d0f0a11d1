"""Bridgette's state: ``BridgetteState``, a match from the deal and the exchange through the
auction and the play to the scoring, and its observation records. Part of the engine
``arena.games.bridgette.game``, which exports these names.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from arena.games.api import GAME_OVER, Deal, Event, Options, PhaseState
from arena.games.bridgette.actions import (
    ACTION_PAYLOADS,
    ACTION_TEXTS,
    BID_BASE,
    BID_CALLS,
    BID_TEXTS,
    BIDS,
    CALL_DOUBLE,
    CALL_PASS,
    CALL_REDOUBLE,
    CARD_ORDER,
    CARDS,
    DEALER_DRAWS,
    DISCARD_ACTION,
    DOUBLE,
    DOUBLED,
    DOUBLING_NAMES,
    GAME_INFO,
    HAND_SIZE,
    MATCHING_COLON,
    NON_DEALER_DRAWS,
    NT,
    NUM_SEATS,
    PASS,
    PLAY_ACTION,
    PLAY_BASE,
    REDOUBLE,
    REDOUBLED,
    STRAIN_NAMES,
    STRAINS,
    STRENGTH,
    SUIT_OF,
    TRICKS_PER_DEAL,
    UNDOUBLED,
    BridgetteCall,
    biddable,
    checked_action,
    colon_lead_taken,
    failed_points,
    made_points,
)
from arena.games.bridgette.rules import follows, leads
from arena.games.cards import SUIT_NAMES, SUITS, Card, pretty, pretty_cards
from arena.games.tricks import PlayedCard, Trick, seat_after, trick_winner
from arena.wording import count

# Phases, named as the proto's BridgettePhase values (lower case, without the prefix).
DISCARD = "discard"
AUCTION = "auction"
PLAY = "play"


def _sorted(cards: list[Card]) -> list[Card]:
    return sorted(cards, key=CARD_ORDER.__getitem__)


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
        return ACTION_TEXTS[checked_action(action)]

    def action_payload(self, action: int) -> tuple[str, object]:
        return ACTION_PAYLOADS[checked_action(action)]

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
        self._legal = [PLAY_ACTION[c] for c in follows(self.hands[following], card)]

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
            self._legal = [PLAY_ACTION[card] for card in leads(self.hands[winner], self.barred)]

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
