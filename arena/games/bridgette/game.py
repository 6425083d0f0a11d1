"""Bridgette: two-player bridge with 55 cards, an exchange with the stock, and colons.

The deck is the 52 standard cards plus three *colons* that belong to no suit: the Grand
Colon (``GC``) goes with the aces, the Royal Colon (``RC``) with the kings, queens and
jacks, the Little Colon (``LC``) with the 2s to 10s. Each player gets 13 cards and the
other 29 form a face-down stock whose top card is turned up. The non-dealer takes the
up-card and the card under it and discards two; then the dealer draws 4, 8 or 12 (by the
up-card: a 2..10 or LC, a face card or RC, an ace or GC) and discards as many. The
dealer opens an auction of bids from ``0NT`` (6 tricks, no trump) up to ``7NT``, with
doubles and redoubles; the declarer's opponent leads to 13 two-card tricks; one player
scores per deal, and after 6 deals the higher total wins.

What surprises people who know bridge:

* A bid needs holdings: two cards of the suit named, one card of every suit for no
  trump, and four cards of the suit for a *jump* (a bid above the lowest level that would
  outrank the standing bid). Colons count towards none of these.
* A colon played on a led suit card of its own group (the *matching* colon) may be
  played even by a player who could follow suit; it always loses the trick, but the
  winner may not lead that suit again to the next trick (the *barred suit*) unless they
  hold nothing else. A colon of another group may only be played when nothing else is
  allowed, and loses.
* A led colon is won by the follower only with a trump or a suit card of the colon's
  group (an ace for the GC, any suit); anything else, another colon included, loses.
* If the dealer passes first, the non-dealer must bid, and that bid is the contract at
  once, undoubled: every deal is played and scored.
* Contract points depend on the contract, not on the tricks won; winning exactly the
  tricks needed, or exactly three more, earns a bonus; doubling multiplies the whole sum,
  its own bonus included. A failed contract pays the opponent by undertricks.
* Scores never go down, so the tie deal after 6 deals always decides the game.

Cards in canonical order (hands and card action ids): suits C, D, H, S, each 2 up to A
(card index = 13 * suit + rank, rank 0 for the 2 up to 12 for the ace), then the colons
LC = 52, RC = 53, GC = 54. Bids in bidding order: bid index 0 is ``0NT``; a bid of level
L >= 1 in strain s (C, D, H, S, NT = 0..4) has index 1 + 5 * (L - 1) + s, up to 35 for
``7NT``. Action ids keep one meaning for the whole game, in the order a deal unfolds::

     0..54     discard <card>    exchange, one card at a time: card index
     55        pass
     56        double
     57        redouble
     58..93     bid <bid>         58 + bid index (bid 0NT .. bid 7NT)
     94..148   play <card>       94 + card index

How the specification's gaps are settled (its Decisions D1..D12):

* D1: the up-card stays on the stock, so the non-dealer's two cards are the up-card and
  the card under it; its identity stays public for the deal.
* D2: a k-card discard is k single-card ``discard`` actions; the non-dealer finishes
  before the dealer draws.
* D3: colons count for no holding rule (two cards, four for a jump, every suit for NT).
* D4: a jump is any bid above the lowest level at which its strain would outrank the
  standing bid; a no-trump jump needs only a card of every suit.
* D5: after the dealer's opening pass the non-dealer may only bid (jumps measured from
  no bid) and that bid is the contract at once, undoubled: no deal is thrown in.
* D6: the maker of the last bid declares, even when they made the closing pass.
* D7: a colon of another group follows only when no other card may, and loses.
* D8: the doubling multiplier applies to the whole sum, bonuses included.
* D9: contract points come from the table by contract, with no per-trick points.
* D10: six or more undertricks pay the last row of the table.
* D11: the bar applies to the trick winner's next lead only, and lifts when they hold
  no card of another suit and no colon. The last trick of a deal bars nothing.
* D12: equal totals after the regular deals play another deal, which always decides.

Decisions taken beyond the rules text:

* The draws from the stock are not decisions: the non-dealer's two cards are taken when
  the deal starts, the dealer's draw when the non-dealer's last discard is made.
* Events: each draw is a public ``draw`` event (how many) followed by a ``drawn`` event
  with the cards that only the drawer sees; each discard is a ``discard`` event only its
  maker sees. The up-card is a public ``up_card`` event.
* No safeguard option is needed against endless games: the auction ends (every call
  but a pass raises the bid or its doubling), every deal is scored, one seat scores a
  positive amount in every deal and scores never fall, so at most one deal past the
  regular ones is played. The ``deals`` option (default 6, as the rules say) is an arena
  variant for shorter matches; the tie rule applies after any number.
"""

