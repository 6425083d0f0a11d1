"""Baloot: the Saudi partnership trick game with a 32-card deck, bidding for an up-card.

Seats 0 and 2 play seats 1 and 3. Everything moves counter-clockwise, and seats are
numbered that way, so the next player (on the right) after seat ``s`` is ``(s + 1) % 4``.
Each player gets five cards and the 21st card is turned face up (the *up-card*). The
bidding decides who takes it (the *buyer*) and whether the round is a Sun (no trump) or a
Hokum (a trump game). The buyer then takes the up-card and two face-down cards, the
others three each, and the buyer leads. Card points (*abnat*) in the tricks won are
converted to game points; the game goes to 152.

What surprises people who know other trick games:

* The bidding has two rounds. Round 1: a Hokum makes the up-card's suit trump; a Sun or
  Ashkal (a Sun bought by the caller's partner, only for the third and fourth bidders)
  lets every *earlier* bidder take the contract as Sun first (the claim window); after
  a Hokum the players who passed before it get one more turn. Round 2: a Sun wins at
  once; a Hokum's trump is named at the end and may not be the up-card's suit. Two
  all-pass rounds throw the deal in.
* There is no duty to trump or overtrump, only to follow suit. Only leads are ever
  restricted: in a Hokum doubled to x2 or x4 (*locked*) a player may not lead a trump
  while holding another suit.
* Projects (Sira, 50, 100, 400) are declared in trick 1 and only the team with the best
  one scores them, all of them. Baloot (K and Q of trump in one hand) is never declared
  and never multiplied; it counts for its team in every Hokum round.
* The buyer's team must score strictly more than the defenders, projects and Baloot
  included, or the defenders take everything (26 in Sun, 16 in Hokum). A doubled round
  is winner-take-all. Taking all eight tricks (kaboot) scores 44, or 88 on an Ace
  up-card. A Gahwa round ends the game: whoever wins it wins the game.

Decisions this engine takes where the rules leave room (the rules' own D1..D18 are
followed as written):

* The deal: five cards each to the four bidders in bidding order (the dealer's right
  first), then the up-card; after the bidding the eleven face-down cards go out in
  bidding order again, two to the buyer (who also takes the up-card) and three to each
  other player.
* Gahwa scores the round at x4 (the multiplier never exceeds 4); the game then ends
  with the round's winner as the game's winner, whatever the scores.
* Baloot is judged on the 8-card hands right after the full deal. A kaboot leaves the
  other team 0, its Baloot included (the rule's "the other team scores 0", literally).
* The doubling chain's "pass" is its own action, ``decline``, apart from the bidding's
  ``pass``.
* In round 2, a Hokum call names no suit; the caller names the trump (or switches to
  Sun) once everyone after it has passed.
* A seat with no project to declare is not asked; a seat that has one chooses among
  every valid set of at most two disjoint projects (declaring none included), in
  private. All declarations become public after trick 1.
* Arena safeguard: the game stops after ``max_rounds`` rounds, thrown-in rounds
  included (so players who always pass cannot loop forever); the higher score wins and
  equal scores are a draw.

Action ids keep one meaning for the whole game (cards in canonical order: suits C, D,
H, S; ranks 7 8 9 T J Q K A; card index = 8 * suit + rank)::

     0..3      pass, hokum, sun, ashkal                 (bidding calls)
     4         choose sun                               (the Hokum caller switches)
     5..8      choose hokum C, D, H, S                  (the Hokum caller keeps, naming trump)
     9..13     decline, double, triple, four, gahwa     (doubling chain)
    14..45     play <card>                              14 + card index
    46..1335   declare <projects>                       46 + declaration index

Projects are numbered 0..88 (``PROJECTS``): sequences by suit (C, D, H, S), then by top
card (A down to 9), then by length (3 up to 8); then the four 10s, Js, Qs, Ks and aces
(four 9s, 8s or 7s are no project). Declaration index 0 is "declare none"; 1..89 a
single project; then every pair of disjoint projects that fits in eight cards, in
(first, second) order. Texts: ``declare none``, ``declare sira AS KS QS``,
``declare 50 TH 9H 8H 7H + 100 KC KD KH KS``, ``declare aces AC AD AH AS``.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
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
from arena.games.cards import SUIT_NAMES, SUITS, Card, pretty, pretty_cards
from arena.games.registry import register
from arena.games.tricks import PlayedCard, Trick, cards_that_follow, seat_after, trick_winner

# --- Facts of the game -------------------------------------------------------------------

GAME_INFO = GameInfo(
    name="baloot",
    title="Baloot",
    num_seats=4,
    seat_teams=(0, 1, 0, 1),
    options=(
        OptionSpec(
            "max_rounds",
            100,
            "Arena safeguard: after this many rounds (thrown-in rounds included) the higher "
            "score wins (equal scores are a draw).",
            minimum=1,
            maximum=10000,
        ),
    ),
    description="Saudi partnership trick game: bid Sun or Hokum for the up-card, declare "
    "projects, double up to Gahwa, first to 152.",
)

NUM_SEATS = 4
SEAT_TEAMS = GAME_INFO.seat_teams
FIRST_CARDS = 5
TRICKS_PER_ROUND = 8
GAME_TARGET = 152
LAST_TRICK_BONUS = 10
SUN_DOUBLING_THRESHOLD = 100
FAILED_POINTS = {"sun": 26, "hokum": 16}
"""What a failed or doubled round pays its winner before projects and multiplier."""
KABOOT_POINTS, KABOOT_ACE_POINTS = 44, 88

RANKS = "789TJQKA"
"""Ranks low to high as printed (the canonical order of hands); play order is below."""

CARDS: tuple[Card, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
"""The 32 cards in canonical order (the order of hands and of card action ids)."""

CARD_ORDER: dict[Card, int] = {card: index for index, card in enumerate(CARDS)}
CARD_BIT: dict[Card, int] = {card: 1 << index for index, card in enumerate(CARDS)}
SUIT_OF: dict[Card, str] = {card: card[1] for card in CARDS}

SUN_ORDER = "789JQKTA"
"""Every suit in Sun, and the plain suits in Hokum, low to high."""
TRUMP_ORDER = "78QKTA9J"
"""The trump suit in Hokum, low to high."""
SEQUENCE_ORDER = "AKQJT987"
"""The natural order of project sequences (and of project tie-breaks), high to low."""

PLAIN_ABNAT = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
TRUMP_ABNAT = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}


def _strengths(trump: str | None) -> dict[Card, int]:
    """Order within each suit: trumps by ``TRUMP_ORDER``, every other suit by ``SUN_ORDER``."""
    return {card: (TRUMP_ORDER if card[1] == trump else SUN_ORDER).index(card[0]) for card in CARDS}


def _abnat(trump: str | None) -> dict[Card, int]:
    return {card: (TRUMP_ABNAT if card[1] == trump else PLAIN_ABNAT)[card[0]] for card in CARDS}


# Tables per trump suit; key ``None`` is Sun.
TRUMP_KEYS: tuple[str | None, ...] = (None, *SUITS)
STRENGTH: dict[str | None, dict[Card, int]] = {t: _strengths(t) for t in TRUMP_KEYS}
ABNAT: dict[str | None, dict[Card, int]] = {t: _abnat(t) for t in TRUMP_KEYS}

# --- Projects ------------------------------------------------------------------------------

SIRA, FIFTY, HUNDRED, FOUR_ACES = "sira", "fifty", "hundred", "four_aces"
PROJECT_POINTS = {
    "sun": {SIRA: 4, FIFTY: 10, HUNDRED: 20, FOUR_ACES: 40},
    "hokum": {SIRA: 2, FIFTY: 5, HUNDRED: 10, FOUR_ACES: 10},
}
"""Game points of each project; they also rank projects (400 > 100 > 50 > Sira)."""
PROJECT_SHOWN = {SIRA: "sira", FIFTY: "50", HUNDRED: "100", FOUR_ACES: "aces"}
BALOOT_POINTS = 2


@dataclass(frozen=True, slots=True)
class BalootProject:
    """A project as declared: its kind and cards (a sequence high to low, else suit order)."""

    kind: str
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class BalootDeclaration:
    """Zero, one or two projects declared together in trick 1."""

    projects: tuple[BalootProject, ...]


def _sequence_kind(length: int) -> str:
    return SIRA if length == 3 else FIFTY if length == 4 else HUNDRED


def _all_projects() -> tuple[BalootProject, ...]:
    """Every possible project: sequences by suit, top card high to low, then length; then
    the four-of-a-kinds that count (10s, Js, Qs, Ks, aces)."""
    found = []
    for suit in SUITS:
        for top in range(len(SEQUENCE_ORDER) - 2):
            for length in range(3, len(SEQUENCE_ORDER) - top + 1):
                ranks = SEQUENCE_ORDER[top : top + length]
                found.append(BalootProject(_sequence_kind(length), tuple(r + suit for r in ranks)))
    for rank in "TJQKA":
        kind = FOUR_ACES if rank == "A" else HUNDRED
        found.append(BalootProject(kind, tuple(rank + suit for suit in SUITS)))
    return tuple(found)


PROJECTS = _all_projects()
PROJECT_MASK: tuple[int, ...] = tuple(
    sum(CARD_BIT[card] for card in project.cards) for project in PROJECTS
)
PROJECT_TOP: tuple[int, ...] = tuple(
    len(SEQUENCE_ORDER) - SEQUENCE_ORDER.index(project.cards[0][0]) for project in PROJECTS
)
"""Top card of each project for tie-breaks: higher is better (ace 8 ... seven 1)."""


def _all_declarations() -> tuple[tuple[int, ...], ...]:
    singles = [(p,) for p in range(len(PROJECTS))]
    pairs = [
        (p, q)
        for p, q in itertools.combinations(range(len(PROJECTS)), 2)
        if not PROJECT_MASK[p] & PROJECT_MASK[q]
        and len(PROJECTS[p].cards) + len(PROJECTS[q].cards) <= TRICKS_PER_ROUND
    ]
    return ((), *singles, *pairs)


DECLARATIONS = _all_declarations()
"""Project-index tuples by declaration index (see the module docstring)."""

# --- Action ids (see the module docstring) -------------------------------------------------

PASS, HOKUM, SUN, ASHKAL = range(4)
BIDS = ("pass", "hokum", "sun", "ashkal")
CHOOSE_SUN = 4
CHOOSE_HOKUM_BASE = 5
DECLINE, DOUBLE, TRIPLE, FOUR, GAHWA = range(9, 14)
DOUBLINGS = ("decline", "double", "triple", "four", "gahwa")
PLAY_BASE = 14
DECLARE_BASE = PLAY_BASE + len(CARDS)
NUM_ACTIONS = DECLARE_BASE + len(DECLARATIONS)

PLAY_ACTION = {card: PLAY_BASE + i for i, card in enumerate(CARDS)}
DECLARATION_ACTION = {projects: DECLARE_BASE + i for i, projects in enumerate(DECLARATIONS)}


@dataclass(frozen=True, slots=True)
class BalootContractChoice:
    """The Hokum caller's final choice: ``contract`` sun or hokum, and the trump."""

    contract: str
    trump: str | None


