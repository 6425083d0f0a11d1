"""Seep: a four-player fishing game from North India, partners opposite, played to 100.

Seats 0 and 2 (team 0) play seats 1 and 3 (team 1). Play and dealing pass from seat s to
s+1. A deal starts with the bidder (dealer + 1) alone holding four cards: he names a house
value from 9 to 13 that he holds a card of, four floor cards turn up, he makes play 1,
and only then are the other 44 cards dealt in packets of four. Each of the 48 plays uses
one hand card to THROW it, CAPTURE loose cards (and the house of its value), BUILD a new
house of value 9..13, ADD to a house (cementing it) or BREAK another seat's ordinary house
to a higher value. Card points (every spade its capture value, the other aces 1, the ten
of diamonds 6: 100 in all) plus sweep bonuses make each team's deal score; the running
difference decides a *bazzi* at 100.

What surprises people who know Casino or Scopa:

* Capturing is compulsory and maximal: a card that can take something cannot be thrown,
  and a capture must leave no loose combination equal to the card (the house of the
  card's value always goes too). Building is never compulsory.
* A house is named by its value: there is at most one per value, and cards that would
  make a second one join the first (ADD, or a BREAK into an existing house). A loose card
  of a house's value can never lie beside it.
* Every owner of a house must keep a card of its value in hand until the house is
  captured or broken (the retention check); a play that breaks this rule is illegal.
  Adding to a partner's house needs no such card; adding to an opponents' house needs
  it and makes you a co-owner.
* A deal score below 9 loses the bazzi at once, whatever the running difference; a
  sweep on play 1 is worth 25, on play 48 nothing, otherwise 50.
* The deal does not pass every time: the team that trails (or a tie) keeps the deal.

Action ids keep one meaning for the whole game. An id is ``head << 52 | rank`` with
``head = (kind * 52 + card) * 5 + slot`` (at most 1,559, so ids stay below 2**63):

* ``kind``: 0 BID, 1 CAPTURE, 2 BUILD, 3 ADD, 4 BREAK, 5 THROW (the canonical order);
* ``card``: the hand card's index in canonical card order, ``4 * (value - 1) + suit``
  with suits C, D, H, S (0 for BID);
* ``slot``: BID, BUILD and ADD the value minus 9, BREAK the broken house's value minus 9,
  0 for CAPTURE and THROW;
* ``rank``: the set of loose cards moved, as its position in the lexicographic order of
  all subsets of the 52 cards listed in canonical order, a shorter prefix first (the
  empty set is 0, {AC} is 1, {AC, AD} is 2, ..., {KS} is 2**52 - 1). In closed form, with
  ``M`` the set as a 52-bit mask whose top bit is AC, ``rank = 2**52 + |S| - M - low(M)``
  where ``low(M)`` is M's lowest set bit. No plain bitmask can give this order, whatever
  the bit of each card: ``{AC, AD}`` must sort before ``{AD}``, yet has all its bits and
  one more.

So ascending ids are exactly the canonical order of the rules: kind, card, value or
house, then the loose cards card by card with a shorter prefix first.

Legal moves come from bitmasks over the loose cards (at most 16, in canonical order):
every subset whose values add up to at most 13 is a *group* of its sum, and the
t-packable sets are the unions of pairwise disjoint groups of sum t (built from the
groups, so the work follows the number of answers rather than 2**16). This analysis
depends only on the multiset of loose values and is cached per multiset, so a decision
only picks from its cached lists by the seat's hand and the houses (sets of house values
are bitmasks too), and turns each chosen mask into an id. An applied id gives its loose
cards back from its rank. The list is complete, never truncated: an adversarial floor
of 13 or more loose cards can have thousands of legal plays (``bench/seep_worst_floor``).

Starting elsewhere than at a shuffle: ``new_state(seed, deal=Deal(...))`` chooses the
first deal; ``SeepGame.from_position(SeepPosition(...))`` starts at any decision of a
deal (the floor, the hands, the piles, the bazzi so far), after checking that real play
could have such a position (a ``DealError`` says what does not fit and what would), and
``SeepState.position()`` reads the position of a state back. The seed deals what follows.

Decisions of this engine where the rules leave room (see also the rules' own Decisions):

* ``scores()`` are bazzis won per team; the deal scores and running difference are in
  the observation and in every ``hand_end`` event.
* A redeal (bidder without a card above 8) is logged as a ``throw_in`` showing the four
  cards, then a new ``deal``; it is not a deal of the match for ``max_deals``.
* Arena safeguard (option ``max_deals``, default 50): a bazzi still open after that many
  deals goes to the team ahead on the difference, or is void (over, nobody wins) at 0.
  A void bazzi counts as decided (rules §8): the undecided rule picks the dealer (a
  difference of 0) and the dealer's partner deals next. Until 2026-12-07 the same dealer
  dealt again; matches stored then re-run under that former rule
  (``GameInfo.former_rules``), and verification says so.
* A sweep on play 48 is recorded as a sweep with bonus 0.
"""

from __future__ import annotations

from collections.abc import Mapping

