"""Baloot as an OpenSpiel game (``arena.openspiel``): its actions are the engine's dense
ids, as in the environments (``layout.NUM_ACTIONS``)."""
