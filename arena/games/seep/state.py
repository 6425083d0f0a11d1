"""Seep's state: ``SeepState``, a match from the first deal to the last bazzi (``SeepDeals``
starts each deal, ``SeepPlays`` makes the plays), with the scoring of deals and bazzis and the
observation. Part of the engine ``arena.games.seep.game``, which exports these names.
"""

from __future__ import annotations

import random

from arena.games.api import GAME_OVER, Deal, Event, GameError, Options
from arena.games.seep.actions import (
    BAZZI_TARGET,
    BREAK,
    CAPTURE,
    CARD_INDEX,
    CARDS,
    FULL,
    GAME_INFO,
    MAX_HEAD,
    MIN_DEAL_SCORE,
    NUM_SEATS,
    PLAYS_PER_DEAL,
    RANK_BITS,
    THROW,
    VOID_BAZZI_SAME_DEALER,
    card_codes,
    decode,
    loose_cards,
    play_payload,
    play_text,
)
from arena.games.seep.deal import SeepDeals
from arena.games.seep.observation import (
    OWNER_SEATS,
    OWNER_TEXT,
    SeepDealResult,
    SeepHouse,
    SeepObservation,
)
from arena.games.seep.plays import BIDDING, pretty_indices, team_of
from arena.games.seep.position import PlacedHouse, SeepPosition

HEADS: tuple[tuple[int, int, int], ...] = tuple(
    (*divmod(head // 5, 52), head % 5) for head in range(MAX_HEAD + 1)
)
"""Kind, card and slot of each head of an id (``action >> RANK_BITS``)."""
RANK_MASK = FULL - 1
"""The rank part of an id."""


class SeepState(SeepDeals):
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
            hands=tuple(map(card_codes, self.hands)),
            loose=card_codes(self.face_down if before_bid else self.loose),
            houses=tuple(
                [
                    PlacedHouse(value, card_codes(house.cards), OWNER_SEATS[house.owners])
                    for value, house in sorted(self.houses.items())
                ]
            ),
            piles=tuple(map(card_codes, self.piles)),
            sweeps=tuple(map(tuple, self.sweep_bonuses)),
            last_capture=self.last_capture_team,
            stock=card_codes(self.stock),
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
        return play_text(decode(action))

    def action_payload(self, action: int) -> tuple[str, object]:
        return play_payload(decode(action))

    def _apply(self, action: int) -> None:
        if self.phase == BIDDING:
            self._bid(9 + (action >> RANK_BITS))
            return
        kind, card, slot = HEADS[action >> RANK_BITS]
        seat = self.current
        self.hands[seat].remove(card)
        rank = action & RANK_MASK
        taken = loose_cards(rank) if rank else []
        for c in taken:
            self.loose.remove(c)
        if kind == THROW:
            self._throw(seat, card)
        elif kind == CAPTURE:
            self._capture(seat, card, taken)
        elif kind == BREAK:
            self._break(seat, card, 9 + slot, taken)
        else:
            self._house(seat, kind, card, 9 + slot, taken)
        self._next_play()

    def public_table(self) -> str:
        """The floor as everyone sees it, for replays: loose cards, then the houses."""
        parts = [pretty_indices(self.loose)] if self.loose else []
        for value, house in sorted(self.houses.items()):
            cemented = " cemented" if house.total > value else ""
            owners = OWNER_TEXT[house.owners]
            parts.append(
                f"house {value}{cemented} [{pretty_indices(house.cards)}] of seat {owners}"
            )
        return "Floor: " + ("; ".join(parts) or "empty")

    # -- a position ------------------------------------------------------------------------

    @classmethod
    def _at_position(cls, position: SeepPosition, seed: int, options: Options) -> SeepState:
        """A state at ``position``, already checked (``SeepGame.from_position`` checks)."""
        state = cls.__new__(cls)
        state._start_at(position, seed, options)
        return state

    # -- plays ------------------------------------------------------------------------------

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
                    f"Team {team} takes the cards left on the floor: {pretty_indices(left)}",
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
        keeps the deal, and a leading dealer's team passes it on. A void bazzi is decided
        too: the undecided rule picks the dealer (a difference of 0), and its partner deals
        (rules §8; ``VOID_BAZZI_SAME_DEALER`` was the engine's rule before)."""
        dealer = self.dealer
        dealer_team = team_of(dealer)
        if over and winner is not None:
            return (dealer + 3) % NUM_SEATS if winner == dealer_team else (dealer + 2) % 4
        if over and VOID_BAZZI_SAME_DEALER not in self.former:
            return (dealer + 2) % NUM_SEATS
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
                    card_codes(house.cards),
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
            hand=card_codes(self.hands[seat]),
            loose=card_codes(self.loose),
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
            redeal_cards=card_codes(self.redeal_cards),
        )