from __future__ import annotations

from collections.abc import Mapping

from arena.games.api import Deal, Game
from arena.games.bridgette.actions import (
    ACTION_PAYLOADS,
    ACTION_TEXTS,
    BID_BASE,
    BID_CALLS,
    BID_TEXTS,
    BIDS,
    CALL_DOUBLE,
    CALL_PASS,
    CALL_REDOUBLE,
    CARD_ORDER,
    CARDS,
    COLONS,
    CONTRACT_POINTS,
    DEALER_DRAWS,
    DISCARD_ACTION,
    DISCARD_BASE,
    DOUBLE,
    DOUBLE_BONUS,
    DOUBLED,
    DOUBLING_NAMES,
    EXACT_BONUS,
    GAME_INFO,
    HAND_SIZE,
    LOWEST_ABOVE,
    MATCHING_COLON,
    MULTIPLIER,
    NO_SUIT,
    NON_DEALER_DRAWS,
    NT,
    NUM_ACTIONS,
    NUM_BIDS,
    NUM_SEATS,
    OVER_THREE_BONUS,
    PASS,
    PLAY_ACTION,
    PLAY_BASE,
    REDOUBLE,
    REDOUBLED,
    STRAIN_NAMES,
    STRAINS,
    STRENGTH,
    SUIT_CARDS,
    SUIT_OF,
    TRICKS_PER_DEAL,
    UNDERTRICK_POINTS,
    UNDOUBLED,
    BridgetteCall,
    biddable,
    colon_lead_taken,
    failed_points,
    made_points,
    suit_counts,
)
from arena.games.bridgette.state import (
    AUCTION,
    DISCARD,
    PLAY,
    BridgetteCallMade,
    BridgetteContract,
    BridgetteObservation,
    BridgetteState,
)
from arena.games.registry import register

__all__ = [
    "ACTION_PAYLOADS",
    "ACTION_TEXTS",
    "AUCTION",
    "BIDS",
    "BID_BASE",
    "BID_CALLS",
    "BID_TEXTS",
    "CALL_DOUBLE",
    "CALL_PASS",
    "CALL_REDOUBLE",
    "CARDS",
    "CARD_ORDER",
    "COLONS",
    "CONTRACT_POINTS",
    "DEALER_DRAWS",
    "DISCARD",
    "DISCARD_ACTION",
    "DISCARD_BASE",
    "DOUBLE",
    "DOUBLED",
    "DOUBLE_BONUS",
    "DOUBLING_NAMES",
    "EXACT_BONUS",
    "GAME_INFO",
    "HAND_SIZE",
    "LOWEST_ABOVE",
    "MATCHING_COLON",
    "MULTIPLIER",
    "NON_DEALER_DRAWS",
    "NO_SUIT",
    "NT",
    "NUM_ACTIONS",
    "NUM_BIDS",
    "NUM_SEATS",
    "OVER_THREE_BONUS",
    "PASS",
    "PLAY",
    "PLAY_ACTION",
    "PLAY_BASE",
    "REDOUBLE",
    "REDOUBLED",
    "STRAINS",
    "STRAIN_NAMES",
    "STRENGTH",
    "SUIT_CARDS",
    "SUIT_OF",
    "TRICKS_PER_DEAL",
    "UNDERTRICK_POINTS",
    "UNDOUBLED",
    "BridgetteCall",
    "BridgetteCallMade",
    "BridgetteContract",
    "BridgetteGame",
    "BridgetteObservation",
    "BridgetteState",
    "biddable",
    "colon_lead_taken",
    "failed_points",
    "made_points",
    "suit_counts",
]
"""Bridgette's public names, wherever they are defined: import them from here."""


# --- Game ----------------------------------------------------------------------------------


class BridgetteGame(Game):
    """Makes Bridgette matches; holds no per-match data."""

    info = GAME_INFO

    def new_state(
        self, seed: int, options: Mapping[str, object] | None = None, *, deal: Deal | None = None
    ) -> BridgetteState:
        """A match dealt from ``seed``, or whose first deal is ``deal``: ``hands`` are the
        13 cards of each seat, ``rest`` the 29 of the stock from the top, so ``rest[0]`` is
        the up-card, ``rest[:2]`` the non-dealer's draw and the next 4, 8 or 12 the
        dealer's. The deal's ``scores`` are the seats' totals, never negative;
        ``deal_number`` is at most the ``deals`` option, or one more for the tie deal when
        the scores are equal, and the match ends after the deal numbered ``deals`` (or
        the tie deal) as it would have."""
        return BridgetteState(seed, GAME_INFO.resolve_options(options), deal)


register(BridgetteGame())
