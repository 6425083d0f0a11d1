"""Seep in the environments (``arena.envs``): the pack the tensor's card blocks
follow, and actions as indices into the legal list, because the engine's ids encode
whole card sets and no mask could cover them."""

from arena.games.seep.actions import CARDS

PACK = CARDS
MAX_LEGAL = 4096
"""Random play tops out near 120 legal actions; a position with more than this raises."""
