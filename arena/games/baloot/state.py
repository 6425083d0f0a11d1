"""Baloot's state: ``BalootState``, a match through the bidding, the doubling, the
declarations and the play of each round (``BalootRounds`` deals and scores them). Part
of the engine ``arena.games.baloot.game``, which exports these names.
"""

from __future__ import annotations

import random

from arena.games.api import Deal, Event, Options
from arena.games.baloot.actions import (
    ABNAT,
    ACTION_PAYLOADS,
    ACTION_TEXTS,
    ASHKAL,
    BIDS,
    CARDS,
    CHOOSE_HOKUM_BASE,
    CHOOSE_SUN,
    DECLARATIONS,
    DECLARE_BASE,
    DECLINE,
    DOUBLE,
    DOUBLINGS,
    FIRST_CARDS,
    GAHWA,
    GAME_INFO,
    GAME_TARGET,
    HOKUM,
    LAST_TRICK_BONUS,
    NUM_SEATS,
    PASS,
    PLAY_ACTION,
    PLAY_BASE,
    PROJECT_POINTS,
    PROJECTS,
    SEAT_TEAMS,
    STRENGTH,
    SUIT_OF,
    SUN,
    SUN_DOUBLING_THRESHOLD,
    TRICKS_PER_ROUND,
    TRIPLE,
    checked_action,
    declaration_text,
)
from arena.games.baloot.observation import (
    BalootBidMade,
    BalootDeclaredProject,
    BalootDoublingMade,
    BalootObservation,
)
from arena.games.baloot.rounds import (
    BIDDING,
    CLAIM_WINDOW,
    CONTRACT_CHOICE,
    DECLARING,
    DOUBLING,
    PLAYING,
    SECOND_TURN,
    BalootRounds,
    partner_of,
)
from arena.games.baloot.rules import declarable, doubling_calls, hokum_trumps, playable
from arena.games.cards import SUIT_NAMES, SUITS, Card, pretty
from arena.games.tricks import PlayedCard, Trick, seat_after, trick_winner