from arena.games.api import Deal, Game
from arena.games.registry import register
from arena.games.seep.actions import (
    ACTION_LIMIT,
    ADD,
    ADD_BASE,
    ALL_VALUES,
    BAZZI_TARGET,
    BID,
    BID_ACTIONS,
    BREAK,
    BREAK_BASE,
    BREAK_ROOM,
    BUILD,
    BUILD_BASE,
    CAPTURE,
    CAPTURE_BASE,
    CARD_INDEX,
    CARD_OFFSET,
    CARDS,
    FULL,
    GAME_INFO,
    HOUSE_BITS,
    HOUSE_VALUES,
    KIND_NAMES,
    MASK_WEIGHT,
    MAX_HEAD,
    MAX_SUM,
    MIN_DEAL_SCORE,
    NUM_SEATS,
    PLAYS_PER_DEAL,
    POINTS,
    RANK_BITS,
    RANK_CHARS,
    SEAT_TEAMS,
    SWEEP_LAST,
    SWEEP_NORMAL,
    SWEEP_OPENING,
    THROW,
    THROW_BASE,
    VALUE,
    Decoded,
    SeepAdd,
    SeepBreak,
    SeepBuild,
    SeepCapture,
    decode,
    loose_cards,
)
from arena.games.seep.legal import BIG_FLOOR, HOUSES_IN, FloorSums, Turn, floor_sums
from arena.games.seep.observation import (
    EMPTY_PILE,
    OWNER_SEATS,
    OWNER_TEXT,
    SeepDealResult,
    SeepHouse,
    SeepObservation,
    SeepPlay,
    SeepTeamPile,
)
from arena.games.seep.plays import BIDDING, PLAY, PRETTY, House, team_of
from arena.games.seep.position import (
    HOUSE_RULES,
    POSITION_RULES,
    TEAM_RULES,
    PlacedHouse,
    SeepPosition,
    check_position,
    plays_made,
)
from arena.games.seep.state import SeepState

__all__ = [
    "ACTION_LIMIT",
    "ADD",
    "ADD_BASE",
    "ALL_VALUES",
    "BAZZI_TARGET",
    "BID",
    "BIDDING",
    "BID_ACTIONS",
    "BIG_FLOOR",
    "BREAK",
    "BREAK_BASE",
    "BREAK_ROOM",
    "BUILD",
    "BUILD_BASE",
    "CAPTURE",
    "CAPTURE_BASE",
    "CARDS",
    "CARD_INDEX",
    "CARD_OFFSET",
    "EMPTY_PILE",
    "FULL",
    "GAME_INFO",
    "HOUSES_IN",
    "HOUSE_BITS",
    "HOUSE_RULES",
    "HOUSE_VALUES",
    "KIND_NAMES",
    "MASK_WEIGHT",
    "MAX_HEAD",
    "MAX_SUM",
    "MIN_DEAL_SCORE",
    "NUM_SEATS",
    "OWNER_SEATS",
    "OWNER_TEXT",
    "PLAY",
    "PLAYS_PER_DEAL",
    "POINTS",
    "POSITION_RULES",
    "PRETTY",
    "RANK_BITS",
    "RANK_CHARS",
    "SEAT_TEAMS",
    "SWEEP_LAST",
    "SWEEP_NORMAL",
    "SWEEP_OPENING",
    "TEAM_RULES",
    "THROW",
    "THROW_BASE",
    "VALUE",
    "Decoded",
    "FloorSums",
    "House",
    "PlacedHouse",
    "SeepAdd",
    "SeepBreak",
    "SeepBuild",
    "SeepCapture",
    "SeepDealResult",
    "SeepGame",
    "SeepHouse",
    "SeepObservation",
    "SeepPlay",
    "SeepPosition",
    "SeepState",
    "SeepTeamPile",
    "Turn",
    "check_position",
    "decode",
    "floor_sums",
    "loose_cards",
    "plays_made",
    "team_of",
]
"""Seep's public names, wherever they are defined: import them from here."""


# --- Game ----------------------------------------------------------------------------------


class SeepGame(Game):
    """Makes Seep matches; holds no per-match data."""

    info = GAME_INFO

    def new_state(
        self, seed: int, options: Mapping[str, object] | None = None, *, deal: Deal | None = None
    ) -> SeepState:
        """A match dealt from ``seed``, or whose first deal is ``deal``: ``hands`` are what
        the seats hold at the bid (the bidder, dealer + 1, four cards; the others none),
        ``rest[:4]`` the face-down floor, and ``rest[4:]`` the other 44 cards in the order
        they are dealt after play 1: packets of four to the bidder, b+1, b+2, the dealer,
        again, then to b+1, b+2 and the dealer. A chosen deal whose bidder holds no card
        above 8 is thrown in as the rules say, and the seed deals the next one. The
        deal's ``scores`` are bazzis won, never negative, fewer in all than the ``bazzis``
        option; the deal opens a bazzi (running difference 0) after that many decided
        ones, so ``deal_number`` is at least one more than the bazzis won."""
        return SeepState(seed, GAME_INFO.resolve_options(options), deal)

    def from_position(
        self,
        position: SeepPosition,
        *,
        seed: int = 0,
        options: Mapping[str, object] | None = None,
    ) -> SeepState:
        """A match at ``position``, a decision in the middle of a deal (or at its bid),
        whatever came before; the seed deals the deals after this one. The position is
        checked against what real play allows (``check_position``: every card once, the
        hand sizes of the play number, the floor's invariants, the piles, sweeps and
        bazzi so far) and anything else is a ``DealError`` saying what is wrong."""
        resolved = GAME_INFO.resolve_options(options)
        check_position(position, resolved)
        return SeepState._at_position(position, seed, resolved)


register(SeepGame())
