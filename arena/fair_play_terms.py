"""The fair-play modes' names and the caveat each puts on a result.

A leaf module: tournaments set the modes (``arena.tournament.fair_play``) and ratings
warn of them (``arena.ratings.leaderboard``), and neither package need import the other
for a few words.
"""

from __future__ import annotations

OPEN, SEALED, TRUSTED = "open", "sealed", "trusted"

TRUSTED_CAVEAT = (
    "played in FAIR_PLAY_TRUSTED: both halves of a duplicate pair share a deal, so a bot "
    "that remembers the first half knows its opponents' cards in the second; the operator "
    "vouches for the entries"
)
PARTNERS_CAVEAT = "partners share one process: each may see the other's hand"
"""Where a remote entry plays a partnership game: the referee calls both seats of its
team at its one address, and what one process does with two hands nobody can see."""
OPERATOR_SEED_CAVEAT = (
    "dealt from an operator's master seed: anyone who knows or guesses it can deal every "
    "match, so its deals are only as secret as the operator kept it"
)
