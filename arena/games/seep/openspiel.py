"""Seep as an OpenSpiel game (``arena.openspiel``): how its actions are numbered."""

MAX_LEGAL = 4096
"""Ids run up to 2**63, beyond OpenSpiel's action count: action ``i`` is the ``i``-th
legal action in ascending order, and there are never more than this."""