class BalootState(BalootRounds):
    """One match, from the first deal to 152, a Gahwa round, or the ``max_rounds`` safeguard.

    The legal actions are computed once after every change and kept, so asking for them
    is cheap and does not alter the state (``snapshot()`` stays stable).
    """

    game_info = GAME_INFO

    def __init__(self, seed: int, options: Options, deal: Deal | None = None) -> None:
        self._rng = random.Random(seed)
        self.max_rounds = int(options["max_rounds"])
        self.events: list[Event] = []
        self.team_scores = [0, 0]
        self.round_number = 0
        self.winning_team: int | None = None
        self.dealer = self._rng.randrange(NUM_SEATS)
        if deal is None:
            self._deal()
            return
        self.dealer = deal.check(
            GAME_INFO.name,
            CARDS,
            lambda _: [FIRST_CARDS] * NUM_SEATS,
            self.dealer,
            "the up-card, then the face-down cards in the order they are dealt",
            teams=GAME_INFO.num_teams,
            progress=self._progress_problem,
        )
        self.team_scores = list(deal.start_scores(GAME_INFO.num_teams))
        self.round_number = deal.deal_number - 1
        rest = list(deal.rest)
        self._begin_round([list(hand) for hand in deal.hands], rest[0], rest[1:], deal)

    def _progress_problem(self, scores: tuple[int, ...], deal_number: int) -> str | None:
        """What keeps a chosen deal's scores and deal number from a match in progress."""
        if min(scores) < 0:
            return f"scores are never negative in baloot, not {scores}"
        if max(scores) >= GAME_TARGET and len(set(scores)) > 1:
            return (
                f"scores {scores} would have ended the match: both must be below "
                f"{GAME_TARGET} unless they are equal"
            )
        if deal_number > self.max_rounds:
            return f"deal_number must be 1..{self.max_rounds} (max_rounds), not {deal_number}"
        return None

    # -- the contract --------------------------------------------------------------------

    def action_text(self, action: int) -> str:
        return ACTION_TEXTS[checked_action(action)]

    def action_payload(self, action: int) -> tuple[str, object]:
        return ACTION_PAYLOADS[checked_action(action)]

    def _apply(self, action: int) -> None:
        phase = self.phase
        if phase == PLAYING:
            self._play(CARDS[action - PLAY_BASE])
        elif phase == DECLARING:
            self._declare(DECLARATIONS[action - DECLARE_BASE])
        elif phase == DOUBLING:
            self._doubling(action)
        elif phase == CONTRACT_CHOICE:
            if action == CHOOSE_SUN:
                self._choose(None)
            else:
                self._choose(SUITS[action - CHOOSE_HOKUM_BASE])
        else:
            self._bid(action)

    # -- bidding --------------------------------------------------------------------------

    def _bid(self, bid: int) -> None:
        seat = self._to_call.pop(0)
        stage = self.phase
        self.bids.append(BalootBidMade(seat, BIDS[bid], self.bidding_round, stage))
        text = f"Seat {seat} passes" if bid == PASS else f"Seat {seat} calls {BIDS[bid]}"
        self.events.append(
            Event("bid", text, seat, {"bid": BIDS[bid], "round": self.bidding_round})
        )
        if stage == CLAIM_WINDOW:
            if bid == SUN:
                self._settle("sun", None, seat)
            elif self._to_call:
                self._ask_bid()
            else:
                assert self._claimed_call is not None
                caller, call = self._claimed_call
                self._settle("sun", None, caller if call == SUN else partner_of(caller))
            return
        if self.bidding_round == 2:
            if bid == SUN:
                self._settle("sun", None, seat)
                return
            if bid == HOKUM:
                self.hokum_caller = seat
        elif bid in (SUN, ASHKAL):
            self._open_claim_window(seat, bid)
            return
        elif bid == HOKUM:
            self.hokum_caller = seat
        if self._to_call:
            self._ask_bid()
            return
        if self.hokum_caller is None:
            if self.bidding_round == 1:
                self._open_second_round()
            else:
                self._throw_in()
        elif stage == BIDDING and self.bidding_round == 1:
            order = self._bidding_order()
            self._to_call = order[: order.index(self.hokum_caller)]
            if self._to_call:
                self.phase = SECOND_TURN
                self._ask_bid()
            else:
                self._ask_choice()
        else:
            self._ask_choice()

    def _open_claim_window(self, caller: int, call: int) -> None:
        """Every earlier bidder, in order, may take the contract as Sun (D1)."""
        order = self._bidding_order()
        self._to_call = order[: order.index(caller)]
        if not self._to_call:
            self._settle("sun", None, caller if call == SUN else partner_of(caller))
            return
        self._claimed_call = (caller, call)
        self.phase = CLAIM_WINDOW
        self._ask_bid()

    def _open_second_round(self) -> None:
        self.bidding_round = 2
        self.phase = BIDDING
        self._to_call = self._bidding_order()
        self.events.append(
            Event("second_round", "All pass: second round of bidding", None, {"round": 2})
        )
        self._ask_bid()

    def _ask_choice(self) -> None:
        """The Hokum caller keeps Hokum or switches to Sun; in round 2 keeping Hokum names a
        trump other than the up-card's suit."""
        assert self.hokum_caller is not None
        self.phase = CONTRACT_CHOICE
        self.current = self.hokum_caller
        suits = hokum_trumps(SUIT_OF[self.up_card], self.bidding_round)
        self._legal = [CHOOSE_SUN] + [CHOOSE_HOKUM_BASE + SUITS.index(s) for s in suits]

    def _choose(self, trump: str | None) -> None:
        seat = self.current
        contract = "sun" if trump is None else "hokum"
        text = (
            f"Seat {seat} switches to sun"
            if trump is None
            else f"Seat {seat} keeps hokum, {SUIT_NAMES[trump]} trump"
        )
        self.events.append(Event("choose", text, seat, {"contract": contract, "trump": trump}))
        self._settle(contract, trump, seat)

    def _throw_in(self) -> None:
        """Two all-pass rounds: nobody scores, the deal passes right."""
        self.events.append(
            Event(
                "throw_in",
                f"Round {self.round_number}: all pass twice, the deal is thrown in",
                None,
                {
                    "reason": "all_pass",
                    "round": self.round_number,
                    "scores": list(self.team_scores),
                },
            )
        )
        self._next_round()

    def _settle(self, contract: str, trump: str | None, buyer: int) -> None:
        """The bidding is over: announce the contract, deal the rest, open the doubling."""
        if contract == "hokum" and trump is None:
            trump = SUIT_OF[self.up_card]
        self.contract, self.trump, self.buyer = contract, trump, buyer
        shown = "sun" if trump is None else f"hokum, {SUIT_NAMES[trump]} trump"
        self.events.append(
            Event(
                "contract",
                f"Seat {buyer} buys: {shown}",
                None,
                {"contract": contract, "trump": trump, "buyer": buyer},
            )
        )
        self._deal_the_rest()
        bidders = SEAT_TEAMS[buyer]
        self.doubling_allowed = contract == "hokum" or (
            self.start_scores[bidders] > SUN_DOUBLING_THRESHOLD
            and self.start_scores[1 - bidders] < SUN_DOUBLING_THRESHOLD
        )
        if self.doubling_allowed:
            self.phase = DOUBLING
            self.current = (buyer + 1) % NUM_SEATS
            self._legal = doubling_calls(0)
        else:
            self._open_play()

    # -- doubling -------------------------------------------------------------------------

    def _doubling(self, action: int) -> None:
        """Double by a defender, then Triple (buyer), Four (doubler), Gahwa (buyer); after a
        Double, a decline ends the chain at the level reached."""
        seat = self.current
        name = DOUBLINGS[action - DECLINE]
        self.doublings.append(BalootDoublingMade(seat, name))
        text = f"Seat {seat} declines" if action == DECLINE else f"Seat {seat} calls {name}"
        self.events.append(Event("doubling", text, seat, {"doubling": name}))
        assert self.buyer is not None
        buyer = self.buyer
        if action == DECLINE:
            first_defender = (buyer + 1) % NUM_SEATS
            if self.doubler is None and seat == first_defender:
                self.current = (buyer + 3) % NUM_SEATS
                return
            self._open_play()
            return
        if action == GAHWA:
            self.gahwa = True
            self._open_play()
            return
        if action == DOUBLE:
            self.doubler, self.multiplier = seat, 2
            self.current = buyer
        elif action == TRIPLE:
            assert self.doubler is not None
            self.multiplier, self.current = 3, self.doubler
        else:
            self.multiplier, self.current = 4, buyer
        self._legal = doubling_calls(action - DECLINE)

    # -- play -----------------------------------------------------------------------------

    def _open_play(self) -> None:
        """The buyer leads trick 1 (D6). Locked: Hokum doubled to x2 or x4 (D8)."""
        assert self.buyer is not None
        self.locked = self.contract == "hokum" and not self.gahwa and self.multiplier in (2, 4)
        self._turn(self.buyer)

    def _turn(self, seat: int) -> None:
        """Ask ``seat`` to act: a declaration first in trick 1 when it has projects."""
        self.current = seat
        if not self.tricks and self._declarations[seat] is None:
            choices = declarable(self.hands[seat])
            if choices:
                self.phase = DECLARING
                self._legal = choices
                return
            self._declarations[seat] = ()
        self.phase = PLAYING
        trick = self.trick
        cards = playable(
            self.hands[seat], trick[0].card if trick else None, self.trump, self.locked
        )
        self._legal = [PLAY_ACTION[card] for card in cards]

    def _declare(self, projects: tuple[int, ...]) -> None:
        """Declared in private; everyone sees all declarations after trick 1."""
        seat = self.current
        self._declarations[seat] = projects
        shown = declaration_text(projects).removeprefix("declare ")
        self.events.append(
            Event(
                "declare",
                f"Seat {seat} declares {shown}",
                seat,
                {
                    "projects": [
                        {"kind": PROJECTS[p].kind, "cards": list(PROJECTS[p].cards)}
                        for p in projects
                    ]
                },
                visible_to=(seat,),
            )
        )
        self._turn(seat)

    def _play(self, card: Card) -> None:
        seat = self.current
        self.hands[seat].remove(card)
        trick = self.trick
        trick.append(PlayedCard(seat, card))
        self.events.append(Event("play", f"Seat {seat} plays {pretty(card)}", seat, {"card": card}))
        if len(trick) == NUM_SEATS:
            self._finish_trick()
        else:
            self._turn(seat_after(seat, NUM_SEATS))

    def _finish_trick(self) -> None:
        cards = tuple(self.trick)
        trump = self.trump
        winner = trick_winner(cards, trump, SUIT_OF.__getitem__, STRENGTH[trump].__getitem__)
        self.tricks.append(Trick(cards[0].seat, cards, winner))
        self.trick = []
        team = SEAT_TEAMS[winner]
        self.tricks_won[team] += 1
        card_abnat = ABNAT[trump]
        won = sum(card_abnat[played.card] for played in cards)
        last = len(self.tricks) == TRICKS_PER_ROUND
        if last:
            won += LAST_TRICK_BONUS
        self.abnat[team] += won
        self.events.append(
            Event(
                "trick",
                f"Seat {winner} takes the trick ({won} abnat)",
                winner,
                {
                    "leader": cards[0].seat,
                    "cards": [{"seat": p.seat, "card": p.card} for p in cards],
                    "winner": winner,
                    "abnat": won,
                },
            )
        )
        if len(self.tricks) == 1:
            self._reveal_projects()
        if last:
            self._score_round()
        else:
            self._turn(winner)

    # -- observation ----------------------------------------------------------------------

    def observation(self, seat: int) -> BalootObservation:
        """The one place that decides what a seat sees: its own cards and declaration, the
        up-card and the public record. Declarations of others appear only after trick 1;
        the face-down cards and other hands never."""
        if not 0 <= seat < NUM_SEATS:
            raise ValueError(f"baloot has seats 0..3, not {seat}")
        own = self._declarations[seat]
        own_projects = (
            ()
            if not own or self.contract is None
            else tuple(
                BalootDeclaredProject(
                    seat,
                    PROJECTS[p].kind,
                    PROJECTS[p].cards,
                    PROJECT_POINTS[self.contract][PROJECTS[p].kind],
                )
                for p in own
            )
        )
        return BalootObservation(
            seat=seat,
            dealer=self.dealer,
            phase=self.phase,
            round_number=self.round_number,
            hand=tuple(self.hands[seat]),
            up_card=self.up_card,
            bidding_round=self.bidding_round,
            bids=tuple(self.bids),
            contract=self.contract,
            trump=self.trump,
            buyer=self.buyer,
            multiplier=self.multiplier,
            gahwa=self.gahwa,
            locked=self.locked,
            doubling_allowed=self.doubling_allowed,
            doublings=tuple(self.doublings),
            own_projects=own_projects,
            projects=self.declared_projects if self.projects_public else (),
            project_team=self.project_team,
            trick=tuple(self.trick),
            tricks=tuple(self.tricks),
            tricks_won=tuple(self.tricks_won),
            abnat=tuple(self.abnat),
            scores=tuple(self.team_scores),
            hand_sizes=tuple(len(hand) for hand in self.hands),
        )
