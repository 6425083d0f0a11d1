"""Bid Euchre's state: ``BidEuchreState``, a match from the deal through the auction, the
trump call, the ASK exchange and the play to the scoring, and its observation records. Part of
the engine ``arena.games.bid_euchre.game``, which exports these names.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from arena.games.api import GAME_OVER, Deal, Event, Options, PhaseState
from arena.games.bid_euchre.actions import (
    ACE_NO_FACE_ACTIONS,
    ACTION_CARD,
    ACTION_PAYLOADS,
    ACTION_TEXTS,
    ALONE_MADE_POINTS,
    ASK,
    CALL_BASE,
    CALL_SHOWN,
    CALLS,
    CARD_ORDER,
    CARDS,
    DISCARD_ACTION,
    EFFECTIVE_SUIT,
    GAME_INFO,
    GAME_TARGET,
    GIVE_ACTION,
    JOKER_CARDS,
    MOON,
    NUM_SEATS,
    PASS,
    PLAY_ACTION,
    RETURN_ACTION,
    SEAT_TEAMS,
    SET_COST,
    STRENGTH,
    THROW_IN,
    TRICKS_NEEDED,
    TRICKS_PER_HAND,
    TRUMP_ACTIONS,
    TRUMP_BASE,
    checked_action,
)
from arena.games.bid_euchre.rules import (
    CALLS_ABOVE,
    STUCK_DEALER_CALLS,
    dealer_stuck,
    follows,
    returnable,
)
from arena.games.cards import SUIT_NAMES, SUITS, Card, pretty
from arena.games.tricks import PlayedCard, Trick, seat_after, trick_winner
from arena.wording import count

# Phases, named as the proto's BidEuchrePhase values (lower case, without the prefix).
DISCARD = "discard"
ACE_NO_FACE = "ace_no_face"
BIDDING = "bidding"
TRUMP = "trump"
ASK_GIVE = "ask_give"
ASK_RETURN = "ask_return"
PLAY = "play"


def partner_of(seat: int) -> int:
    return (seat + 2) % NUM_SEATS


def may_throw_in_ace_no_face(hand: list[Card]) -> bool:
    """The ``ace_no_face`` variant: at least one ace and no king, queen or jack."""
    ranks = {card[0] for card in hand}
    return "A" in ranks and not ranks & {"K", "Q", "J"}


# --- State ---------------------------------------------------------------------------------


class BidEuchreState(PhaseState):
    """One match, from the first deal to a team past 32 (or the ``max_hands`` safeguard).

    The legal actions are computed once after every change and kept, so asking for them
    is cheap and does not alter the state (``snapshot()`` stays stable).
    """

    game_info = GAME_INFO

    def __init__(self, seed: int, options: Options, deal: Deal | None = None) -> None:
        self._rng = random.Random(seed)
        self.stick_the_dealer = bool(options["stick_the_dealer"])
        self.ace_no_face = bool(options["ace_no_face"])
        self.joker = bool(options["joker"])
        self.max_hands = int(options["max_hands"])
        self.events: list[Event] = []
        self.team_scores = [0, 0]
        self.hand_number = 0
        self.hands_scored = 0
        self.winning_team: int | None = None
        self.dealer = self._rng.randrange(NUM_SEATS)
        if deal is None:
            self._deal()
            return
        extra = len(JOKER_CARDS) - len(CARDS) if self.joker else 0
        self.dealer = deal.check(
            GAME_INFO.name,
            JOKER_CARDS if self.joker else CARDS,
            lambda dealer: [6 + extra * (seat == dealer) for seat in range(NUM_SEATS)],
            self.dealer,
            "every card is dealt: rest must be empty",
            teams=GAME_INFO.num_teams,
            progress=self._progress_problem,
        )
        self.team_scores = list(deal.start_scores(GAME_INFO.num_teams))
        self.hand_number = self.hands_scored = deal.deal_number - 1
        self._begin_hand([sorted(hand, key=CARD_ORDER.__getitem__) for hand in deal.hands], deal)

    def _progress_problem(self, scores: tuple[int, ...], deal_number: int) -> str | None:
        """What keeps a chosen deal's scores and deal number from a match in progress."""
        if max(scores) >= GAME_TARGET and len(set(scores)) > 1:
            return (
                f"scores {scores} would have ended the match: both must be below "
                f"{GAME_TARGET} unless they are equal"
            )
        if deal_number > self.max_hands:
            return (
                f"deal_number must be 1..{self.max_hands} (max_hands: the earlier hands "
                f"count as scored), not {deal_number}"
            )
        return None

    # -- the contract --------------------------------------------------------------------

    def action_text(self, action: int) -> str:
        return ACTION_TEXTS[checked_action(action)]

    def action_payload(self, action: int) -> tuple[str, object]:
        return ACTION_PAYLOADS[checked_action(action)]

    def apply(self, action: int) -> None:
        """``State.apply`` with its two checks in one test, and a play (most decisions)
        sent straight to ``_play``, since every decision passes here. The legal list is
        empty once the match is over, so whatever is not in it goes the base class's way,
        to the same error, changing nothing."""
        if action not in self._legal:
            super().apply(action)
        elif self.phase == PLAY:  # most decisions: straight there
            self._play(ACTION_CARD[action])
        else:
            self._apply(action)

    def _apply(self, action: int) -> None:
        phase = self.phase
        if phase == PLAY:
            self._play(ACTION_CARD[action])
        elif phase == BIDDING:
            self._call(action - CALL_BASE)
        elif phase == TRUMP:
            self._name_trump(SUITS[action - TRUMP_BASE])
        elif phase == ASK_GIVE:
            self._give(ACTION_CARD[action])
        elif phase == ASK_RETURN:
            self._return(ACTION_CARD[action])
        elif phase == DISCARD:
            self._discard(ACTION_CARD[action])
        else:
            self._answer_ace_no_face(action == THROW_IN)

    # -- deal -----------------------------------------------------------------------------

    def _deal(self) -> None:
        """Shuffle and deal one card at a time clockwise from the dealer's left; with the
        joker, the 25th card goes to the dealer last."""
        # Shuffling card indices moves them exactly as it would move the cards (a shuffle
        # depends only on the length), and sorted indices are the canonical order.
        deck = list(range(len(JOKER_CARDS) if self.joker else len(CARDS)))
        self._rng.shuffle(deck)
        hands: list[list[int]] = [[] for _ in range(NUM_SEATS)]
        for k in range(NUM_SEATS):
            hands[(self.dealer + 1 + k) % NUM_SEATS] = deck[k : len(CARDS) : NUM_SEATS]
        hands[self.dealer] += deck[len(CARDS) :]
        self._begin_hand([[JOKER_CARDS[i] for i in sorted(hand)] for hand in hands])

    def _begin_hand(self, hands: list[list[Card]], chosen: Deal | None = None) -> None:
        """Start a hand from dealt cards, each hand in canonical order: reset the hand's
        record, then ask the first seat."""
        self.hand_number += 1
        self.hands = hands
        if self._first_deal is None:
            scores = None if chosen is None else chosen.scores
            hands_dealt = tuple(map(tuple, self.hands))
            self._first_deal = Deal(hands_dealt, self.dealer, (), scores, self.hand_number)
        self.calls: list[BidEuchreCallMade] = []
        self.high_call = PASS
        self.high_caller: int | None = None
        self.declarer: int | None = None
        self.contract: int | None = None
        self.trump: str | None = None
        self.sitting_out: int | None = None
        self.card_given: Card | None = None
        self.card_returned: Card | None = None
        self.discarded: Card | None = None
        self.trick: list[PlayedCard] = []
        self._trick_size = NUM_SEATS
        self.tricks: list[Trick] = []
        self.tricks_won = [0, 0]
        self.events.append(
            Event(
                "deal",
                f"Hand {self.hand_number}: seat {self.dealer} deals",
                self.dealer,
                {"dealer": self.dealer, "hands": [list(hand) for hand in self.hands]},
                visible_to=(),
            )
        )
        if self.joker:
            self.phase = DISCARD
            self.current = self.dealer
            self._legal = [DISCARD_ACTION[card] for card in self.hands[self.dealer]]
        else:
            self._ask_ace_no_face()

    def _discard(self, card: Card) -> None:
        """The joker variant: the dealer's seventh card goes face down, out of play. The
        table learns that a card went; only the dealer learns which."""
        dealer = self.current
        self.hands[dealer].remove(card)
        self.discarded = card
        self.events.append(Event("discard", f"Seat {dealer} discards a card face down", dealer, {}))
        self.events.append(
            Event(
                "discarded",
                f"Seat {dealer} discards {pretty(card)}",
                dealer,
                {"card": card},
                visible_to=(dealer,),
            )
        )
        self._ask_ace_no_face()

    def _ask_ace_no_face(self) -> None:
        """Ask the ``ace_no_face`` question of those who may throw in, else open bidding."""
        self.ace_no_face_to_ask = (
            [seat for seat in self._bidding_order() if may_throw_in_ace_no_face(self.hands[seat])]
            if self.ace_no_face
            else []
        )
        if self.ace_no_face_to_ask:
            self.phase = ACE_NO_FACE
            self.current = self.ace_no_face_to_ask[0]
            self._legal = ACE_NO_FACE_ACTIONS
        else:
            self._open_bidding()

    def _bidding_order(self) -> list[int]:
        return [(self.dealer + 1 + k) % NUM_SEATS for k in range(NUM_SEATS)]

    def _answer_ace_no_face(self, throw_in: bool) -> None:
        seat = self.current
        if throw_in:
            self._throw_in(
                "ace_no_face",
                seat,
                f"Seat {seat} throws the hand in (an ace and no face card)",
            )
            return
        # Keeping is silent at the table, so only the seat itself sees it.
        self.events.append(
            Event("keep_hand", f"Seat {seat} keeps the hand", seat, {}, visible_to=(seat,))
        )
        self.ace_no_face_to_ask.pop(0)
        if self.ace_no_face_to_ask:
            self.current = self.ace_no_face_to_ask[0]
        else:
            self._open_bidding()

    def _throw_in(self, reason: str, seat: int | None, text: str) -> None:
        """The hand scores nothing; the deal passes left and a new hand is dealt."""
        self.events.append(
            Event(
                "throw_in",
                text,
                seat,
                {"reason": reason, "dealer": self.dealer, "hand_number": self.hand_number},
            )
        )
        self.dealer = (self.dealer + 1) % NUM_SEATS
        self._deal()

    # -- auction --------------------------------------------------------------------------

    def _open_bidding(self) -> None:
        self.phase = BIDDING
        self.current = (self.dealer + 1) % NUM_SEATS
        self._legal = CALLS_ABOVE[PASS]

    def _call(self, call: int) -> None:
        seat = self.current
        made, text = _CALLS_MADE[seat][call]
        self.calls.append(made)
        if call > self.high_call:
            self.high_call, self.high_caller = call, seat
        self.events.append(Event("call", text, seat, {"call": CALLS[call]}))
        if seat != self.dealer:
            self.current = (seat + 1) % NUM_SEATS
            forced = dealer_stuck(self.stick_the_dealer, self.current, self.dealer, self.high_call)
            self._legal = STUCK_DEALER_CALLS if forced else CALLS_ABOVE[self.high_call]
        elif self.high_caller is None:
            self._throw_in("all_pass", None, "All four pass: the hand is thrown in")
        else:
            self.declarer, self.contract = self.high_caller, self.high_call
            self.phase = TRUMP
            self.current = self.declarer
            self._legal = TRUMP_ACTIONS

    # -- trump and the ASK exchange -------------------------------------------------------

    def _name_trump(self, suit: str) -> None:
        declarer = self.current
        self.trump = suit
        self.events.append(
            Event(
                "trump",
                f"Seat {declarer} names {SUIT_NAMES[suit]} trump",
                declarer,
                {"trump": suit},
            )
        )
        if self.contract == ASK:
            self.phase = ASK_GIVE
            self._legal = [GIVE_ACTION[card] for card in self.hands[declarer]]
            return
        if self.contract == MOON:
            self.sitting_out = partner_of(declarer)
        self._open_play()

    def _give(self, card: Card) -> None:
        """The declarer passes one card face down; it stays dead with partner's hand."""
        declarer = self.current
        partner = partner_of(declarer)
        dealt = self.hands[partner]
        self.hands[declarer].remove(card)
        self.hands[partner] = sorted([*dealt, card], key=CARD_ORDER.__getitem__)
        self.card_given = card
        self.events.append(
            Event(
                "give",
                f"Seat {declarer} gives {pretty(card)} to partner",
                declarer,
                {"card": card},
                visible_to=tuple(sorted((declarer, partner))),
            )
        )
        self.phase = ASK_RETURN
        self.current = partner
        assert self.trump is not None
        self._legal = [RETURN_ACTION[card] for card in returnable(dealt, self.trump)]

    def _return(self, card: Card) -> None:
        partner = self.current
        declarer = partner_of(partner)
        self.hands[partner].remove(card)
        self.hands[declarer] = sorted([*self.hands[declarer], card], key=CARD_ORDER.__getitem__)
        self.card_returned = card
        self.events.append(
            Event(
                "return",
                f"Seat {partner} returns {pretty(card)}",
                partner,
                {"card": card},
                visible_to=tuple(sorted((declarer, partner))),
            )
        )
        self.sitting_out = partner
        self._open_play()

    # -- play -----------------------------------------------------------------------------

    def _open_play(self) -> None:
        """The declarer leads the first trick, alone or not; any card may be led."""
        assert self.declarer is not None
        self.phase = PLAY
        self.current = self.declarer
        self._trick_size = NUM_SEATS if self.sitting_out is None else NUM_SEATS - 1
        self._next_seat: list[int] = [
            seat_after(seat, NUM_SEATS, self.sitting_out) for seat in range(NUM_SEATS)
        ]
        self._legal = [PLAY_ACTION[card] for card in self.hands[self.declarer]]

    def _play(self, card: Card) -> None:
        seat = self.current
        self.hands[seat].remove(card)
        trick = self.trick
        played, text = _PLAYS[seat][card]
        trick.append(played)
        self.events.append(Event("play", text, seat, {"card": card}))
        if len(trick) == self._trick_size:
            self._finish_trick()
            return
        assert self.trump is not None
        following = self._next_seat[seat]
        self.current = following
        playable = follows(self.hands[following], trick[0].card, self.trump)
        self._legal = [PLAY_ACTION[c] for c in playable]

    def _finish_trick(self) -> None:
        assert self.trump is not None
        trump = self.trump
        cards = tuple(self.trick)
        winner = trick_winner(
            cards, trump, EFFECTIVE_SUIT[trump].__getitem__, STRENGTH[trump].__getitem__
        )
        self.tricks.append(Trick(cards[0].seat, cards, winner))
        self.trick = []
        self.tricks_won[SEAT_TEAMS[winner]] += 1
        self.events.append(
            Event(
                "trick",
                _TAKES[winner],
                winner,
                {
                    "leader": cards[0].seat,
                    "cards": [{"seat": p.seat, "card": p.card} for p in cards],
                    "winner": winner,
                },
            )
        )
        if len(self.tricks) == TRICKS_PER_HAND:
            self._score_hand()
        else:
            self.current = winner
            self._legal = [PLAY_ACTION[card] for card in self.hands[winner]]

    # -- scoring and the end ----------------------------------------------------------------

    def _score_hand(self) -> None:
        """Apply the scoring table, then end the game or deal the next hand."""
        assert self.declarer is not None and self.contract is not None
        contract = self.contract
        bidders = SEAT_TEAMS[self.declarer]
        taken = self.tricks_won[bidders]
        made = taken >= TRICKS_NEEDED[contract]
        points = [0, 0]
        if made:
            points[bidders] = ALONE_MADE_POINTS.get(contract, taken)
        else:
            points[bidders] = -SET_COST[contract]
        points[1 - bidders] = TRICKS_PER_HAND - taken  # defenders always score their tricks
        for team in (0, 1):
            self.team_scores[team] += points[team]
        self.hands_scored += 1
        outcome = "made" if made else "set"
        self.events.append(
            Event(
                "hand_end",
                f"Hand {self.hand_number}: {CALL_SHOWN[contract]} by seat {self.declarer} "
                f"{outcome} with {count(taken, 'trick')}; points {points[0]:+d}/{points[1]:+d}, "
                f"scores {self.team_scores[0]}:{self.team_scores[1]}",
                None,
                {
                    "hand_number": self.hand_number,
                    "declarer": self.declarer,
                    "contract": CALLS[contract],
                    "trump": self.trump,
                    "made": made,
                    "tricks": list(self.tricks_won),
                    "points": points,
                    "scores": list(self.team_scores),
                },
            )
        )
        a, b = self.team_scores
        if max(a, b) >= GAME_TARGET and a != b:
            self._end_game(0 if a > b else 1)
        elif self.hands_scored >= self.max_hands:
            self._end_game(None if a == b else (0 if a > b else 1))
        else:
            self.dealer = (self.dealer + 1) % NUM_SEATS
            self._deal()

    def _end_game(self, winning_team: int | None) -> None:
        self.winning_team = winning_team
        self.phase = GAME_OVER
        self.current = -1
        self._legal = []
        a, b = self.team_scores
        text = (
            f"Draw at {a}:{b} after {self.hands_scored} hands"
            if winning_team is None
            else f"Team {winning_team} wins {a}:{b}"
        )
        self.events.append(
            Event(
                "game_end",
                text,
                None,
                {
                    "winner": winning_team,
                    "scores": list(self.team_scores),
                    "hands_scored": self.hands_scored,
                },
            )
        )

    # -- observation ----------------------------------------------------------------------

    def observation(self, seat: int) -> BidEuchreObservation:
        """The one place that decides what a seat sees: its own cards, the public record,
        and the exchanged cards only for the two seats of an ``ASK``. The dead hand of a
        seat that sits out is shown to nobody but its holder.
        """
        if not 0 <= seat < NUM_SEATS:
            raise ValueError(f"bid-euchre has seats 0..3, not {seat}")
        exchange = (
            (self.declarer, partner_of(self.declarer))
            if self.contract == ASK and self.declarer is not None
            else ()
        )
        in_exchange = seat in exchange
        return BidEuchreObservation(
            seat=seat,
            dealer=self.dealer,
            phase=self.phase,
            hand_number=self.hand_number,
            hand=tuple(self.hands[seat]),
            calls=tuple(self.calls),
            declarer=self.declarer,
            contract=None if self.contract is None else CALLS[self.contract],
            trump=self.trump,
            sitting_out=self.sitting_out,
            joker=self.joker,
            discarded=self.discarded if seat == self.dealer else None,
            card_given=self.card_given if in_exchange else None,
            card_returned=self.card_returned if in_exchange else None,
            trick=tuple(self.trick),
            tricks=tuple(self.tricks),
            tricks_won=tuple(self.tricks_won),
            scores=tuple(self.team_scores),
            hand_sizes=tuple(len(hand) for hand in self.hands),
        )


