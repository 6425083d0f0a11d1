"""The toy in the environments (``arena.envs``): its pack, and dense action ids (an
action is the index of its card in the pack)."""

from tests.games.toy.game import CARDS

PACK = CARDS
NUM_ACTIONS = len(CARDS)
