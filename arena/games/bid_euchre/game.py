"""Bid Euchre: four players in two partnerships bid for tricks with a 24-card deck.

Seats 0 and 2 play seats 1 and 3. Every card is dealt (six each, no kitty, no up-card),
then each seat makes exactly one call, starting left of the dealer: pass, or a call
above the highest so far among ``3 < 4 < 5 < ASK < MOON``. The highest caller, the
declarer, names trump and leads; a 3, 4 or 5 promises that many of the six tricks for
the partnership. ``ASK`` and ``MOON`` promise all six played alone, the partner's hand
dead; ``ASK`` first swaps one card for the partner's best trump.

What surprises people who know other trick games:

* The jack of trump (right bower) and the other jack of the same colour (left bower) are
  the two highest trumps. The left bower *is* a trump for leading, following and winning,
  and is no longer a card of its printed suit.
* There is no obligation to trump or overtrump, only to follow the led suit.
* The defenders score every trick they take, whether or not the contract is made; a
  failed contract costs the bid (6 for ``ASK`` and ``MOON``), so scores go negative.
* The game ends once a team has 32 after a hand and the scores differ; tied teams past
  32 play on. As an arena safeguard, the game also stops after ``max_hands`` scored
  hands (equal scores then are a draw), since weak bots may never reach 32.
* Stick the dealer is on by default: after three passes the dealer must call, so every
  hand is played. With it off, four passes throw the hand in.
* A thrown-in hand (four passes, or the ``ace_no_face`` variant) scores nothing and does
  not count towards ``max_hands``; the deal still passes left.

The ``joker`` variant (off by default) adds one joker, ``X1``: 25 cards, the dealer is
dealt a seventh card (the last one, after the other seats' sixth) and discards one face
down before anything else happens in the hand; that card is out of play until the next
deal. The joker is the highest trump, above the right bower, and is a card of the trump
suit for every purpose, exactly as the left bower is: leading it leads trump, it must be
played to a trump lead when it is the only trump held, it wins any trick it is played
to, and in an ``ASK`` it is the partner's highest trump when held. What the rules leave
open is settled here:

* Trump is always named before the first card is played, so the joker never needs a
  suit of its own; in the auction and the ``ace_no_face`` test it is just a card (it is
  neither an ace nor a K, Q or J, so it does not stop a throw-in).
* The dealer may discard any of the seven cards, the joker included.
* The discard comes first: the ``ace_no_face`` question and the calls wait for it.
* The discarded card is seen by the dealer alone (observation ``discarded``, a private
  ``discarded`` event); the other seats learn only that a card went face down (a public
  ``discard`` event, and ``hand_sizes``). A thrown-in hand reshuffles it with the rest.
* With the option off, nothing changes: the same seed deals the same cards and every id
  keeps its meaning. The ``double_deck`` variant of the rules is refused by name (the
  rules give it no ASK or MOON targets and do not say how identical cards compare).

Action ids keep one meaning for the whole game, in the order a hand unfolds, so the
ascending order of any legal list is also the natural one (cards in canonical order:
suits C, D, H, S, ranks 9, T, J, Q, K, A; card index = 6 * suit + rank)::

     0        keep hand      (ace_no_face: decline to throw in)
     1        throw in       (ace_no_face: throw the hand in)
     2..7     pass, call 3, call 4, call 5, call ASK, call MOON
     8..11    trump C, trump D, trump H, trump S
    12..35    give <card>    (ASK: declarer's card to partner), 12 + card index
    36..59    return <card>  (ASK: partner's card back), 36 + card index
    60..83    play <card>    60 + card index
    84..108   discard <card> (joker: the dealer's discard), 84 + card index, X1 = 24
    109       give X1        (joker, ASK)
    110       return X1      (joker, ASK)
    111       play X1        (joker)

The joker sorts after every other card (card index 24), so its ids come last too.
"""

from __future__ import annotations

from collections.abc import Mapping

