"""Settings of the tournament workers, from the environment.

``ARENA_REDIS_URL``        broker, result backend and store (default redis://127.0.0.1:6379/0)
``ARENA_REFEREES``         comma-separated referee addresses (default 127.0.0.1:50051)
``ARENA_VISIBILITY_TIMEOUT``  seconds before an unacknowledged task is handed to another
                           worker; must exceed the longest match (default 3600)
``ARENA_UNACKED_RESTORE_INTERVAL``  seconds between scans for such tasks (default 10)
``ARENA_REFEREE_CA``       PEM file of CAs to trust: call referees over TLS (default: plaintext)
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field


def _float(name: str, default: float) -> float:
    return float(os.environ.get(name, default))


@dataclass(frozen=True)
class Settings:
    redis_url: str = field(
        default_factory=lambda: os.environ.get("ARENA_REDIS_URL", "redis://127.0.0.1:6379/0")
    )
    referees: tuple[str, ...] = field(
        default_factory=lambda: tuple(
            a.strip()
            for a in os.environ.get("ARENA_REFEREES", "127.0.0.1:50051").split(",")
            if a.strip()
        )
    )
    visibility_timeout_s: float = field(
        default_factory=lambda: _float("ARENA_VISIBILITY_TIMEOUT", 3600)
    )
    unacked_restore_interval_s: float = field(
        default_factory=lambda: _float("ARENA_UNACKED_RESTORE_INTERVAL", 10)
    )
    referee_ca: str = field(default_factory=lambda: os.environ.get("ARENA_REFEREE_CA", ""))
