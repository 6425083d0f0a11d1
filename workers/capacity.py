"""How many matches the live workers can play at once: each worker's main process
announces its pool size in Redis when it starts and in every watchdog round, with a
lifetime of a few rounds, so a worker that died or stopped drops out on its own.

The scheduler reads it for formats that may decide while matches are out (an SPRT):
handing out no more than the workers can play keeps what a decision leaves to waste to
about that many matches, as fishtest's batches do, rather than a whole schedule window.
"""

from __future__ import annotations

import json
import time

import redis

KEY = "arena:workers"
"""Hash: worker hostname -> {"processes": n, "until": unix time}."""
ROUNDS_ALIVE = 3
"""Watchdog rounds an announcement outlives, so one late round does not drop a worker."""


def announce(client: redis.Redis, hostname: str, processes: int, interval_s: float) -> None:
    until = time.time() + ROUNDS_ALIVE * interval_s
    client.hset(KEY, hostname, json.dumps({"processes": processes, "until": until}))


def live_processes(client: redis.Redis) -> int:
    """Pool processes of the workers heard from lately (0: none has announced itself);
    announcements past their time are removed."""
    now, total, gone = time.time(), 0, []
    raw: dict[bytes, bytes] = client.hgetall(KEY)  # type: ignore[assignment]
    for hostname, value in raw.items():
        try:
            seen = json.loads(value)
            alive, processes = float(seen["until"]) > now, int(seen["processes"])
        except (ValueError, KeyError, TypeError):
            alive, processes = False, 0
        if alive:
            total += processes
        else:
            gone.append(hostname)
    if gone:
        client.hdel(KEY, *gone)
    return total
