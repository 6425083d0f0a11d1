"""Persian Rummy in the environments (``arena.envs``): the pack the tensor's card blocks
follow, and actions as indices into the legal list, because the engine's ids encode
whole card sets and no mask could cover them."""

from arena.games.persian_rummy.game import CARDS

PACK = CARDS
MAX_LEGAL = 1024
"""Random play tops out near 36 legal actions; a position with more than this raises."""
