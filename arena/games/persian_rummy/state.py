"""Persian Rummy's state: ``PersianRummyState``, a match of two deals from the draw for the first
dealer through every turn to the scoring (``PersianRummyLegal`` works out the options of each
turn). Part of the engine ``arena.games.persian_rummy.game``, which exports these names.
"""

from __future__ import annotations

import random

from arena.games.api import GAME_OVER, Deal, DealError, Event, GameError, Options
from arena.games.cards import Card, pretty
from arena.games.persian_rummy.actions import (
    CARD_INDEX,
    CARDS,
    DISCARD_BASE,
    DRAW_RANK,
    DRAW_STOCK,
    GAME_INFO,
    GOING_OUT_BONUS,
    HAND_SIZE,
    JOKER_RANK,
    LAYOFF_BASE,
    MELD_BASE,
    MELD_CARDS,
    NUM_CARDS,
    NUM_DEALS,
    NUM_SEATS,
    PASS,
    PASSES_TO_END,
    PRETTY,
    SEAT_TEAMS,
    SUIT_BIT,
    TAKE_BASE,
    VALUE,
    bits,
    describe,
    layoff_parts,
    mask_codes,
)
from arena.games.persian_rummy.legal import Meld, PersianRummyLegal
from arena.games.persian_rummy.observation import (
    PersianRummyDiscard,
    PersianRummyObservation,
    PersianRummySeatCards,
    PersianRummyTableMeld,
)
from arena.games.persian_rummy.position import (
    DRAW,
    MELD,
    USE_CHOSEN,
    PersianRummyPosition,
    canonical,
    cards_mask,
    check_position,
    progress_problem,
)


