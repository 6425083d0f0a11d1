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

from collections.abc import Mapping

from arena.games.api import Deal, Game
from arena.games.baloot.actions import (
    ABNAT,
    ACTION_PAYLOADS,
    ACTION_TEXTS,
    ASHKAL,
    BALOOT_POINTS,
    BIDS,
    CARD_BIT,
    CARD_ORDER,
    CARDS,
    CHOOSE_HOKUM_BASE,
    CHOOSE_SUN,
    DECLARATION_ACTION,
    DECLARATIONS,
    DECLARE_BASE,
    DECLINE,
    DOUBLE,
    DOUBLINGS,
    FAILED_POINTS,
    FIFTY,
    FIRST_CARDS,
    FOUR,
    FOUR_ACES,
    GAHWA,
    GAME_INFO,
    GAME_TARGET,
    HOKUM,
    HUNDRED,
    KABOOT_ACE_POINTS,
    KABOOT_POINTS,
    LAST_TRICK_BONUS,
    NUM_ACTIONS,
    NUM_SEATS,
    PASS,
    PLAIN_ABNAT,
    PLAY_ACTION,
    PLAY_BASE,
    PROJECT_MASK,
    PROJECT_POINTS,
    PROJECT_SHOWN,
    PROJECT_TOP,
    PROJECTS,
    RANKS,
    SEAT_TEAMS,
    SEQUENCE_ORDER,
    SIRA,
    STRENGTH,
    SUIT_OF,
    SUN,
    SUN_DOUBLING_THRESHOLD,
    SUN_ORDER,
    TRICKS_PER_ROUND,
    TRIPLE,
    TRUMP_ABNAT,
    TRUMP_KEYS,
    TRUMP_ORDER,
    BalootContractChoice,
    BalootDeclaration,
    BalootProject,
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
    hokum_points,
    partner_of,
    project_value_key,
    round_points,
    sun_points,
)
from arena.games.baloot.state import BalootState
from arena.games.registry import register

__all__ = [
    "ABNAT",
    "ACTION_PAYLOADS",
    "ACTION_TEXTS",
    "ASHKAL",
    "BALOOT_POINTS",
    "BIDDING",
    "BIDS",
    "CARDS",
    "CARD_BIT",
    "CARD_ORDER",
    "CHOOSE_HOKUM_BASE",
    "CHOOSE_SUN",
    "CLAIM_WINDOW",
    "CONTRACT_CHOICE",
    "DECLARATIONS",
    "DECLARATION_ACTION",
    "DECLARE_BASE",
    "DECLARING",
    "DECLINE",
    "DOUBLE",
    "DOUBLING",
    "DOUBLINGS",
    "FAILED_POINTS",
    "FIFTY",
    "FIRST_CARDS",
    "FOUR",
    "FOUR_ACES",
    "GAHWA",
    "GAME_INFO",
    "GAME_TARGET",
    "HOKUM",
    "HUNDRED",
    "KABOOT_ACE_POINTS",
    "KABOOT_POINTS",
    "LAST_TRICK_BONUS",
    "NUM_ACTIONS",
    "NUM_SEATS",
    "PASS",
    "PLAIN_ABNAT",
    "PLAYING",
    "PLAY_ACTION",
    "PLAY_BASE",
    "PROJECTS",
    "PROJECT_MASK",
    "PROJECT_POINTS",
    "PROJECT_SHOWN",
    "PROJECT_TOP",
    "RANKS",
    "SEAT_TEAMS",
    "SECOND_TURN",
    "SEQUENCE_ORDER",
    "SIRA",
    "STRENGTH",
    "SUIT_OF",
    "SUN",
    "SUN_DOUBLING_THRESHOLD",
    "SUN_ORDER",
    "TRICKS_PER_ROUND",
    "TRIPLE",
    "TRUMP_ABNAT",
    "TRUMP_KEYS",
    "TRUMP_ORDER",
    "BalootBidMade",
    "BalootContractChoice",
    "BalootDeclaration",
    "BalootDeclaredProject",
    "BalootDoublingMade",
    "BalootGame",
    "BalootObservation",
    "BalootProject",
    "BalootState",
    "hokum_points",
    "partner_of",
    "project_value_key",
    "round_points",
    "sun_points",
]
"""Baloot's public names, wherever they are defined: import them from here."""


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


register(BalootGame())
