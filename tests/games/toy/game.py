"""A sixth game for the generic engine suite to run on: two seats, high card wins.

Each hand deals three cards to each seat from ten (the 9 to the king of hearts and
spades); the seats take turns playing a card, the second following the suit of the first
when it can, and the higher rank of each pair scores a point for its seat (equal ranks
score nothing), and after ``hands`` hands the higher score wins. It has the whole
``State`` API (a chosen first deal too: ``hands`` the three cards of each seat, ``rest``
the four left out, ``scores`` never negative, ``deal_number`` up to ``hands``) and logs
its deal the way the replay format reads it. It is registered only inside the tests that
use it; its folder has every part the arena asks a game for, its messages included
(``messages``: the toy is in no ``.proto`` file). The broken variants below each break
one thing the generic suite checks.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, replace

from arena.games.api import Deal, Event, Game, GameInfo, OptionSpec, State
from arena.games.tricks import PlayedCard

RANKS = "9TJQK"
CARDS = tuple(r + s for s in "HS" for r in RANKS)
HAND_SIZE = 3

INFO = GameInfo(
    name="toy-high-card",
    title="Toy High Card",
    num_seats=2,
    seat_teams=(0, 1),
    options=(
        OptionSpec("hands", 2, "Hands in a match.", minimum=1, maximum=20),
        OptionSpec("ties_score", False, "Equal ranks score a point for each seat."),
    ),
    description="A test game: the higher card of each pair scores; follow suit if you can.",
)


@dataclass(frozen=True)
class ToyObservation:
    """What a seat sees; each attribute fills the field of its name of the toy's
    observation message (``messages``)."""

    seat: int
    hand: tuple[str, ...]
    trick: tuple[PlayedCard, ...]
    """The pair in progress: the cards played to it so far, in order, with their seats."""
    hand_sizes: tuple[int, ...]
    scores: tuple[int, ...]
    hand_number: int
    """The hand being played, from 1."""


class ToyState(State):
    game_info = INFO

    def __init__(self, seed: int, options: Mapping[str, object], deal: Deal | None = None) -> None:
        self.options = INFO.resolve_options(options)
        self.rng = random.Random(seed)
        self.events: list[Event] = []
        self.hands: list[list[str]] = [[], []]
        self.trick: list[PlayedCard] = []
        self.rest: list[str] = []
        """The cards left out of this hand."""
        self.played: list[str] = []
        """The cards of the pairs already scored this hand."""
        self.points = [0, 0]
        self.hands_played = 0
        self.dealer = 0
        self.to_act = 1
        self.over = False
        if deal is not None:
            self.dealer = deal.check(
                INFO.name,
                CARDS,
                lambda _: [HAND_SIZE] * 2,
                0,
                "unused",
                teams=2,
                progress=self._progress_problem,
            )
            self.points = list(deal.start_scores(2))
            self.hands_played = deal.deal_number - 1
        self._deal(deal)

    def _progress_problem(self, scores: tuple[int, ...], deal_number: int) -> str | None:
        if min(scores) < 0:
            return f"scores are never negative, not {scores}"
        if deal_number > int(self.options["hands"]):
            return f"deal_number must be 1..{self.options['hands']} (hands), not {deal_number}"
        return None

    def _shuffled(self) -> list[str]:
        pack = list(CARDS)
        self.rng.shuffle(pack)
        return pack

    def _deal(self, deal: Deal | None = None) -> None:
        pack = self._shuffled() if deal is None else [*deal.hands[0], *deal.hands[1], *deal.rest]
        self.hands = [sorted(pack[:HAND_SIZE]), sorted(pack[HAND_SIZE : 2 * HAND_SIZE])]
        self.rest = sorted(pack[2 * HAND_SIZE :])
        self.played = []
        if self._first_deal is None:
            rest = tuple(pack[2 * HAND_SIZE :])
            scores = None if deal is None else deal.scores
            hands = tuple(map(tuple, self.hands))
            self._first_deal = Deal(hands, self.dealer, rest, scores, self.hands_played + 1)
        self.to_act = 1 - self.dealer
        self.events.append(
            Event(
                "deal",
                f"hand {self.hands_played + 1} dealt",
                data={"dealer": self.dealer, "hands": [list(h) for h in self.hands]},
                visible_to=(),
            )
        )

    def current_seat(self) -> int:
        return -1 if self.over else self.to_act

    def legal_actions(self) -> list[int]:
        if self.over:
            return []
        hand = self.hands[self.to_act]
        if self.trick:  # follow the led suit when the hand holds one
            led = self.trick[0].card[1]
            hand = [card for card in hand if card[1] == led] or hand
        return sorted(CARDS.index(card) for card in hand)

    def action_text(self, action: int) -> str:
        return f"play {CARDS[action]}"

    def action_payload(self, action: int) -> tuple[str, object]:
        return ("play", CARDS[action])

    def _apply(self, action: int) -> None:
        seat, card = self.to_act, CARDS[action]
        self.hands[seat].remove(card)
        self.trick.append(PlayedCard(seat, card))
        self.events.append(Event("play", f"seat {seat} plays {card}", seat, {"card": card}))
        if len(self.trick) < 2:
            self.to_act = 1 - seat
            return
        table = [p.card for p in sorted(self.trick, key=lambda p: p.seat)]
        first, second = (RANKS.index(c[0]) for c in table)
        winners = [0] if first > second else [1] if second > first else []
        if not winners and self.options["ties_score"]:
            winners = [0, 1]
        for winner in winners:
            self.points[winner] += 1
        self.events.append(Event("pair", "pair scored", data={"cards": table, "winners": winners}))
        self.played += [p.card for p in self.trick]
        self.trick = []
        self.to_act = winners[0] if len(winners) == 1 else 1 - seat
        if self.hands[0] or self.hands[1]:
            return
        self.hands_played += 1
        self.events.append(Event("hand_end", "hand over", data={"scores": list(self.points)}))
        if self.hands_played >= int(self.options["hands"]):
            self.over = True
            self.events.append(Event("game_end", "match over", data={"winner": self.winner()}))
            return
        self.dealer = 1 - self.dealer
        self._deal()

    def observation(self, seat: int) -> ToyObservation:
        return ToyObservation(
            seat=seat,
            hand=tuple(self.hands[seat]),
            trick=tuple(self.trick),
            hand_sizes=tuple(len(h) for h in self.hands),
            scores=tuple(self.points),
            hand_number=self.hands_played + (0 if self.over else 1),
        )

    def is_terminal(self) -> bool:
        return self.over

    def scores(self) -> list[int]:
        return list(self.points)

    def winner(self) -> int | None:
        if not self.over or self.points[0] == self.points[1]:
            return None
        return 0 if self.points[0] > self.points[1] else 1


class ToyGame(Game):
    info = INFO
    state_class: type[ToyState] = ToyState

    def new_state(
        self, seed: int, options: Mapping[str, object] | None = None, *, deal: Deal | None = None
    ) -> ToyState:
        return self.state_class(seed, options or {}, deal)


# --- broken variants, one fault each ------------------------------------------------------


class LeakyState(ToyState):
    """Shows each seat the other seat's lowest card."""

    def observation(self, seat: int) -> ToyObservation:
        view = super().observation(seat)
        other = self.hands[1 - seat]
        return replace(view, hand=view.hand + tuple(other[:1]))


class NondeterministicState(ToyState):
    """Shuffles with the process-wide random generator, not its own seeded one."""

    def _shuffled(self) -> list[str]:
        pack = list(CARDS)
        random.shuffle(pack)
        return pack


class CarelessState(ToyState):
    """Takes an illegal action's card away before refusing it."""

    def apply(self, action: int) -> None:
        if 0 <= action < len(CARDS) and action not in self.legal_actions() and self.hands[0]:
            self.hands[0].pop()
        super().apply(action)


class UnsortedState(ToyState):
    """Lists the legal actions highest first."""

    def legal_actions(self) -> list[int]:
        return super().legal_actions()[::-1]


def toy_game(state_class: type[ToyState] = ToyState) -> ToyGame:
    """The toy game, or one of its broken variants."""
    game = ToyGame()
    game.state_class = state_class
    return game
