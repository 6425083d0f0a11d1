"""Baloot as an OpenSpiel game (``arena.openspiel``): how its actions are numbered."""

from arena.games.baloot.game import NUM_ACTIONS

NUM_DISTINCT_ACTIONS = NUM_ACTIONS
