"""Persian Rummy as an OpenSpiel game (``arena.openspiel``): how its actions are numbered."""

NUM_DISTINCT_ACTIONS = 2**25
"""Melds, lay-offs and discards are encoded in 25 bits."""