def _declaration_text(projects: tuple[int, ...]) -> str:
    if not projects:
        return "declare none"
    shown = (f"{PROJECT_SHOWN[PROJECTS[p].kind]} {' '.join(PROJECTS[p].cards)}" for p in projects)
    return "declare " + " + ".join(shown)


ACTION_TEXTS: tuple[str, ...] = (
    *BIDS,
    "choose sun",
    *(f"choose hokum {suit}" for suit in SUITS),
    *DOUBLINGS,
    *(f"play {card}" for card in CARDS),
    *(_declaration_text(projects) for projects in DECLARATIONS),
)
ACTION_PAYLOADS: tuple[tuple[str, object], ...] = (
    *(("bid", bid) for bid in BIDS),
    ("choose", BalootContractChoice("sun", None)),
    *(("choose", BalootContractChoice("hokum", suit)) for suit in SUITS),
    *(("doubling", doubling) for doubling in DOUBLINGS),
    *(("play", card) for card in CARDS),
    *(
        ("declare", BalootDeclaration(tuple(PROJECTS[p] for p in projects)))
        for projects in DECLARATIONS
    ),
)
assert len(ACTION_TEXTS) == len(ACTION_PAYLOADS) == NUM_ACTIONS == 1336


def _checked(action: int) -> int:
    if not 0 <= action < NUM_ACTIONS:
        raise IllegalActionError(f"baloot has action ids 0..{NUM_ACTIONS - 1}, not {action}")
    return action


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


