"""Persian Rummy's legal moves: ``Meld``, a meld on the table, and ``PersianRummyLegal``, the
part of the state that works out each turn's options (draws, takes, passes, melds, lay-offs and
discards) on the hand's masks. Part of the engine ``arena.games.persian_rummy.game``, which
exports these names.
"""

from __future__ import annotations

from arena.games.api import PhaseState
from arena.games.persian_rummy import rules
from arena.games.persian_rummy.actions import (
    BYTE_DISCARDS,
    CARDS,
    DRAW_STOCK,
    IN_STRETCH,
    JOKER_RANK,
    PASS,
    POPCOUNT4,
    RANK_MASK,
    SET_IDS,
    SET_IDS_WITH,
    SUIT_BIT,
    TAKE_BASE,
    bits,
    layoff_id,
    ranks_with_three,
    runs_of,
)
from arena.games.persian_rummy.observation import PersianRummyTableMeld
from arena.games.persian_rummy.position import DRAW
from arena.games.tricks import PlayedCard

# --- State ---------------------------------------------------------------------------------


class Meld:
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
        self.missing = -1 if self.is_run else rules.set_completion(cards)

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


def _extends(rank: int, ranks: int, runs: list[Meld]) -> bool:
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


class PersianRummyLegal(PhaseState):
    """The options of each turn, for ``PersianRummyState``: the draw, takes and pass that
    open a turn, then the melds, lay-offs and discards, worked out on the hand's masks.
    """

    hands: list[int]
    suit_masks: list[int]
    stock: list[int]
    pile: list[int]
    melds: list[Meld]
    open_sets: int
    runs_of_suit: list[list[Meld]]

    @staticmethod
    def _suit_mask(hand: int) -> int:
        mask = 0
        for c in bits(hand):
            mask |= SUIT_BIT[c]
        return mask

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
        if rules.draws_from_stock(len(self.stock)):
            return [DRAW_STOCK, *takes]
        takes.append(PASS)
        return takes

    def _meld_options(self, seat: int, must: int) -> list[int]:
        """Every MELD and LAYOFF (only those using card ``must`` when it is >= 0), and every
        DISCARD when ``must`` is -1."""
        hand, suits = self.hands[seat], self.suit_masks[seat]
        out: list[int] = []
        if must < 0:
            triples = ranks_with_three(hand)
            while triples:
                low = triples & -triples
                rank = low.bit_length() >> 2
                out += SET_IDS[rank][(hand >> (rank << 2)) & 15]
                triples ^= low
            for suit in range(4):
                ranks = (suits >> (suit << 4)) & RANK_MASK
                if IN_STRETCH[ranks]:
                    out.extend(run[0] for run in runs_of(suit, ranks))
        else:
            rank = must >> 2
            out.extend(SET_IDS_WITH[must][(hand >> (rank << 2)) & 15])
            if rank < JOKER_RANK:
                suit = must & 3
                ranks = (suits >> (suit << 4)) & RANK_MASK
                if IN_STRETCH[ranks] >> rank & 1:
                    out.extend(r[0] for r in runs_of(suit, ranks) if r[1] <= rank <= r[2])
        for meld in self.melds:
            if meld.is_run:
                if suits & meld.ends:
                    self._run_layoffs(meld, suits, must, out)
            elif meld.missing >= 0:
                missing = meld.missing
                if hand >> missing & 1 and must in (-1, missing):
                    ranks = 0 if missing >= 52 else 1 << (missing >> 2)
                    out.append(layoff_id(meld.id, missing, ranks))
        out.sort()
        if must < 0:
            out += bits(hand, BYTE_DISCARDS)
        return out

    @staticmethod
    def _run_layoffs(meld: Meld, suits: int, must: int, out: list[int]) -> None:
        suit, low, high = meld.suit, meld.low, meld.high
        ranks = (suits >> (suit << 4)) & RANK_MASK
        down, up = rules.run_reach(low, high, ranks)  # held ranks just under and over the run
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
                    out.append(layoff_id(meld.id, first, ranks_laid))
