"""Persian Rummy: partnership 500 Rum for four players with a 56-card pack (four jokers).

Seats 0 and 2 play seats 1 and 3. A draw picks the first dealer (ace low, joker high; the
lowest deals, ties redraw). Each deal gives seven cards to every player; the other 28
form the stock, whose top card is turned up to start the discard pile. A turn is one
draw (the stock's top card, or any card of the fanned discard pile together with every
card above it), any number of melds and lay-offs, then one discard. Every card a player
puts on the table scores its value for his team; cards left in hand count against it.
Two deals make a game; the higher total wins, equal totals are a draw.

What surprises people who know other rummies:

* Jokers are not wild. They only ever meld with each other: three or four jokers make a
  set (worth 20 each), never a run, never a mixed set.
* Any card of the discard pile may be taken, not just the top one, but the player takes
  every card above it too and must meld or lay off the chosen card in his very next
  action. Taking is illegal when that is impossible, even for the top card alone.
* A set of four laid down in one meld scores double (four jokers at once: 160). A set
  completed to four by a later lay-off, and any run, score single.
* Lay-offs may go on anyone's meld, opponents' included, and score for the team of the
  player who lays off. Several cards may be laid off on one meld in one action.
* Only melding or laying off the last card goes out (+25 for the team). Discarding the
  last card is legal but does not end the deal: that player keeps taking turns with an
  empty hand.
* The discard pile never becomes a new stock. Once the stock is empty every turn is a
  take or a pass, and four passes in a row end the deal without a going-out bonus.
* Aces are high only: Q-K-A is a run, A-2-3 is not. Ten counts 10, faces 10, ace 15.

Decisions beyond the rules text:

* Teams are fixed by the arena's seating; the draw only picks the first dealer. In the
  draw every candidate takes one card of a fresh shuffle in seat order; only the players
  tied for lowest draw again, from another fresh shuffle.
* The deal takes cards from the front of the shuffled pack; the 29th card is the top of
  the stock and is turned up. The pile records who discarded each card (nobody for the
  turned-up one).
* No safeguard option: every deal ends. While the stock lasts each turn draws from it or
  takes and melds a pile card for good; once it is empty a turn is a take (which melds a
  card for good) or a pass, and four passes in a row end the deal. So a deal has at most
  27 draws, 56 takes and 3 passes before each take plus the last 4, and a game is exactly
  two deals.
* Only the acting seat's choices are restricted: DRAW_STOCK and PASS stay legal when a
  TAKE is possible, nobody is ever obliged to meld, and an empty hand may still TAKE
  when the taken cards meld (and then goes out by melding them all).
* Melds and lay-offs are offered whole, one action each. The list stays small because a
  meld is a set (at most five per rank) or a stretch of consecutive ranks of one suit,
  and a lay-off on a run is a choice of how far to extend each end, so there is no
  exponential blow-up that would call for splitting them into smaller choices.
* When a deal ends the cards left in hand are shown to all (the ``hand_end`` event), as
  scoring them requires.

Positions: ``PersianRummyGame.from_position`` starts a match from a deal in progress
(hands, stock, pile, melds on the table, the seat to act and its turn's phase, the match
so far), as a FEN does in chess; ``PersianRummyState.position()`` reads one back, and
the position's checks refuse, with a ``DealError`` saying why, anything the rules cannot
hold. A position may set cards out of play (``out_of_play``), which real play never
does, for study positions with a short stock.

Cards have an index in canonical order, rank-major: ``index = 4 * rank + suit`` with
ranks 2..A as 0..12 and suits C, D, H, S as 0..3; jokers X1..X4 are 52..55 (rank 13,
"suit" = joker number - 1). Action ids keep one meaning for the whole game, and their
ascending order is the canonical order of the rules (kind, then pile index, meld id,
then cards compared card by card, a shorter prefix first)::

    0                         draw                 DRAW_STOCK
    1 + i         (1..56)     take i               TAKE the pile card at index i
    57                        pass                 PASS (empty stock only)
    64 + 32*c + shape         meld ...             MELD; c = the meld's lowest card
        shape 0..4:  a set, its suits (joker numbers) as one of SET_SHAPES:
                     0 CDH, 1 CDHS, 2 CDS, 3 CHS (c is the club), 4 DHS (c is the diamond)
        shape 19..29: a run of (shape - 16) cards going up from c
    2048 + 8192*(56*m + c) + ranks
                              layoff m ...         LAYOFF on table meld m; c = the
                              lowest card laid off; ranks = 13-bit mask of the laid-off
                              cards' ranks (2 = bit 0 .. A = bit 12), all in c's suit;
                              0 when c is a joker
    2**24 + c                 discard ...          DISCARD card c

Meld ids run 0..31 in the encoding (a deal has at most 18 melds of three cards or more).
All ids are below 2**25. For one meld and one lowest card, a larger rank mask is a longer
extension, so ascending ids order lay-offs card by card as well.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache

from arena.games.api import (
    GAME_OVER,
    Deal,
    DealError,
    Event,
    Game,
    GameError,
    GameInfo,
    IllegalActionError,
    Options,
    PhaseState,
    check_progress,
)
from arena.games.cards import JOKERS, SUITS, Card, pretty
from arena.games.registry import register
from arena.games.tricks import PlayedCard

# --- Facts of the game -------------------------------------------------------------------

GAME_INFO = GameInfo(
    name="persian-rummy",
    title="Persian Rummy",
    num_seats=4,
    seat_teams=(0, 1, 0, 1),
    options=(),
    description="Partnership 500 Rum with four non-wild jokers: take from anywhere in the "
    "fanned discard pile, sets of four melded at once score double, two deals.",
)

NUM_SEATS = 4
SEAT_TEAMS = GAME_INFO.seat_teams
NUM_DEALS = 2
HAND_SIZE = 7
GOING_OUT_BONUS = 25
PASSES_TO_END = 4
JOKER_RANK = 13

RANKS = "23456789TJQKA"
CARDS: tuple[Card, ...] = (*(r + s for r in RANKS for s in SUITS), *JOKERS)
"""The 56 cards in canonical order: 2C 2D 2H 2S 3C ... AS X1 X2 X3 X4."""
NUM_CARDS = len(CARDS)
CARD_INDEX: dict[Card, int] = {card: i for i, card in enumerate(CARDS)}
PRETTY: tuple[str, ...] = tuple(pretty(card) for card in CARDS)
"""Each card as logs show it: ``Q♥``, ``10♠``, ``X1``."""

VALUE: tuple[int, ...] = tuple(
    20 if i >= 52 else 15 if i >> 2 == 12 else min(10, (i >> 2) + 2) for i in range(NUM_CARDS)
)
"""Points of each card index, on the table or left in hand: 2-9 pips, T/J/Q/K 10, A 15,
joker 20."""

DRAW_RANK: tuple[int, ...] = tuple(
    14 if i >= 52 else 1 if i >> 2 == 12 else (i >> 2) + 2 for i in range(NUM_CARDS)
)
"""Rank of a card in the draw for the first deal: ace 1, 2..10, J 11, Q 12, K 13, joker 14."""

SET_SHAPES: tuple[tuple[int, ...], ...] = ((0, 1, 2), (0, 1, 2, 3), (0, 1, 3), (0, 2, 3), (1, 2, 3))
"""The five sets of one rank (suits, or joker numbers - 1), ordered card by card."""

# --- Action ids (see the module docstring) -------------------------------------------------

DRAW_STOCK = 0
TAKE_BASE = 1
PASS = 57
MELD_BASE = 64
RUN_SHAPE = 16
LAYOFF_BASE = 2048
LAYOFF_STRIDE = 8192
MAX_MELDS = 32
DISCARD_BASE = 1 << 24
RANK_MASK = (1 << 13) - 1


def _meld_id(first: int, shape: int) -> int:
    return MELD_BASE + 32 * first + shape


def _layoff_id(meld: int, first: int, ranks: int) -> int:
    return LAYOFF_BASE + LAYOFF_STRIDE * (NUM_CARDS * meld + first) + ranks


def _build_meld_table() -> dict[int, tuple[int, ...]]:
    """Every meld id with its cards."""
    table: dict[int, tuple[int, ...]] = {}
    for rank in range(JOKER_RANK + 1):
        for shape, suits in enumerate(SET_SHAPES):
            table[_meld_id(4 * rank + suits[0], shape)] = tuple(4 * rank + s for s in suits)
    for first in range(52):
        for length in range(3, 14 - (first >> 2)):  # the run ends at the ace at most
            table[_meld_id(first, RUN_SHAPE + length)] = tuple(first + 4 * k for k in range(length))
    return table


MELD_CARDS: dict[int, tuple[int, ...]] = _build_meld_table()

SETS_OF_SUITS: tuple[tuple[int, ...], ...] = tuple(
    tuple(shape for shape, suits in enumerate(SET_SHAPES) if all(mask >> s & 1 for s in suits))
    for mask in range(16)
)
"""For a 4-bit mask of the suits held in one rank, the set shapes that can be melded."""

SET_IDS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(
        tuple(_meld_id(4 * rank + SET_SHAPES[shape][0], shape) for shape in SETS_OF_SUITS[mask])
        for mask in range(16)
    )
    for rank in range(JOKER_RANK + 1)
)

SET_IDS_WITH: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(
        tuple(
            _meld_id(4 * rank + SET_SHAPES[shape][0], shape)
            for shape in SETS_OF_SUITS[mask]
            if suit in SET_SHAPES[shape]
        )
        for mask in range(16)
    )
    for rank in range(JOKER_RANK + 1)
    for suit in range(4)
)
"""Indexed by card index, then by rank mask: the set ids that contain that card."""


def _stretch_table() -> tuple[int, ...]:
    """For each 13-bit rank mask, the ranks that lie in a stretch of 3+ consecutive ranks."""
    table = []
    for mask in range(1 << 13):
        keep = 0
        rank = 0
        while rank < 13:
            if mask >> rank & 1:
                end = rank
                while end + 1 < 13 and mask >> (end + 1) & 1:
                    end += 1
                if end - rank >= 2:
                    keep |= ((1 << (end + 1)) - 1) ^ ((1 << rank) - 1)
                rank = end + 1
            else:
                rank += 1
        table.append(keep)
    return tuple(table)


IN_STRETCH: tuple[int, ...] = _stretch_table()


@cache
def _runs(suit: int, mask: int) -> tuple[tuple[int, int, int], ...]:
    """Every run a hand with these ranks of ``suit`` can meld: (action id, low, high)."""
    runs = []
    keep = IN_STRETCH[mask]
    for low in range(11):
        if not keep >> low & 1:
            continue
        high = low + 1
        while high < 13 and mask >> high & 1:
            if high - low >= 2:
                runs.append((_meld_id(4 * low + suit, RUN_SHAPE + high - low + 1), low, high))
            high += 1
    return tuple(runs)


POPCOUNT4 = tuple(bin(m).count("1") for m in range(16))
NIBBLE_ONES = int("1" * 14, 16)
"""0x1111...: one bit per rank nibble of a hand mask (14 ranks, jokers included)."""
PAIR_BITS = int("5" * 14, 16)
QUAD_BITS = int("3" * 14, 16)


def _ranks_with_three(hand: int) -> int:
    """Bit ``4 * rank + 2`` set for every rank of which the hand holds 3 or 4 cards."""
    pairs = (hand & PAIR_BITS) + ((hand >> 1) & PAIR_BITS)
    counts = (pairs & QUAD_BITS) + ((pairs >> 2) & QUAD_BITS)
    return (counts + NIBBLE_ONES) & (NIBBLE_ONES << 2)


SUIT_BIT: tuple[int, ...] = tuple(
    0 if i >= 52 else 1 << (16 * (i & 3) + (i >> 2)) for i in range(NUM_CARDS)
)
"""A card's bit in a hand's suit-major mask (bit 16 * suit + rank); jokers have none."""

_BYTE_ITEMS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(8 * k + b for b in range(8) if byte >> b & 1) for byte in range(256))
    for k in range(7)
)
"""For byte ``k`` of a hand mask and its value: the card indices it holds."""
_BYTE_DISCARDS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(DISCARD_BASE + c for c in items) for items in per_byte) for per_byte in _BYTE_ITEMS
)
"""The same, as the ids of discarding those cards."""


def _bits(mask: int, table: tuple[tuple[tuple[int, ...], ...], ...] = _BYTE_ITEMS) -> list[int]:
    """The card indices of a 56-bit hand mask, ascending (or, with ``_BYTE_DISCARDS``, the
    ids of discarding them)."""
    out: list[int] = []
    k = 0
    while mask:
        out += table[k][mask & 255]
        mask >>= 8
        k += 1
    return out


@lru_cache(maxsize=1 << 14)
def _codes(mask: int) -> tuple[Card, ...]:
    return tuple(CARDS[i] for i in _bits(mask))


# --- Decoding action ids (text and payload depend on the id only) --------------------------


@dataclass(frozen=True, slots=True)
class PersianRummyMeldCards:
    """Payload of a MELD: the new meld's cards in canonical order."""

    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class PersianRummyLayoffCards:
    """Payload of a LAYOFF: the table meld's id and the cards added to it."""

    meld_id: int
    cards: tuple[Card, ...]