# --- Game ----------------------------------------------------------------------------------


class BalootGame(Game):
    """Makes Baloot matches; holds no per-match data."""

    info = GAME_INFO

    def new_state(
        self, seed: int, options: Mapping[str, object] | None = None, *, deal: Deal | None = None
    ) -> BalootState:
        """A match dealt from ``seed``, or whose first round is ``deal``: ``hands`` are the
        first five cards of each seat, ``rest[0]`` is the up-card and ``rest[1:]`` the 11
        face-down cards in the order they are dealt after the bidding: to each seat in
        bidding order from the dealer's right, three each, two to the buyer. The deal's
        ``scores`` are at least 0 and below 152 unless equal (unequal scores at 152 or
        more would have ended the match); the round's doubling rule reads them as the
        scores before the round. ``deal_number`` is the round number, thrown-in rounds
        included, at most ``max_rounds``."""
        return BalootState(seed, GAME_INFO.resolve_options(options), deal)


# --- State ---------------------------------------------------------------------------------


class BalootState(PhaseState):
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
        return ACTION_TEXTS[_checked(action)]

    def action_payload(self, action: int) -> tuple[str, object]:
        return ACTION_PAYLOADS[_checked(action)]

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

    # -- bidding --------------------------------------------------------------------------

    def _ask_bid(self) -> None:
        seat = self._to_call[0]
        self.current = seat
        phase = self.phase
        if phase == CLAIM_WINDOW:
            self._legal = [PASS, SUN]
            return
        legal = [PASS]
        if phase == BIDDING and self.hokum_caller is None:
            legal.append(HOKUM)
        legal.append(SUN)
        if self.bidding_round == 1 and seat in ((self.dealer + 3) % NUM_SEATS, self.dealer):
            legal.append(ASHKAL)  # B3 and B4; B4 never has a second turn
        self._legal = legal

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
        up_suit = SUIT_OF[self.up_card]
        suits = [up_suit] if self.bidding_round == 1 else [s for s in SUITS if s != up_suit]
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
            self._legal = [DECLINE, DOUBLE]
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
        if action == DOUBLE:
            self.doubler, self.multiplier = seat, 2
            self.current, self._legal = buyer, [DECLINE, TRIPLE]
        elif action == TRIPLE:
            assert self.doubler is not None
            self.multiplier = 3
            self.current, self._legal = self.doubler, [DECLINE, FOUR]
        elif action == FOUR:
            self.multiplier = 4
            self.current, self._legal = buyer, [DECLINE, GAHWA]
        else:
            self.gahwa = True
            self._open_play()

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
            choices = self._declarable(self.hands[seat])
            if choices:
                self.phase = DECLARING
                self._legal = choices
                return
            self._declarations[seat] = ()
        self.phase = PLAYING
        hand = self.hands[seat]
        trick = self.trick
        if trick:
            playable = cards_that_follow(hand, SUIT_OF[trick[0].card], SUIT_OF.__getitem__)
        elif self.locked:
            trump = self.trump
            playable = [card for card in hand if card[1] != trump] or hand
        else:
            playable = hand
        self._legal = [PLAY_ACTION[card] for card in playable]

    @staticmethod
    def _declarable(hand: Sequence[Card]) -> list[int]:
        """Every valid declaration of an 8-card hand, none included; empty if it holds no
        project (so the seat is not asked)."""
        held = 0
        for card in hand:
            held |= CARD_BIT[card]
        singles = [p for p, mask in enumerate(PROJECT_MASK) if mask & held == mask]
        if not singles:
            return []
        found = [(), *((p,) for p in singles)]
        found += [
            (p, q)
            for p, q in itertools.combinations(singles, 2)
            if not PROJECT_MASK[p] & PROJECT_MASK[q]
        ]
        return sorted(DECLARATION_ACTION[projects] for projects in found)

    def _declare(self, projects: tuple[int, ...]) -> None:
        """Declared in private; everyone sees all declarations after trick 1."""
        seat = self.current
        self._declarations[seat] = projects
        shown = _declaration_text(projects).removeprefix("declare ")
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

    # -- scoring and the end ----------------------------------------------------------------

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


