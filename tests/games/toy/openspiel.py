"""The toy as an OpenSpiel game (``arena.openspiel``): its ids, one per card, are
OpenSpiel's actions, as they are the environments' (``layout.NUM_ACTIONS``)."""
