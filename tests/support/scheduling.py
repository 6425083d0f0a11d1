"""How ``make test`` spreads the suite over its pytest-xdist workers."""

from __future__ import annotations

from xdist.scheduler import LoadScopeScheduling

HEAVY = frozenset(
    {
        "tests/test_demo.py",
        "tests/referee/test_load.py",
        "tests/tournament/test_soak.py",
        "tests/web/test_live.py",
    }
)
"""Test modules that load the whole machine with processes on deadlines (the demo, the
soak, 64 matches at once, paced matches watched in a browser). ``make test`` runs the
suite on one worker per core; these go to one worker as one unit, one after
another, so no two of them compete for the cores."""


class HeavyTogether(LoadScopeScheduling):
    """pytest-xdist's load scheduling, each test a unit of its own, but the ``HEAVY``
    modules' tests one unit. (``--dist loadgroup`` with ``xdist_group`` marks did this
    once: with pytest 9 the group suffix xdist puts on the node id no longer takes, and
    the marks were silently ignored, so the demo, the soak and the load test ran side by
    side.)"""

    def _split_scope(self, nodeid: str) -> str:
        return "heavy" if nodeid.split("::", 1)[0] in HEAVY else nodeid