# --- Observation -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BalootBidMade:
    """One call: ``bid`` pass, hokum, sun or ashkal; ``stage`` the bidding phase it was in."""

    seat: int
    bid: str
    bidding_round: int
    stage: str


@dataclass(frozen=True, slots=True)
class BalootDoublingMade:
    """One step of the doubling chain: decline, double, triple, four or gahwa."""

    seat: int
    doubling: str


@dataclass(frozen=True, slots=True)
class BalootDeclaredProject:
    """A declared project with its seat and its points in this round's contract."""

    seat: int
    kind: str
    cards: tuple[Card, ...]
    points: int


@dataclass(frozen=True, slots=True)
class BalootObservation:
    """What one seat may know; fields mirror the proto ``BalootObservation`` by name.

    ``contract``, ``trump``, ``buyer`` and ``project_team`` are ``None`` until known;
    ``projects`` is empty until trick 1 is over; ``own_projects`` shows this seat's
    declaration as soon as it is made.
    """

    seat: int
    dealer: int
    phase: str
    round_number: int
    hand: tuple[Card, ...]
    up_card: Card
    bidding_round: int
    bids: tuple[BalootBidMade, ...]
    contract: str | None
    trump: str | None
    buyer: int | None
    multiplier: int
    gahwa: bool
    locked: bool
    doubling_allowed: bool
    doublings: tuple[BalootDoublingMade, ...]
    own_projects: tuple[BalootDeclaredProject, ...]
    projects: tuple[BalootDeclaredProject, ...]
    project_team: int | None
    trick: tuple[PlayedCard, ...]
    tricks: tuple[Trick, ...]
    tricks_won: tuple[int, ...]
    abnat: tuple[int, ...]
    scores: tuple[int, ...]
    hand_sizes: tuple[int, ...]


register(BalootGame())
