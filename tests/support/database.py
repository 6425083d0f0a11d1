"""A Redis database number of its own for each test that needs one."""

from __future__ import annotations

import itertools

_databases = itertools.count(1)


def next_database() -> int:
    """A Redis database number no other test of this run uses (the server has 1024)."""
    return next(_databases)
