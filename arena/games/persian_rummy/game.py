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

from collections.abc import Mapping

from arena.games.api import Deal, Game
from arena.games.persian_rummy.actions import (
    CARD_INDEX,
    CARDS,
    DISCARD_BASE,
    DRAW_RANK,
    DRAW_STOCK,
    GAME_INFO,
    GOING_OUT_BONUS,
    HAND_SIZE,
    IN_STRETCH,
    JOKER_RANK,
    LAYOFF_BASE,
    LAYOFF_STRIDE,
    MAX_MELDS,
    MELD_BASE,
    MELD_CARDS,
    NIBBLE_ONES,
    NUM_CARDS,
    NUM_DEALS,
    NUM_SEATS,
    PAIR_BITS,
    PASS,
    PASSES_TO_END,
    POPCOUNT4,
    PRETTY,
    QUAD_BITS,
    RANK_MASK,
    RANKS,
    RUN_SHAPE,
    SEAT_TEAMS,
    SET_IDS,
    SET_IDS_WITH,
    SET_SHAPES,
    SETS_OF_SUITS,
    SUIT_BIT,
    TAKE_BASE,
    VALUE,
    PersianRummyLayoffCards,
    PersianRummyMeldCards,
    mask_codes,
)
from arena.games.persian_rummy.observation import (
    PersianRummyDiscard,
    PersianRummyObservation,
    PersianRummySeatCards,
    PersianRummyTableMeld,
)
from arena.games.persian_rummy.position import (
    DRAW,
    MELD,
    PHASES,
    POSITION_RULES,
    USE_CHOSEN,
    PersianRummyPosition,
)
from arena.games.persian_rummy.state import PersianRummyState
from arena.games.registry import register

__all__ = [
    "CARDS",
    "CARD_INDEX",
    "DISCARD_BASE",
    "DRAW",
    "DRAW_RANK",
    "DRAW_STOCK",
    "GAME_INFO",
    "GOING_OUT_BONUS",
    "HAND_SIZE",
    "IN_STRETCH",
    "JOKER_RANK",
    "LAYOFF_BASE",
    "LAYOFF_STRIDE",
    "MAX_MELDS",
    "MELD",
    "MELD_BASE",
    "MELD_CARDS",
    "NIBBLE_ONES",
    "NUM_CARDS",
    "NUM_DEALS",
    "NUM_SEATS",
    "PAIR_BITS",
    "PASS",
    "PASSES_TO_END",
    "PHASES",
    "POPCOUNT4",
    "POSITION_RULES",
    "PRETTY",
    "QUAD_BITS",
    "RANKS",
    "RANK_MASK",
    "RUN_SHAPE",
    "SEAT_TEAMS",
    "SETS_OF_SUITS",
    "SET_IDS",
    "SET_IDS_WITH",
    "SET_SHAPES",
    "SUIT_BIT",
    "TAKE_BASE",
    "USE_CHOSEN",
    "VALUE",
    "PersianRummyDiscard",
    "PersianRummyGame",
    "PersianRummyLayoffCards",
    "PersianRummyMeldCards",
    "PersianRummyObservation",
    "PersianRummyPosition",
    "PersianRummySeatCards",
    "PersianRummyState",
    "PersianRummyTableMeld",
    "mask_codes",
]
"""Persian Rummy's public names, wherever they are defined: import them from here."""


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


register(PersianRummyGame())
