"""Baloot's rounds: the phases, the points of a round (card points, projects, the Baloot, the
failed and doubled contracts) and ``BalootRounds``, the part of the state that deals each round
and scores it, up to the end of the match. Part of the engine ``arena.games.baloot.game``, which
exports these names.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from arena.games.api import GAME_OVER, Deal, Event, PhaseState
from arena.games.baloot.actions import (
    ASHKAL,
    BALOOT_POINTS,
    CARD_ORDER,
    CARDS,
    FAILED_POINTS,
    FIRST_CARDS,
    GAME_TARGET,
    HOKUM,
    KABOOT_ACE_POINTS,
    KABOOT_POINTS,
    NUM_SEATS,
    PASS,
    PROJECT_POINTS,
    PROJECT_SHOWN,
    PROJECT_TOP,
    PROJECTS,
    SEAT_TEAMS,
    SUN,
    TRICKS_PER_ROUND,
)
from arena.games.baloot.observation import BalootBidMade, BalootDeclaredProject, BalootDoublingMade
from arena.games.cards import Card, pretty, pretty_cards
from arena.games.tricks import PlayedCard, Trick

# Phases, named as the proto's BalootPhase values (lower case, without the prefix).
BIDDING = "bidding"
CLAIM_WINDOW = "claim_window"
SECOND_TURN = "second_turn"
CONTRACT_CHOICE = "contract_choice"
DOUBLING = "doubling"
DECLARING = "declaring"
PLAYING = "playing"


def partner_of(seat: int) -> int:
    return (seat + 2) % NUM_SEATS


def ashkal_bidders(dealer: int) -> tuple[int, int]:
    """The seats that may call Ashkal: B3 (the dealer's left) and B4 (the dealer)."""
    return (dealer + 3) % NUM_SEATS, dealer


def bids_allowed(
    phase: str, bidding_round: int, seat: int, dealer: int, hokum_called: bool
) -> list[int]:
    """The bids (``BIDS`` indices) ``seat`` may make: after a Sun or Ashkal claim only pass
    or Sun; Hokum only in the ordinary bidding before anyone called it this round; Ashkal
    only in round 1, by B3 or B4 (B4 never has a second turn)."""
    if phase == CLAIM_WINDOW:
        return [PASS, SUN]
    legal = [PASS]
    if phase == BIDDING and not hokum_called:
        legal.append(HOKUM)
    legal.append(SUN)
    if bidding_round == 1 and seat in ashkal_bidders(dealer):
        legal.append(ASHKAL)
    return legal


def sun_points(abnat: int) -> int:
    """Sun conversion: a total ending in 5 is doubled and divided by ten exactly; any other
    is rounded to the nearest ten first (67 -> 70 -> 14, 25 -> 5)."""
    if abnat % 10 == 5:
        return abnat // 5
    return (abnat + 5) // 10 * 2


def hokum_points(abnat: int) -> int:
    """Hokum conversion: divide by ten and round to the nearest, halves down (75 -> 7)."""
    return (abnat + 4) // 10


def project_value_key(project: int, contract: str, turn: int) -> tuple[int, int, int]:
    """Ranks declared projects: by value, then top card in sequence order, then the
    earlier turn in trick 1 (``turn`` 0 is the leader)."""
    return (PROJECT_POINTS[contract][PROJECTS[project].kind], PROJECT_TOP[project], -turn)


def round_points(
    contract: str,
    bidders: int,
    abnat: Sequence[int],
    projects: Sequence[int],
    baloot: Sequence[int],
    multiplier: int,
    kaboot_team: int | None,
    ace_up: bool,
) -> tuple[list[int], int]:
    """Game points of each team for a round, and the round's winning team.

    ``abnat`` includes the last trick's 10; ``projects`` are each team's *scored* project
    points (the comparison's loser has 0); ``baloot`` each team's Baloot points.
    """
    defenders = 1 - bidders
    if kaboot_team is not None:
        kaboot = KABOOT_ACE_POINTS if ace_up else KABOOT_POINTS
        points = [0, 0]
        points[kaboot_team] = (kaboot + projects[kaboot_team]) * multiplier + baloot[kaboot_team]
        return points, kaboot_team
    convert = sun_points if contract == "sun" else hokum_points
    totals = [convert(abnat[team]) + projects[team] + baloot[team] for team in (0, 1)]
    winner = bidders if totals[bidders] > totals[defenders] else defenders
    if multiplier == 1 and winner == bidders:
        return totals, winner
    points = list(baloot)
    points[winner] += (FAILED_POINTS[contract] + sum(projects)) * multiplier
    return points, winner


# --- State ---------------------------------------------------------------------------------


class BalootRounds(PhaseState):
    """The deal of each round and its scoring, for ``BalootState``: the shuffle, the first five
    cards and the rest, the bidding order, the projects revealed, the round's points and bonuses,
    the next round and the end of the match.
    """

    _rng: random.Random
    max_rounds: int
    round_number: int
    dealer: int

    # -- deal -----------------------------------------------------------------------------

    def _deal(self) -> None:
        """Shuffle; five cards to each bidder in bidding order, then the up-card."""
        deck = list(CARDS)
        self._rng.shuffle(deck)
        hands: list[list[Card]] = [[] for _ in range(NUM_SEATS)]
        for k, seat in enumerate(self._bidding_order()):
            hands[seat] = deck[FIRST_CARDS * k : FIRST_CARDS * (k + 1)]
        up = FIRST_CARDS * NUM_SEATS
        self._begin_round(hands, deck[up], deck[up + 1 :])

    def _begin_round(
        self,
        hands: list[list[Card]],
        up_card: Card,
        face_down: list[Card],
        chosen: Deal | None = None,
    ) -> None:
        """Start a round from the first five cards of each seat, the up-card and the face-down
        cards in the order they will be dealt; reset the round's record and open the bidding.
        """
        self.round_number += 1
        self.hands = [sorted(hand, key=CARD_ORDER.__getitem__) for hand in hands]
        self.up_card = up_card
        self.face_down = list(face_down)
        if self._first_deal is None:
            rest = (up_card, *face_down)
            scores = None if chosen is None else chosen.scores
            hands_dealt = tuple(map(tuple, self.hands))
            self._first_deal = Deal(hands_dealt, self.dealer, rest, scores, self.round_number)
        self.start_scores = tuple(self.team_scores)
        self.bids: list[BalootBidMade] = []
        self.bidding_round = 1
        self.hokum_caller: int | None = None
        self._claimed_call: tuple[int, int] | None = None  # (seat, SUN or ASHKAL) in a window
        self._to_call: list[int] = []
        self.contract: str | None = None
        self.trump: str | None = None
        self.buyer: int | None = None
        self.doubling_allowed = False
        self.doublings: list[BalootDoublingMade] = []
        self.doubler: int | None = None
        self.multiplier = 1
        self.gahwa = False
        self.locked = False
        self.baloot_seat: int | None = None
        self._declarations: list[tuple[int, ...] | None] = [None] * NUM_SEATS
        self.declared_projects: tuple[BalootDeclaredProject, ...] = ()
        self.projects_public = False
        self.project_team: int | None = None
        self.trick: list[PlayedCard] = []
        self.tricks: list[Trick] = []
        self.tricks_won = [0, 0]
        self.abnat = [0, 0]
        self.events.append(
            Event(
                "deal",
                f"Round {self.round_number}: seat {self.dealer} deals",
                self.dealer,
                {"dealer": self.dealer, "hands": [list(hand) for hand in self.hands]},
                visible_to=(),
            )
        )
        self.events.append(Event("up_card", f"Up-card {pretty(up_card)}", None, {"card": up_card}))
        self.phase = BIDDING
        self._to_call = self._bidding_order()
        self._ask_bid()

    def _bidding_order(self) -> list[int]:
        """B1 (dealer's right), B2 (dealer's partner), B3 (dealer's left), B4 (the dealer)."""
        return [(self.dealer + 1 + k) % NUM_SEATS for k in range(NUM_SEATS)]

    def _deal_the_rest(self) -> None:
        """The buyer takes the up-card and two face-down cards; everyone else three."""
        assert self.buyer is not None
        stock = self.face_down
        for seat in self._bidding_order():
            count = 2 if seat == self.buyer else 3
            drawn, stock = stock[:count], stock[count:]
            if seat == self.buyer:
                drawn = [self.up_card, *drawn]
                text = f"Seat {seat} takes the up-card and {pretty_cards(drawn[1:])}"
            else:
                text = f"Seat {seat} draws {pretty_cards(drawn)}"
            self.hands[seat] = sorted([*self.hands[seat], *drawn], key=CARD_ORDER.__getitem__)
            self.events.append(
                Event("draw", text, seat, {"cards": list(drawn)}, visible_to=(seat,))
            )
        self.face_down = []
        if self.trump is not None:
            king, queen = "K" + self.trump, "Q" + self.trump
            self.baloot_seat = next(
                (s for s, hand in enumerate(self.hands) if king in hand and queen in hand), None
            )

    def _ask_bid(self) -> None:
        seat = self._to_call[0]
        self.current = seat
        self._legal = bids_allowed(
            self.phase, self.bidding_round, seat, self.dealer, self.hokum_caller is not None
        )

    # -- scoring and the end ----------------------------------------------------------------

    def _reveal_projects(self) -> None:
        """After trick 1: publish every declaration and settle which team's projects score."""
        assert self.buyer is not None and self.contract is not None
        contract = self.contract
        declared: list[BalootDeclaredProject] = []
        best: tuple[tuple[int, int, int], int] | None = None
        for turn in range(NUM_SEATS):
            seat = (self.buyer + turn) % NUM_SEATS
            for p in self._declarations[seat] or ():
                project = PROJECTS[p]
                points = PROJECT_POINTS[contract][project.kind]
                declared.append(BalootDeclaredProject(seat, project.kind, project.cards, points))
                key = project_value_key(p, contract, turn)
                if best is None or key > best[0]:
                    best = (key, SEAT_TEAMS[seat])
        self.declared_projects = tuple(declared)
        self.projects_public = True
        if best is None:
            return
        self.project_team = best[1]
        self.events.append(
            Event(
                "projects",
                f"Projects: team {self.project_team} scores "
                + ", ".join(
                    f"seat {d.seat} {PROJECT_SHOWN[d.kind]} {pretty_cards(d.cards)}"
                    for d in declared
                    if SEAT_TEAMS[d.seat] == self.project_team
                ),
                None,
                {
                    "declared": [
                        {"seat": d.seat, "kind": d.kind, "cards": list(d.cards), "points": d.points}
                        for d in declared
                    ],
                    "team": self.project_team,
                },
            )
        )

    def _score_round(self) -> None:
        """Score the round (rules §7), then end the game or deal the next round."""
        assert self.buyer is not None and self.contract is not None
        bidders = SEAT_TEAMS[self.buyer]
        projects, baloot, kaboot_team = self._round_bonuses()
        points, round_winner = round_points(
            self.contract,
            bidders,
            self.abnat,
            projects,
            baloot,
            self.multiplier,
            kaboot_team,
            self.up_card[0] == "A",
        )
        for team in (0, 1):
            self.team_scores[team] += points[team]
        self._log_round_end(projects, baloot, kaboot_team, round_winner, points)
        if self.gahwa:
            self._end_game(round_winner, "Gahwa")
            return
        a, b = self.team_scores
        if max(a, b) >= GAME_TARGET and a != b:
            self._end_game(0 if a > b else 1, "152")
            return
        self._next_round()

    def _round_bonuses(self) -> tuple[list[int], list[int], int | None]:
        """Each team's project and baloot points, and the team that took every trick."""
        projects = [0, 0]
        if self.project_team is not None:
            projects[self.project_team] = sum(
                d.points for d in self.declared_projects if SEAT_TEAMS[d.seat] == self.project_team
            )
        baloot = [0, 0]
        if self.baloot_seat is not None:
            baloot[SEAT_TEAMS[self.baloot_seat]] = BALOOT_POINTS
        kaboot_team = next(
            (team for team in (0, 1) if self.tricks_won[team] == TRICKS_PER_ROUND), None
        )
        return projects, baloot, kaboot_team

    def _log_round_end(
        self,
        projects: list[int],
        baloot: list[int],
        kaboot_team: int | None,
        round_winner: int,
        points: list[int],
    ) -> None:
        assert self.buyer is not None
        outcome = (
            f"kaboot by team {kaboot_team}"
            if kaboot_team is not None
            else "made"
            if round_winner == SEAT_TEAMS[self.buyer]
            else "failed"
        )
        self.events.append(
            Event(
                "hand_end",
                f"Round {self.round_number}: {self.contract} by seat {self.buyer} {outcome}; "
                f"points {points[0]}/{points[1]}, scores "
                f"{self.team_scores[0]}:{self.team_scores[1]}",
                None,
                {
                    "round": self.round_number,
                    "contract": self.contract,
                    "trump": self.trump,
                    "buyer": self.buyer,
                    "multiplier": self.multiplier,
                    "gahwa": self.gahwa,
                    "abnat": list(self.abnat),
                    "projects": projects,
                    "baloot": baloot,
                    "baloot_seat": self.baloot_seat,
                    "kaboot": kaboot_team,
                    "round_winner": round_winner,
                    "points": points,
                    "scores": list(self.team_scores),
                },
            )
        )

    def _next_round(self) -> None:
        """The deal passes right, unless the ``max_rounds`` safeguard ends the game."""
        if self.round_number >= self.max_rounds:
            a, b = self.team_scores
            self._end_game(None if a == b else 0 if a > b else 1, "max_rounds")
            return
        self.dealer = (self.dealer + 1) % NUM_SEATS
        self._deal()

    def _end_game(self, winning_team: int | None, reason: str) -> None:
        self.winning_team = winning_team
        self.phase = GAME_OVER
        self.current = -1
        self._legal = []
        a, b = self.team_scores
        text = (
            f"Draw at {a}:{b} after {self.round_number} rounds"
            if winning_team is None
            else f"Team {winning_team} wins {a}:{b} ({reason})"
        )
        self.events.append(
            Event(
                "game_end",
                text,
                None,
                {
                    "winner": winning_team,
                    "reason": reason,
                    "scores": list(self.team_scores),
                    "rounds": self.round_number,
                },
            )
        )
