"""Named places where a test can stop a worker, to kill it there (as etcd's gofail and
TiKV's fail-rs do): off unless ``ARENA_FAILPOINTS`` names them, comma-separated."""

from __future__ import annotations

import os
import time

ENV = "ARENA_FAILPOINTS"
FINALIZE = "finalize"
"""Inside ``finalize``: the tournament's lock taken, its ratings not yet saved."""


def reach(name: str) -> None:
    """Stop here for good if this failpoint is on, saying so on stdout first."""
    if name in os.environ.get(ENV, "").split(","):
        print(f"failpoint {name} reached in pid {os.getpid()}", flush=True)
        while True:
            time.sleep(3600)
