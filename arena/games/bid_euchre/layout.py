"""Bid Euchre in the environments (``arena.envs``): the pack the tensor's card blocks
follow, and dense action ids, so an environment's action is the engine's own id and the
action space is ``NUM_ACTIONS`` wide."""

from arena.games.bid_euchre.game import JOKER_CARDS, NUM_ACTIONS

PACK = JOKER_CARDS
"""The pack with the optional joker: one layout fits both variants."""

__all__ = ["NUM_ACTIONS", "PACK"]
