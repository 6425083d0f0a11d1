"""Bridgette in the environments (``arena.envs``): the pack the tensor's card blocks
follow, and dense action ids, so an environment's action is the engine's own id and the
action space is ``NUM_ACTIONS`` wide."""

from arena.games.bridgette.game import CARDS, NUM_ACTIONS

PACK = CARDS

__all__ = ["NUM_ACTIONS", "PACK"]