class PersianRummyState(PersianRummyLegal):
    """One match of two deals.

    Hands are kept as two bit masks per seat: ``hands`` over card indices (bit ``4 * rank
    + suit``, so a rank's suits are four adjacent bits) and ``suit_masks`` suit-major (bit
    ``16 * suit + rank``, so a suit's ranks are adjacent). The legal actions are computed
    once after every change and kept, so asking for them does not alter the state; so
    are the observation parts all seats share (pile, melds, known cards), as tuples of
    frozen values that observations hand out as they are.
    """

    game_info = GAME_INFO
    known_view: tuple[PersianRummySeatCards, ...]
    """Per seat, the pile cards it took and still holds (public), as observations show it."""
    _known_changed: bool
    """The acting seat's publicly known cards changed during this action (only the actor's
    ever do): rebuild that entry of ``known_view``."""

    def __init__(
        self,
        seed: int,
        options: Options,
        deal: Deal | None = None,
        position: PersianRummyPosition | None = None,
    ) -> None:
        self._rng = random.Random(seed)
        self.events: list[Event] = []
        self.team_scores = [0, 0]
        self.deal_number = 0
        self.winning_team: int | None = None
        self.from_position = position is not None
        self.out_of_play: tuple[Card, ...] = ()
        if position is not None:
            self._set_position(position)
            return
        draws: list[list[tuple[int, Card]]] | None = None
        if deal is None or deal.dealer is None:
            draws, self.first_dealer = self._draw_for_first_dealer()
        else:
            self.first_dealer = deal.dealer
        self.dealer = self.first_dealer
        if deal is None:
            self._deal(draws)
            return
        self.dealer = deal.check(
            GAME_INFO.name,
            CARDS,
            lambda _: [HAND_SIZE] * NUM_SEATS,
            self.dealer,
            "the stock, top card first",
            teams=GAME_INFO.num_teams,
            progress=progress_problem,
        )
        self.team_scores = list(deal.start_scores(GAME_INFO.num_teams))
        self.deal_number = deal.deal_number
        if deal.dealer is None and self.deal_number > 1:
            # The seed drew the first dealer; deal 2 is dealt by his left, with no draw.
            self.dealer = (self.first_dealer + 1) % NUM_SEATS
            draws = None
        self.first_dealer = (self.dealer - self.deal_number + 1) % NUM_SEATS
        hands = [sum(1 << CARD_INDEX[card] for card in hand) for hand in deal.hands]
        self._begin_deal(hands, [CARD_INDEX[card] for card in deal.rest], draws, deal.scores)

    # -- the contract --------------------------------------------------------------------

    def initial_deal(self) -> Deal:
        if self.from_position:
            raise GameError(
                "persian-rummy: this match started from a position (from_position), not a "
                "deal; position() reads a deal in progress"
            )
        return super().initial_deal()

    def position(self) -> PersianRummyPosition:
        """The deal in progress as a ``PersianRummyPosition``: given to
        ``PersianRummyGame.from_position``, it goes on as this state does (later deals
        come from the seed given there). Cards are in canonical order wherever order does
        not matter. A finished match has no position (``GameError``)."""
        if self.phase == GAME_OVER:
            raise GameError("persian-rummy: the match is over; a position is a deal in progress")
        return PersianRummyPosition(
            hands=tuple(mask_codes(hand) for hand in self.hands),
            to_act=self.current,
            dealer=self.dealer,
            phase=self.phase,
            stock=tuple(CARDS[card] for card in reversed(self.stock)),
            pile=self.pile_views,
            melds=self.meld_views,
            known=tuple(mask_codes(known) for known in self.known),
            chosen=CARDS[self.chosen] if self.chosen >= 0 else None,
            passes=self.passes,
            deal_number=self.deal_number,
            scores=tuple(self.team_scores),
            out_of_play=self.out_of_play,
        )

    def action_text(self, action: int) -> str:
        return describe(action)[0]

    def action_payload(self, action: int) -> tuple[str, object]:
        return describe(action)[1]

    def _apply(self, action: int) -> None:
        actor = self.current
        if action >= DISCARD_BASE:
            self._discard(action - DISCARD_BASE)
        elif action >= LAYOFF_BASE:
            meld, cards = layoff_parts(action)
            self._layoff(meld, cards)
        elif action >= MELD_BASE:
            self._meld(MELD_CARDS[action])
        elif action == DRAW_STOCK:
            self._draw()
        elif action == PASS:
            self._pass()
        else:
            self._take(action - TAKE_BASE)
        if self._known_changed:
            self._known_changed = False
            views = list(self.known_view)
            views[actor] = PersianRummySeatCards(actor, mask_codes(self.known[actor]))
            self.known_view = tuple(views)

    # -- first dealer and the deal ---------------------------------------------------------

    def _draw_for_first_dealer(self) -> tuple[list[list[tuple[int, Card]]], int]:
        """Each candidate in seat order takes a card of a fresh shuffle; lowest deals, the
        players tied for lowest draw again."""
        candidates = list(range(NUM_SEATS))
        rounds: list[list[tuple[int, Card]]] = []
        while True:
            deck = list(range(NUM_CARDS))
            self._rng.shuffle(deck)
            drawn = list(zip(candidates, deck, strict=False))
            rounds.append([(seat, CARDS[card]) for seat, card in drawn])
            low = min(DRAW_RANK[card] for _, card in drawn)
            candidates = [seat for seat, card in drawn if DRAW_RANK[card] == low]
            if len(candidates) == 1:
                return rounds, candidates[0]

    def _deal(self, draws: list[list[tuple[int, Card]]] | None = None) -> None:
        """Fresh shuffle; seven cards each one at a time from the dealer's left; the rest is
        the stock, whose top card is turned up."""
        self.deal_number += 1
        deck = list(range(NUM_CARDS))
        self._rng.shuffle(deck)
        dealt = [0] * NUM_SEATS
        for k in range(HAND_SIZE * NUM_SEATS):
            dealt[(self.dealer + 1 + k) % NUM_SEATS] |= 1 << deck[k]
        self._begin_deal(dealt, deck[HAND_SIZE * NUM_SEATS :], draws)

    def _begin_deal(
        self,
        hands: list[int],
        stock_top_first: list[int],
        draws: list[list[tuple[int, Card]]] | None = None,
        scores: tuple[int, ...] | None = None,
    ) -> None:
        """Start a deal from dealt hands (card masks) and the stock, top card first."""
        self.hands = list(hands)
        self.out_of_play = ()
        if self._first_deal is None and not self.from_position:
            self._first_deal = Deal(
                tuple(mask_codes(h) for h in hands),
                self.dealer,
                tuple(CARDS[c] for c in stock_top_first),
                scores,
                self.deal_number,
            )
        self.suit_masks = [self._suit_mask(h) for h in hands]
        self.known = [0] * NUM_SEATS
        self.known_view = tuple(PersianRummySeatCards(s, ()) for s in range(NUM_SEATS))
        self._known_changed = False
        self.stock = stock_top_first[::-1]  # the top card is the list's end
        self.melds: list[Meld] = []
        self.meld_views: tuple[PersianRummyTableMeld, ...] = ()
        self.set_of_rank = [-1] * (JOKER_RANK + 1)
        self.open_sets = 0  # bit per rank (jokers 13) with a set of three on the table
        self.runs_of_suit: list[list[Meld]] = [[] for _ in range(4)]
        self.table_points = [0, 0]
        self.passes = 0
        self.chosen = -1
        self._announce_deal(stock_top_first, draws)
        up = self.stock.pop()
        self.pile = [up]
        self.pile_views: tuple[PersianRummyDiscard, ...] = (PersianRummyDiscard(CARDS[up], None),)
        self.events.append(
            Event("turn_up", f"{PRETTY[up]} is turned up", None, {"card": CARDS[up]})
        )
        self._start_turn((self.dealer + 1) % NUM_SEATS)

    def _announce_deal(
        self, stock_top_first: list[int], draws: list[list[tuple[int, Card]]] | None
    ) -> None:
        """The deal's events: the hands and stock (seen by no seat), then the draw for the
        first dealer when there was one."""
        self.events.append(
            Event(
                "deal",
                f"Deal {self.deal_number}: seat {self.dealer} deals",
                self.dealer,
                {
                    "dealer": self.dealer,
                    "deal_number": self.deal_number,
                    "hands": [list(mask_codes(h)) for h in self.hands],
                    "stock": [CARDS[c] for c in stock_top_first],
                },
                visible_to=(),
            )
        )
        if draws is not None:
            shown = "; ".join(
                ", ".join(f"seat {seat} {pretty(card)}" for seat, card in one) for one in draws
            )
            self.events.append(
                Event(
                    "dealer_draw",
                    f"Draw for the first deal: {shown}; seat {self.dealer} deals",
                    None,
                    {
                        "draws": [[{"seat": s, "card": c} for s, c in one] for one in draws],
                        "dealer": self.dealer,
                    },
                )
            )

    def _set_position(self, position: PersianRummyPosition) -> None:
        """Take on a deal in progress, checked by ``check_position``."""
        check_position(position)
        self.dealer = position.dealer
        self.deal_number = position.deal_number
        self.first_dealer = (self.dealer - self.deal_number + 1) % NUM_SEATS
        self.team_scores = list(position.scores or (0, 0))
        self.out_of_play = canonical(position.out_of_play)
        self.hands = [cards_mask(hand) for hand in position.hands]
        self.suit_masks = [self._suit_mask(hand) for hand in self.hands]
        self.known = [cards_mask(known) for known in position.known]
        self.known_view = tuple(
            PersianRummySeatCards(seat, mask_codes(self.known[seat])) for seat in range(NUM_SEATS)
        )
        self._known_changed = False
        self.stock = [CARD_INDEX[card] for card in reversed(position.stock)]
        self.melds = []
        self.set_of_rank = [-1] * (JOKER_RANK + 1)
        self.open_sets = 0
        self.runs_of_suit = [[] for _ in range(4)]
        self.table_points = [0, 0]
        for table_meld in position.melds:
            placed = sorted((CARD_INDEX[p.card], p.seat) for p in table_meld.cards)
            meld = Meld(table_meld.id, tuple(card for card, _ in placed), table_meld.melded_by)
            meld.cards = placed
            meld.doubled = table_meld.doubled
            self.melds.append(meld)
            if meld.is_run:
                self.runs_of_suit[meld.suit].append(meld)
            else:
                self.set_of_rank[meld.rank] = meld.id
                if meld.missing >= 0:
                    self.open_sets |= 1 << meld.rank
            for card, seat in placed:
                self.table_points[SEAT_TEAMS[seat]] += VALUE[card]
            if meld.doubled:
                self.table_points[SEAT_TEAMS[meld.by]] += sum(VALUE[card] for card, _ in placed)
        self.meld_views = tuple(meld.frozen() for meld in self.melds)
        self.pile = [CARD_INDEX[discard.card] for discard in position.pile]
        self.pile_views = tuple(PersianRummyDiscard(d.card, d.seat) for d in position.pile)
        self.passes = position.passes
        self.current = seat = position.to_act
        self.phase = position.phase
        self.chosen = -1
        if self.phase == DRAW:
            self._legal = self._draw_options(seat)
        elif self.phase == MELD:
            self._legal = self._meld_options(seat, -1)
        else:
            assert position.chosen is not None
            self.chosen = CARD_INDEX[position.chosen]
            self._legal = self._meld_options(seat, self.chosen)
            if not self._legal:
                raise DealError(
                    f"persian-rummy: the chosen card {position.chosen} can be neither melded "
                    f"nor laid off by seat {seat}, and a card taken from the pile must be "
                    "used at once (a take is only legal when it can)"
                )

    # -- turns ----------------------------------------------------------------------------

    def _draw(self) -> None:
        seat = self.current
        card = self.stock.pop()
        self._add_to_hand(seat, card)
        self.events.append(
            Event(
                "draw",
                f"Seat {seat} draws from the stock ({len(self.stock)} left)",
                seat,
                {"stock_size": len(self.stock)},
            )
        )
        self.events.append(
            Event(
                "stock_card",
                f"Seat {seat} draws {PRETTY[card]}",
                seat,
                {"card": CARDS[card]},
                visible_to=(seat,),
            )
        )
        self.passes = 0
        self.phase = MELD
        self._legal = self._meld_options(seat, -1)

    def _take(self, index: int) -> None:
        seat = self.current
        taken = self.pile[index:]
        del self.pile[index:]
        self.pile_views = self.pile_views[:index]
        for card in taken:
            self._add_to_hand(seat, card)
            self.known[seat] |= 1 << card
        self._known_changed = True
        chosen = taken[0]
        codes = [CARDS[c] for c in taken]
        self.events.append(
            Event(
                "take",
                f"Seat {seat} takes {' '.join(PRETTY[c] for c in taken)} from the pile",
                seat,
                {"index": index, "chosen": codes[0], "cards": codes},
            )
        )
        self.passes = 0
        self.chosen = chosen
        self.phase = USE_CHOSEN
        self._legal = self._meld_options(seat, chosen)

    def _pass(self) -> None:
        seat = self.current
        self.passes += 1
        self.events.append(Event("pass", f"Seat {seat} passes", seat, {"passes": self.passes}))
        if self.passes >= PASSES_TO_END:
            self._score_deal(None)
        else:
            self._start_turn((seat + 1) % NUM_SEATS)

    def _meld(self, cards: tuple[int, ...]) -> None:
        seat = self.current
        meld = Meld(len(self.melds), cards, seat)
        self.melds.append(meld)
        self.meld_views = (*self.meld_views, meld.frozen())
        if meld.is_run:
            self.runs_of_suit[meld.suit].append(meld)
        else:
            self.set_of_rank[meld.rank] = meld.id
            if meld.missing >= 0:
                self.open_sets |= 1 << meld.rank
        points = sum(VALUE[c] for c in cards) * (2 if meld.doubled else 1)
        self.table_points[SEAT_TEAMS[seat]] += points
        for card in cards:
            self._remove_from_hand(seat, card)
        codes = [CARDS[c] for c in cards]
        self.events.append(
            Event(
                "meld",
                f"Seat {seat} melds {' '.join(PRETTY[c] for c in cards)}"
                + (" (four at once, double)" if meld.doubled else ""),
                seat,
                {
                    "meld": meld.id,
                    "kind": "run" if meld.is_run else "set",
                    "cards": codes,
                    "doubled": meld.doubled,
                    "points": points,
                },
            )
        )
        self._after_table_play(seat)

    def _layoff(self, meld_id: int, cards: tuple[int, ...]) -> None:
        seat = self.current
        meld = self.melds[meld_id]
        meld.add(cards, seat)
        if not meld.is_run:
            self.open_sets &= ~(1 << meld.rank)
        views = list(self.meld_views)
        views[meld_id] = meld.frozen()
        self.meld_views = tuple(views)
        points = sum(VALUE[c] for c in cards)
        self.table_points[SEAT_TEAMS[seat]] += points
        for card in cards:
            self._remove_from_hand(seat, card)
        codes = [CARDS[c] for c in cards]
        self.events.append(
            Event(
                "layoff",
                f"Seat {seat} lays off {' '.join(PRETTY[c] for c in cards)} on meld {meld_id}",
                seat,
                {"meld": meld_id, "cards": codes, "points": points},
            )
        )
        self._after_table_play(seat)

    def _after_table_play(self, seat: int) -> None:
        self.chosen = -1
        if not self.hands[seat]:
            self.events.append(
                Event("go_out", f"Seat {seat} goes out", seat, {"bonus": GOING_OUT_BONUS})
            )
            self._score_deal(seat)
            return
        self.phase = MELD
        self._legal = self._meld_options(seat, -1)

    def _discard(self, card: int) -> None:
        seat = self.current
        self._remove_from_hand(seat, card)
        self.pile.append(card)
        self.pile_views = (*self.pile_views, PersianRummyDiscard(CARDS[card], seat))
        self.events.append(
            Event(
                "discard",
                f"Seat {seat} discards {PRETTY[card]}",
                seat,
                {"card": CARDS[card]},
            )
        )
        self._start_turn((seat + 1) % NUM_SEATS)

    def _add_to_hand(self, seat: int, card: int) -> None:
        self.hands[seat] |= 1 << card
        self.suit_masks[seat] |= SUIT_BIT[card]

    def _remove_from_hand(self, seat: int, card: int) -> None:
        self.hands[seat] &= ~(1 << card)
        self.suit_masks[seat] &= ~SUIT_BIT[card]
        if self.known[seat] >> card & 1:
            self.known[seat] ^= 1 << card
            self._known_changed = True

    # -- scoring and the end ----------------------------------------------------------------

    def _score_deal(self, went_out: int | None) -> None:
        """Table cards, minus cards left in hand, plus 25 for going out; then the next deal
        or the end of the game."""
        in_hand = [0, 0]
        for seat in range(NUM_SEATS):
            in_hand[SEAT_TEAMS[seat]] += sum(VALUE[c] for c in bits(self.hands[seat]))
        bonus = [0, 0]
        if went_out is not None:
            bonus[SEAT_TEAMS[went_out]] = GOING_OUT_BONUS
        points = [self.table_points[t] - in_hand[t] + bonus[t] for t in (0, 1)]
        for team in (0, 1):
            self.team_scores[team] += points[team]
        how = f"seat {went_out} went out" if went_out is not None else "four passes"
        self.events.append(
            Event(
                "hand_end",
                f"Deal {self.deal_number} ends ({how}): points {points[0]:+d}/{points[1]:+d}, "
                f"scores {self.team_scores[0]}:{self.team_scores[1]}",
                None,
                {
                    "deal_number": self.deal_number,
                    "went_out": went_out,
                    "table": list(self.table_points),
                    "in_hand": in_hand,
                    "bonus": bonus,
                    "points": points,
                    "hands": [list(mask_codes(h)) for h in self.hands],
                    "scores": list(self.team_scores),
                },
            )
        )
        if self.deal_number >= NUM_DEALS:
            self._end_game()
        else:
            self.dealer = (self.first_dealer + 1) % NUM_SEATS
            self._deal()

    def _end_game(self) -> None:
        a, b = self.team_scores
        self.winning_team = None if a == b else (0 if a > b else 1)
        self.phase = GAME_OVER
        self.current = -1
        self.chosen = -1
        self._legal = []
        text = (
            f"Draw at {a}:{b}"
            if self.winning_team is None
            else (f"Team {self.winning_team} wins {a}:{b}")
        )
        self.events.append(
            Event("game_end", text, None, {"winner": self.winning_team, "scores": [a, b]})
        )

    # -- observation ----------------------------------------------------------------------

    def observation(self, seat: int) -> PersianRummyObservation:
        """The one place that decides what a seat sees: its own hand and the public table
        (pile, melds, sizes, and the pile cards each seat took and still holds)."""
        if not 0 <= seat < NUM_SEATS:
            raise ValueError(f"persian-rummy has seats 0..3, not {seat}")
        # Positional, in the dataclass's field order: half the cost of keywords, and this
        # runs for every decision of every match.
        return PersianRummyObservation(
            seat,
            self.deal_number,
            self.dealer,
            self.phase,
            mask_codes(self.hands[seat]),
            self.pile_views,
            self.meld_views,
            len(self.stock),
            tuple(map(int.bit_count, self.hands)),
            tuple(self.team_scores),
            tuple(self.table_points),
            CARDS[self.chosen] if self.chosen >= 0 else None,
            self.passes,
            self.known_view,
        )
