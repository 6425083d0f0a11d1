"""How ``make test`` spreads the suite over its pytest-xdist workers."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from xdist.scheduler import LoadScopeScheduling

ROOT = Path(__file__).resolve().parents[2]

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
suite on one worker per core and one more; these go to one worker as one unit, one after
another, so no two of them compete for the cores."""

_MODULE_FIXTURE = re.compile(r'@pytest\.fixture\(scope="module"\)\s*def (\w+)')


@functools.cache
def shares_a_module_fixture(module: str) -> bool:
    """Whether the tests of ``module`` (a path from the root) share a module-scoped
    fixture: one of its own, the directory's shared stack (``SHARED = True``) or one its
    directory's conftest.py defines (played matches, an API, a bot). Spread over the
    workers, each worker would set it up again: seconds of processes each time."""
    path = ROOT / module
    source = path.read_text()
    if 'scope="module"' in source or re.search(r"^SHARED = True", source, re.MULTILINE):
        return True
    conftest = path.parent / "conftest.py"
    names = _MODULE_FIXTURE.findall(conftest.read_text()) if conftest.is_file() else []
    return any(re.search(rf"\b{name}: ", source) for name in names)


class HeavyTogether(LoadScopeScheduling):
    """pytest-xdist's load scheduling with three kinds of unit: the ``HEAVY`` modules'
    tests all one, a module whose tests share a module fixture one, and every other test
    one of its own. xdist hands out units with more tests first. (``--dist loadgroup``
    with ``xdist_group`` marks did the first once: with pytest 9 the group suffix xdist
    puts on the node id no longer takes, and the marks were silently ignored, so the
    demo, the soak and the load test ran side by side.)"""

    def _split_scope(self, nodeid: str) -> str:
        module = nodeid.split("::", 1)[0]
        if module in HEAVY:
            return "heavy"
        return module if shares_a_module_fixture(module) else nodeid
