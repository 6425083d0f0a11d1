"""The toy as an OpenSpiel game (``arena.openspiel``): its ids, one per card, are
OpenSpiel's actions."""

from tests.games.toy.game import CARDS

NUM_DISTINCT_ACTIONS = len(CARDS)