def _bad(action: int) -> IllegalActionError:
    return IllegalActionError(f"persian-rummy has no action {action}")


@lru_cache(maxsize=1 << 13)  # ids met so far; see arena.wire
def _layoff_parts(action: int) -> tuple[int, tuple[int, ...]]:
    """The meld id and card indices of a LAYOFF id; raises for ids that name no cards."""
    offset = action - LAYOFF_BASE
    ranks = offset & RANK_MASK
    meld, first = divmod(offset // LAYOFF_STRIDE, NUM_CARDS)
    if meld >= MAX_MELDS:
        raise _bad(action)
    if first >= 52:
        if ranks:
            raise _bad(action)
        return meld, (first,)
    suit, rank = first & 3, first >> 2
    if not ranks >> rank & 1 or ranks & ((1 << rank) - 1):
        raise _bad(action)
    return meld, tuple(4 * r + suit for r in range(rank, 13) if ranks >> r & 1)


@lru_cache(maxsize=1 << 13)  # ids met so far; see arena.wire
def _describe(action: int) -> tuple[str, tuple[str, object]]:
    """Canonical text and payload of an action id."""
    if action == DRAW_STOCK:
        return "draw", ("draw_stock", True)
    if TAKE_BASE <= action < TAKE_BASE + NUM_CARDS:
        return f"take {action - TAKE_BASE}", ("take", action - TAKE_BASE)
    if action == PASS:
        return "pass", ("pass_turn", True)
    if action in MELD_CARDS:
        cards = tuple(CARDS[i] for i in MELD_CARDS[action])
        return "meld " + " ".join(cards), ("meld", PersianRummyMeldCards(cards))
    if LAYOFF_BASE <= action < DISCARD_BASE:
        meld, indices = _layoff_parts(action)
        cards = tuple(CARDS[i] for i in indices)
        return (
            f"layoff {meld} " + " ".join(cards),
            ("layoff", PersianRummyLayoffCards(meld, cards)),
        )
    if DISCARD_BASE <= action < DISCARD_BASE + NUM_CARDS:
        card = CARDS[action - DISCARD_BASE]
        return f"discard {card}", ("discard", card)
    raise _bad(action)


# --- Game ----------------------------------------------------------------------------------


class PersianRummyGame(Game):
    """Makes Persian Rummy matches; holds no per-match data."""

    info = GAME_INFO

    def new_state(
        self, seed: int, options: Mapping[str, object] | None = None, *, deal: Deal | None = None
    ) -> PersianRummyState:
        """A match dealt from ``seed``, or whose first deal is ``deal``: ``hands`` are the
        seven cards of each seat, ``rest`` the 28 of the stock from the top, so ``rest[0]``
        is turned up to start the discard pile and ``rest[1]`` is the first card drawn. A
        chosen ``dealer`` deals without the draw for the first dealer (no ``dealer_draw``
        event); None draws for it from the seed. The deal's ``scores`` may be negative;
        ``deal_number`` is 1 or 2; in deal 2 the first dealer was the seat before
        ``dealer`` (with no ``dealer`` chosen, the seed draws the first dealer, without a
        ``dealer_draw`` event, and his left deals deal 2)."""
        return PersianRummyState(seed, GAME_INFO.resolve_options(options), deal)

    def from_position(
        self,
        position: PersianRummyPosition,
        *,
        seed: int = 0,
        options: Mapping[str, object] | None = None,
    ) -> PersianRummyState:
        """A match that goes on from ``position``, a deal in progress (see
        ``PersianRummyPosition``); ``seed`` shuffles the deals after it. A position the
        rules cannot hold raises ``DealError`` saying what is wrong and what is allowed.
        The match has no events before the position, and no ``initial_deal()``."""
        return PersianRummyState(seed, GAME_INFO.resolve_options(options), position=position)


# --- State ---------------------------------------------------------------------------------

# Phases, named as the proto's PersianRummyPhase values (lower case, without the prefix).
DRAW = "draw"
USE_CHOSEN = "use_chosen"
MELD = "meld"


class _Meld:
    """A meld on the table (mutable inside the engine; observations get a frozen copy)."""

    __slots__ = (
        "by",
        "cards",
        "doubled",
        "ends",
        "high",
        "id",
        "is_run",
        "low",
        "missing",
        "rank",
        "suit",
    )

    def __init__(self, meld_id: int, cards: tuple[int, ...], seat: int) -> None:
        self.id = meld_id
        self.by = seat
        self.cards: list[tuple[int, int]] = [(c, seat) for c in cards]
        self.is_run = cards[0] >> 2 != cards[1] >> 2
        self.rank = cards[0] >> 2
        self.suit = cards[0] & 3
        self.low = cards[0] >> 2
        self.high = cards[-1] >> 2
        self.ends = self._ends()
        self.doubled = not self.is_run and len(cards) == 4
        # The card that would complete a set of three to four; -1 for runs and full sets.
        self.missing = (
            4 * self.rank + 6 - sum(c & 3 for c in cards)
            if len(cards) == 3 and not self.is_run
            else -1
        )

    def add(self, cards: tuple[int, ...], seat: int) -> None:
        self.cards = sorted([*self.cards, *((c, seat) for c in cards)])
        self.missing = -1
        if self.is_run:
            self.low = self.cards[0][0] >> 2
            self.high = self.cards[-1][0] >> 2
            self.ends = self._ends()

    def _ends(self) -> int:
        """A run's two neighbouring cards as bits of a suit-major hand mask (0 for sets):
        a hand holding neither can lay nothing off on it."""
        if not self.is_run:
            return 0
        below = 1 << (self.low - 1) if self.low > 0 else 0
        above = 1 << (self.high + 1) if self.high < 12 else 0
        return (below | above) << (16 * self.suit)

    def frozen(self) -> PersianRummyTableMeld:
        return PersianRummyTableMeld(
            id=self.id,
            kind="run" if self.is_run else "set",
            cards=tuple(PlayedCard(seat, CARDS[c]) for c, seat in self.cards),
            doubled=self.doubled,
            melded_by=self.by,
        )


def _progress_problem(scores: tuple[int, ...], deal_number: int) -> str | None:
    """What keeps scores and a deal number from a match in progress: a game is two
    deals, and scores may be anything (cards left in hand count against a team)."""
    if deal_number > NUM_DEALS:
        return (
            f"deal_number must be 1..{NUM_DEALS} (a game is {NUM_DEALS} deals), not {deal_number}"
        )
    return None


def _extends(rank: int, ranks: int, runs: list[_Meld]) -> bool:
    """Whether a card of this rank, with the held ``ranks`` of its suit, extends a run."""
    for run in runs:
        if rank < run.low:
            need = (1 << run.low) - (1 << rank)
        elif rank > run.high:
            need = (1 << (rank + 1)) - (1 << (run.high + 1))
        else:
            continue
        if ranks & need == need:
            return True
    return False


class PersianRummyState(PhaseState):
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
            progress=_progress_problem,
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
            hands=tuple(_codes(hand) for hand in self.hands),
            to_act=self.current,
            dealer=self.dealer,
            phase=self.phase,
            stock=tuple(CARDS[card] for card in reversed(self.stock)),
            pile=self.pile_views,
            melds=self.meld_views,
            known=tuple(_codes(known) for known in self.known),
            chosen=CARDS[self.chosen] if self.chosen >= 0 else None,
            passes=self.passes,
            deal_number=self.deal_number,
            scores=tuple(self.team_scores),
            out_of_play=self.out_of_play,
        )

    def action_text(self, action: int) -> str:
        return _describe(action)[0]

    def action_payload(self, action: int) -> tuple[str, object]:
        return _describe(action)[1]

    def _apply(self, action: int) -> None:
        actor = self.current
        if action >= DISCARD_BASE:
            self._discard(action - DISCARD_BASE)
        elif action >= LAYOFF_BASE:
            meld, cards = _layoff_parts(action)
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
            views[actor] = PersianRummySeatCards(actor, _codes(self.known[actor]))
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
                tuple(_codes(h) for h in hands),
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
        self.melds: list[_Meld] = []
        self.meld_views: tuple[PersianRummyTableMeld, ...] = ()
        self.set_of_rank = [-1] * (JOKER_RANK + 1)
        self.open_sets = 0  # bit per rank (jokers 13) with a set of three on the table
        self.runs_of_suit: list[list[_Meld]] = [[] for _ in range(4)]
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
                    "hands": [list(_codes(h)) for h in self.hands],
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
        """Take on a deal in progress, checked by ``_check_position``."""
        _check_position(position)
        self.dealer = position.dealer
        self.deal_number = position.deal_number
        self.first_dealer = (self.dealer - self.deal_number + 1) % NUM_SEATS
        self.team_scores = list(position.scores or (0, 0))
        self.out_of_play = _canonical(position.out_of_play)
        self.hands = [_mask(hand) for hand in position.hands]
        self.suit_masks = [self._suit_mask(hand) for hand in self.hands]
        self.known = [_mask(known) for known in position.known]
        self.known_view = tuple(
            PersianRummySeatCards(seat, _codes(self.known[seat])) for seat in range(NUM_SEATS)
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
            meld = _Meld(table_meld.id, tuple(card for card, _ in placed), table_meld.melded_by)
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

    @staticmethod
    def _suit_mask(hand: int) -> int:
        mask = 0
        for c in _bits(hand):
            mask |= SUIT_BIT[c]
        return mask

    # -- turns ----------------------------------------------------------------------------

    def _start_turn(self, seat: int) -> None:
        self.current = seat
        self.phase = DRAW
        self.chosen = -1
        self._legal = self._draw_options(seat)

    def _draw_options(self, seat: int) -> list[int]:
        """DRAW_STOCK if the stock has a card, every usable TAKE, PASS if the stock is empty.

        A TAKE is usable when, with the hand after the take, the chosen card completes a
        set, lies in a stretch of 3+ consecutive ranks of its suit, fills an open set of
        three on the table, or extends a table run through cards then held.
        """
        hand, suits = self.hands[seat], self.suit_masks[seat]
        pile = self.pile
        open_sets = self.open_sets
        takes: list[int] = []
        for i in range(len(pile) - 1, -1, -1):
            card = pile[i]
            hand |= 1 << card
            suits |= SUIT_BIT[card]
            rank = card >> 2
            if POPCOUNT4[(hand >> (rank << 2)) & 15] >= 3 or open_sets >> rank & 1:
                takes.append(TAKE_BASE + i)
            elif rank < JOKER_RANK:
                suit = card & 3
                ranks = (suits >> (suit << 4)) & RANK_MASK
                if IN_STRETCH[ranks] >> rank & 1 or (
                    self.runs_of_suit[suit] and _extends(rank, ranks, self.runs_of_suit[suit])
                ):
                    takes.append(TAKE_BASE + i)
        takes.reverse()
        if self.stock:
            return [DRAW_STOCK, *takes]
        takes.append(PASS)
        return takes

    def _meld_options(self, seat: int, must: int) -> list[int]:
        """Every MELD and LAYOFF (only those using card ``must`` when it is >= 0), and every
        DISCARD when ``must`` is -1."""
        hand, suits = self.hands[seat], self.suit_masks[seat]
        out: list[int] = []
        if must < 0:
            triples = _ranks_with_three(hand)
            while triples:
                low = triples & -triples
                rank = low.bit_length() >> 2
                out += SET_IDS[rank][(hand >> (rank << 2)) & 15]
                triples ^= low
            for suit in range(4):
                ranks = (suits >> (suit << 4)) & RANK_MASK
                if IN_STRETCH[ranks]:
                    out.extend(run[0] for run in _runs(suit, ranks))
        else:
            rank = must >> 2
            out.extend(SET_IDS_WITH[must][(hand >> (rank << 2)) & 15])
            if rank < JOKER_RANK:
                suit = must & 3
                ranks = (suits >> (suit << 4)) & RANK_MASK
                if IN_STRETCH[ranks] >> rank & 1:
                    out.extend(r[0] for r in _runs(suit, ranks) if r[1] <= rank <= r[2])
        for meld in self.melds:
            if meld.is_run:
                if suits & meld.ends:
                    self._run_layoffs(meld, suits, must, out)
            elif meld.missing >= 0:
                missing = meld.missing
                if hand >> missing & 1 and must in (-1, missing):
                    ranks = 0 if missing >= 52 else 1 << (missing >> 2)
                    out.append(_layoff_id(meld.id, missing, ranks))
        out.sort()
        if must < 0:
            out += _bits(hand, _BYTE_DISCARDS)
        return out

    @staticmethod
    def _run_layoffs(meld: _Meld, suits: int, must: int, out: list[int]) -> None:
        suit, low, high = meld.suit, meld.low, meld.high
        ranks = (suits >> (suit << 4)) & RANK_MASK
        below = ~ranks & ((1 << low) - 1)
        down = low - below.bit_length()  # held ranks just under the run
        above = ranks >> (high + 1)
        up = ((~above) & (above + 1)).bit_length() - 1  # held ranks just over it
        if not down and not up:
            return
        if must >= 0:
            if must >= 52 or must & 3 != suit:
                return
            rank = must >> 2
            if low - down <= rank < low:
                lows: range = range(low - rank, down + 1)
                highs: range = range(up + 1)
            elif high < rank <= high + up:
                lows = range(down + 1)
                highs = range(rank - high, up + 1)
            else:
                return
        else:
            lows, highs = range(down + 1), range(up + 1)
        for k in lows:
            low_part = (1 << low) - (1 << (low - k))
            first = 4 * (low - k) + suit if k else 4 * (high + 1) + suit
            for j in highs:
                if k or j:
                    ranks_laid = low_part | (((1 << j) - 1) << (high + 1))
                    out.append(_layoff_id(meld.id, first, ranks_laid))

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
        meld = _Meld(len(self.melds), cards, seat)
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
            in_hand[SEAT_TEAMS[seat]] += sum(VALUE[c] for c in _bits(self.hands[seat]))
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
                    "hands": [list(_codes(h)) for h in self.hands],
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
            _codes(self.hands[seat]),
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


# --- Observation -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PersianRummyDiscard:
    """One card of the discard pile and the seat that discarded it (None: turned up)."""

    card: Card
    seat: int | None


@dataclass(frozen=True, slots=True)
class PersianRummyTableMeld:
    """A meld on the table; ``kind`` is "set" or "run"; each card with the seat that
    placed it, in canonical order."""

    id: int
    kind: str
    cards: tuple[PlayedCard, ...]
    doubled: bool
    melded_by: int


@dataclass(frozen=True, slots=True)
class PersianRummySeatCards:
    """Cards tied to one seat."""

    seat: int
    cards: tuple[Card, ...]


@dataclass(slots=True)
class PersianRummyObservation:
    """What one seat may know; fields mirror the proto ``PersianRummyObservation`` by name.

    A fresh object per call and read-only by convention; it is not frozen because a frozen
    dataclass of this size costs three times as much to build, once per decision. Its
    nested values are frozen and shared between calls.

    ``chosen_card`` is set only in the ``use_chosen`` phase; ``known_cards`` lists, per
    seat, the pile cards it took (seen by everyone) that it still holds.
    """

    seat: int
    deal_number: int
    dealer: int
    phase: str
    hand: tuple[Card, ...]
    discard_pile: tuple[PersianRummyDiscard, ...]
    melds: tuple[PersianRummyTableMeld, ...]
    stock_size: int
    hand_sizes: tuple[int, ...]
    scores: tuple[int, ...]
    table_points: tuple[int, ...]
    chosen_card: Card | None
    passes: int
    known_cards: tuple[PersianRummySeatCards, ...]


# --- Positions -------------------------------------------------------------------------------

PHASES = ("draw", "use_chosen", "meld")
"""The phases a position may be in (``game_over`` is no position to play from)."""


@dataclass(frozen=True)
class PersianRummyPosition:
    """A deal in progress, everything a turn depends on, for
    ``PersianRummyGame.from_position`` (tests, bots and analysis start from one, as from
    a FEN in chess); ``PersianRummyState.position()`` reads one back. Cards are codes
    (``QH``, ``X1``); seats 0..3.

    * ``hands``: the cards each seat holds, one tuple per seat, in any order; a hand may
      hold any number of cards, none included.
    * ``to_act`` and ``phase``: the seat whose turn it is and where the turn is:
      ``draw`` (its start: draw, take or pass), ``use_chosen`` (just after a take: the
      ``chosen`` card, taken from the pile and still in hand, must be melded or laid off
      next, and it must be possible) or ``meld`` (after the draw or the use: melds,
      lay-offs, a discard; the hand is not empty). ``chosen`` is None in other phases.
    * ``stock``: the face-down stock, the next card drawn first.
    * ``pile``: the discard pile from the bottom, each card with the seat that discarded
      it; only the bottom card may have None (turned up from the stock).
    * ``melds``: the table, as observations show it: meld ``i`` has id ``i``, ``kind``
      ``set`` (3 or 4 cards of a rank, or 3 or 4 jokers) or ``run`` (3 or more
      consecutive ranks of a suit, aces high only), each card with the seat that placed
      it, and ``melded_by`` the seat that laid it down: that seat placed at least three of
      its cards, a stretch of a run. ``doubled`` (a set of four laid down at once, all by
      ``melded_by``) scores the set twice. The table points of each team follow from the
      melds.
    * ``known``: per seat, the pile cards it took and still holds (everyone saw them),
      a part of its hand.
    * ``passes``: passes in a row so far, 0..3; only on an empty stock, at a turn's start.
    * ``deal_number`` (1 or 2) and ``scores``: the match before this deal, as
      ``Deal`` has them; the dealer of deal 2 is the first dealer's left.
    * ``out_of_play``: cards that are in none of these places. Real play never has any:
      they are for study positions (a short stock with the other cards gone), and are
      never drawn, seen or scored. Hands, stock, pile, melds and ``out_of_play`` hold
      the 56 cards exactly once.
    """

    hands: tuple[tuple[Card, ...], ...]
    to_act: int
    dealer: int
    phase: str = "draw"
    stock: tuple[Card, ...] = ()
    pile: tuple[PersianRummyDiscard, ...] = ()
    melds: tuple[PersianRummyTableMeld, ...] = ()
    known: tuple[tuple[Card, ...], ...] = ((), (), (), ())
    chosen: Card | None = None
    passes: int = 0
    deal_number: int = 1
    scores: tuple[int, ...] = (0, 0)
    out_of_play: tuple[Card, ...] = ()


def _mask(cards: tuple[Card, ...]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << CARD_INDEX[card]
    return mask


def _canonical(cards: tuple[Card, ...]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=CARD_INDEX.__getitem__))


def _is_seat(value: object) -> bool:
    return type(value) is int and 0 <= value < NUM_SEATS


def _position_error(problem: str) -> DealError:
    return DealError(f"persian-rummy: {problem}")


def _check_position(position: PersianRummyPosition) -> None:
    """Raise ``DealError`` unless the rules can hold ``position`` (the chosen card's use is
    checked once the table is built): the rules of ``POSITION_RULES`` in order, the first
    one broken is the one reported."""
    for rule in POSITION_RULES:
        rule(position)


def _dealer_and_to_act_are_seats(p: PersianRummyPosition) -> None:
    for name in ("dealer", "to_act"):
        value = getattr(p, name)
        if not _is_seat(value):
            raise _position_error(f"{name} must be a seat 0..3, not {value!r}")


def _phase_is_a_turn_phase(p: PersianRummyPosition) -> None:
    if p.phase not in PHASES:
        raise _position_error(
            f"phase must be one of {', '.join(PHASES)} (a finished match is no position), "
            f"not {p.phase!r}"
        )


def _match_so_far_leaves_a_deal(p: PersianRummyPosition) -> None:
    check_progress(GAME_INFO.name, p.scores, p.deal_number, 2, _progress_problem)


def _hands_and_known_per_seat(p: PersianRummyPosition) -> None:
    for name in ("hands", "known"):
        if len(getattr(p, name)) != NUM_SEATS:
            raise _position_error(
                f"{name} has one tuple of cards per seat, 4, not {len(getattr(p, name))}"
            )


def _places(p: PersianRummyPosition) -> list[tuple[str, Card]]:
    """Every card of a position with its place: hands, stock, pile, melds, out of play."""
    places: list[tuple[str, Card]] = []
    for seat, hand in enumerate(p.hands):
        places += ((f"seat {seat}'s hand", card) for card in hand)
    places += (("the stock", card) for card in p.stock)
    for i, discard in enumerate(p.pile):
        if not isinstance(discard, PersianRummyDiscard):
            raise _position_error(f"pile card {i} must be a PersianRummyDiscard, not {discard!r}")
        places.append(("the pile", discard.card))
    for i, meld in enumerate(p.melds):
        if not isinstance(meld, PersianRummyTableMeld):
            raise _position_error(f"meld {i} must be a PersianRummyTableMeld, not {meld!r}")
        places += ((f"meld {i}", placed.card) for placed in meld.cards)
    places += (("out_of_play", card) for card in p.out_of_play)
    return places


def _every_card_in_one_place(p: PersianRummyPosition) -> None:
    places = _places(p)
    strange = [card for _, card in places if card not in CARD_INDEX]
    if strange:
        raise _position_error(
            f"{', '.join(map(repr, strange))} {'is' if len(strange) == 1 else 'are'} not "
            f"{'a card' if len(strange) == 1 else 'cards'} of the pack (56 cards: "
            f"{' '.join(CARDS)})"
        )
    where: dict[Card, str] = {}
    for place, card in places:
        if card in where:
            raise _position_error(f"{card} is in two places, {where[card]} and {place}")
        where[card] = place
    missing = [card for card in CARDS if card not in where]
    if missing:
        raise _position_error(
            f"the 56 cards must each be somewhere; {' '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} in no hand, stock, pile or meld (list "
            "cards that are not in play in out_of_play)"
        )


def _pile_cards_were_discarded_by_seats(p: PersianRummyPosition) -> None:
    for i, discard in enumerate(p.pile):
        if not (_is_seat(discard.seat) or (discard.seat is None and i == 0)):
            raise _position_error(
                f"pile card {i} ({discard.card}) was discarded by a seat 0..3, not "
                f"{discard.seat!r}; only the bottom card may have None (turned up)"
            )


def _melds_as_play_placed_them(p: PersianRummyPosition) -> None:
    for i, meld in enumerate(p.melds):
        _check_meld(i, meld)


def _known_cards_are_in_hand(p: PersianRummyPosition) -> None:
    for seat, (known, hand) in enumerate(zip(p.known, p.hands, strict=True)):
        if not set(known) <= set(hand):
            raise _position_error(
                f"seat {seat}'s known cards {' '.join(known)} must all be in its hand "
                "(they are the pile cards it took and still holds)"
            )


def _passes_before_four_in_a_row(p: PersianRummyPosition) -> None:
    if type(p.passes) is not int or not 0 <= p.passes < PASSES_TO_END:
        raise _position_error(f"passes must be 0..{PASSES_TO_END - 1}, not {p.passes!r}")


def _passes_only_on_an_empty_stock(p: PersianRummyPosition) -> None:
    if p.passes and (p.stock or p.phase != DRAW):
        raise _position_error(
            "passes in a row happen only on an empty stock and leave the next seat at the "
            f"draw phase; this position has {len(p.stock)} stock cards and phase {p.phase}"
        )


def _chosen_card_is_a_taken_card_in_hand(p: PersianRummyPosition) -> None:
    if p.phase == USE_CHOSEN:
        if p.chosen not in p.known[p.to_act]:
            raise _position_error(
                f"in the use_chosen phase the chosen card is one that seat {p.to_act} took "
                f"from the pile and holds (in its known cards), not {p.chosen!r}"
            )
    elif p.chosen is not None:
        raise _position_error(
            f"chosen is None outside the use_chosen phase, not {p.chosen!r} in {p.phase}"
        )


def _meld_phase_holds_a_card(p: PersianRummyPosition) -> None:
    if p.phase == MELD and not p.hands[p.to_act]:
        raise _position_error(
            f"in the meld phase seat {p.to_act} holds a card (melding or laying off the last "
            "one ends the deal)"
        )


POSITION_RULES: tuple[Callable[[PersianRummyPosition], None], ...] = (
    _dealer_and_to_act_are_seats,
    _phase_is_a_turn_phase,
    _match_so_far_leaves_a_deal,
    _hands_and_known_per_seat,
    _every_card_in_one_place,
    _pile_cards_were_discarded_by_seats,
    _melds_as_play_placed_them,
    _known_cards_are_in_hand,
    _passes_before_four_in_a_row,
    _passes_only_on_an_empty_stock,
    _chosen_card_is_a_taken_card_in_hand,
    _meld_phase_holds_a_card,
)
"""The checks of ``_check_position``, one per rule, in the order they run."""


def _check_meld(i: int, meld: PersianRummyTableMeld) -> None:
    """Raise ``DealError`` unless ``meld`` is meld ``i`` as the rules can have placed it."""
    if meld.id != i:
        raise _position_error(
            f"meld {i} has id {meld.id!r}: melds are numbered 0, 1, 2... in order"
        )
    for name, seat in [
        ("melded_by", meld.melded_by),
        *(("a card's seat", p.seat) for p in meld.cards),
    ]:
        if not _is_seat(seat):
            raise _position_error(f"meld {i}: {name} must be a seat 0..3, not {seat!r}")
    placed = sorted((CARD_INDEX[p.card], p.seat) for p in meld.cards)
    cards = [card for card, _ in placed]
    shown = " ".join(CARDS[card] for card in cards)
    ranks = {card >> 2 for card in cards}
    if len(ranks) == 1 and 3 <= len(cards) <= 4:
        kind = "set"
    elif (
        len(cards) >= 3
        and len({card & 3 for card in cards}) == 1
        and JOKER_RANK not in ranks
        and max(ranks) - min(ranks) == len(cards) - 1
        and len(ranks) == len(cards)
    ):
        kind = "run"
    else:
        raise _position_error(
            f"meld {i} ({shown}) is no meld: a set is 3 or 4 cards of one rank (or 3 or 4 "
            "jokers), a run 3 or more consecutive ranks of one suit, aces high only"
        )
    if meld.kind != kind:
        raise _position_error(f"meld {i} ({shown}) is a {kind}, not a {meld.kind!r}")
    by = [seat == meld.melded_by for _, seat in placed]
    longest = run = 0
    for mine in by:
        run = run + 1 if mine else 0
        longest = max(longest, run)
    if (sum(by) if kind == "set" else longest) < 3:
        raise _position_error(
            f"meld {i} ({shown}): seat {meld.melded_by} laid it down, so it placed at least "
            f"three of its cards{'' if kind == 'set' else ' in a row'}; the others were laid off"
        )
    if meld.doubled not in (False, True) or (
        meld.doubled and not (kind == "set" and all(by) and len(cards) == 4)
    ):
        raise _position_error(
            f"meld {i} ({shown}): doubled is True only for a set of four that seat "
            f"{meld.melded_by} laid down at once, not {meld.doubled!r} here"
        )


register(PersianRummyGame())