from arena.games.api import Deal, Game
from arena.games.bid_euchre.actions import (
    ACE_NO_FACE_ACTIONS,
    ACTION_CARD,
    ACTION_PAYLOADS,
    ACTION_TEXTS,
    ALONE_MADE_POINTS,
    ASK,
    CALL_BASE,
    CALL_SHOWN,
    CALL_TEXTS,
    CALLS,
    CARD_ORDER,
    CARDS,
    DISCARD_ACTION,
    DISCARD_BASE,
    EFFECTIVE_SUIT,
    FIVE,
    FOUR,
    GAME_INFO,
    GAME_TARGET,
    GIVE_ACTION,
    GIVE_BASE,
    GIVE_JOKER,
    JOKER,
    JOKER_CARDS,
    KEEP_HAND,
    MOON,
    NUM_ACTIONS,
    NUM_SEATS,
    PASS,
    PLAY_ACTION,
    PLAY_BASE,
    PLAY_JOKER,
    RANKS,
    RETURN_ACTION,
    RETURN_BASE,
    RETURN_JOKER,
    SAME_COLOUR,
    SEAT_TEAMS,
    SET_COST,
    STRENGTH,
    THREE,
    THROW_IN,
    TRICKS_NEEDED,
    TRICKS_PER_HAND,
    TRUMP_ACTIONS,
    TRUMP_BASE,
)
from arena.games.bid_euchre.rules import CALLS_ABOVE, STUCK_DEALER_CALLS
from arena.games.bid_euchre.state import (
    ACE_NO_FACE,
    ASK_GIVE,
    ASK_RETURN,
    BIDDING,
    DISCARD,
    PLAY,
    TRUMP,
    BidEuchreCallMade,
    BidEuchreObservation,
    BidEuchreState,
    may_throw_in_ace_no_face,
    partner_of,
)
from arena.games.registry import register

__all__ = [
    "ACE_NO_FACE",
    "ACE_NO_FACE_ACTIONS",
    "ACTION_CARD",
    "ACTION_PAYLOADS",
    "ACTION_TEXTS",
    "ALONE_MADE_POINTS",
    "ASK",
    "ASK_GIVE",
    "ASK_RETURN",
    "BIDDING",
    "CALLS",
    "CALLS_ABOVE",
    "CALL_BASE",
    "CALL_SHOWN",
    "CALL_TEXTS",
    "CARDS",
    "CARD_ORDER",
    "DISCARD",
    "DISCARD_ACTION",
    "DISCARD_BASE",
    "EFFECTIVE_SUIT",
    "FIVE",
    "FOUR",
    "GAME_INFO",
    "GAME_TARGET",
    "GIVE_ACTION",
    "GIVE_BASE",
    "GIVE_JOKER",
    "JOKER",
    "JOKER_CARDS",
    "KEEP_HAND",
    "MOON",
    "NUM_ACTIONS",
    "NUM_SEATS",
    "PASS",
    "PLAY",
    "PLAY_ACTION",
    "PLAY_BASE",
    "PLAY_JOKER",
    "RANKS",
    "RETURN_ACTION",
    "RETURN_BASE",
    "RETURN_JOKER",
    "SAME_COLOUR",
    "SEAT_TEAMS",
    "SET_COST",
    "STRENGTH",
    "STUCK_DEALER_CALLS",
    "THREE",
    "THROW_IN",
    "TRICKS_NEEDED",
    "TRICKS_PER_HAND",
    "TRUMP",
    "TRUMP_ACTIONS",
    "TRUMP_BASE",
    "BidEuchreCallMade",
    "BidEuchreGame",
    "BidEuchreObservation",
    "BidEuchreState",
    "may_throw_in_ace_no_face",
    "partner_of",
]
"""Bid Euchre's public names, wherever they are defined: import them from here."""


# --- Game ----------------------------------------------------------------------------------


class BidEuchreGame(Game):
    """Makes Bid Euchre matches; holds no per-match data."""

    info = GAME_INFO

    def new_state(
        self, seed: int, options: Mapping[str, object] | None = None, *, deal: Deal | None = None
    ) -> BidEuchreState:
        """A match dealt from ``seed``, or whose first hand is ``deal``: ``hands`` are the
        six cards of each seat (with the ``joker`` option, the dealer's seven, the discard
        still to make); every card is dealt, so ``rest`` is empty. The deal's ``scores``
        may be negative and are below 32 unless equal (unequal scores at 32 or more would
        have ended the match); ``deal_number`` is the hand number (thrown-in hands count
        in it) and at most ``max_hands``: a chosen deal takes every earlier hand as scored,
        so ``deal_number - 1`` of them count towards the safeguard."""
        return BidEuchreState(seed, GAME_INFO.resolve_options(options), deal)


register(BidEuchreGame())
