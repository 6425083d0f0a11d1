"""Seep as an OpenSpiel game (``arena.openspiel``): its actions are the environments'
indices into the legal list (``layout.MAX_LEGAL``), since its ids run up to 2**63."""