# --- Observation -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BidEuchreCallMade:
    """One call of the auction: ``call`` is pass, three, four, five, ask or moon."""

    seat: int
    call: str


@dataclass(frozen=True, slots=True)
class BidEuchreObservation:
    """What one seat may know; fields mirror the proto ``BidEuchreObservation`` by name.

    ``hand_number`` counts every deal, thrown-in hands included (``max_hands`` counts
    only scored ones). ``contract`` and ``trump`` are ``None`` until set;
    ``card_given``/``card_returned`` are set only for the declarer and partner of an
    ``ASK``. ``hand_sizes`` counts the dead hand of a seat sitting out (it holds its
    cards face down). ``joker`` says the variant is on; ``discarded`` is the dealer's
    face-down card, set for the dealer only.
    """

    seat: int
    dealer: int
    phase: str
    hand_number: int
    hand: tuple[Card, ...]
    calls: tuple[BidEuchreCallMade, ...]
    declarer: int | None
    contract: str | None
    trump: str | None
    sitting_out: int | None
    joker: bool
    discarded: Card | None
    card_given: Card | None
    card_returned: Card | None
    trick: tuple[PlayedCard, ...]
    tricks: tuple[Trick, ...]
    tricks_won: tuple[int, ...]
    scores: tuple[int, ...]
    hand_sizes: tuple[int, ...]


# --- Made once -----------------------------------------------------------------------------

_PLAYS: tuple[dict[Card, tuple[PlayedCard, str]], ...] = tuple(
    {card: (PlayedCard(seat, card), f"Seat {seat} plays {pretty(card)}") for card in JOKER_CARDS}
    for seat in range(NUM_SEATS)
)
"""Each seat's play of each card and its event's text, by seat and card. Played cards are
frozen, so tricks share them; play is most of a match's decisions."""

_CALLS_MADE: tuple[tuple[tuple[BidEuchreCallMade, str], ...], ...] = tuple(
    tuple(
        (
            BidEuchreCallMade(seat, CALLS[call]),
            f"Seat {seat} passes" if call == PASS else f"Seat {seat} calls {CALL_SHOWN[call]}",
        )
        for call in range(len(CALLS))
    )
    for seat in range(NUM_SEATS)
)
"""Each seat's each call and its event's text, by seat and call index, shared as ``_PLAYS``."""

_TAKES = tuple(f"Seat {seat} takes the trick" for seat in range(NUM_SEATS))
"""The text of a trick's event, by its winner."""
