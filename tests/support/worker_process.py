"""Code run as a worker process runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any


def run(url: str, code: str) -> Any:
    """Run ``code`` as a worker process would, on ``url``; what it prints last, as JSON."""
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "ARENA_REDIS_URL": url},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(done.stdout.splitlines()[-1]) if done.stdout.strip() else None
