"""What each live worker says of itself: its main process announces, when it starts
and in every watchdog round, how many matches it can play at once and which broker
deliveries it holds, with a lifetime of a few rounds, so a worker that died or stopped
drops out on its own.

The scheduler reads the pool sizes for formats that may decide while matches are out
(an SPRT): handing out no more than the workers can play keeps what a decision leaves to
waste to about that many matches, as fishtest's batches do, rather than a whole schedule
window. The watchdog reads the deliveries (``workers.deliveries``): one that no live
worker holds is handed back to the queue.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass

import redis

from arena.store import keys

ROUNDS_ALIVE = 3
"""Watchdog rounds an announcement outlives, so one late round does not drop a worker."""


@dataclass(frozen=True)
class Announced:
    processes: int
    held: frozenset[str]


def announce(
    client: redis.Redis,
    hostname: str,
    processes: int,
    interval_s: float,
    held: Iterable[str] = (),
) -> None:
    until = time.time() + ROUNDS_ALIVE * interval_s
    said = {"processes": processes, "until": until, "held": sorted(held)}
    client.hset(keys.workers(), hostname, json.dumps(said))


def live(client: redis.Redis) -> dict[str, Announced]:
    """The workers heard from lately, by hostname; announcements past their time (or
    unreadable) are removed."""
    now, found, gone = time.time(), {}, []
    raw: dict[bytes, bytes] = client.hgetall(keys.workers())  # type: ignore[assignment]
    for hostname, value in raw.items():
        try:
            said = json.loads(value)
            if float(said["until"]) > now:
                held = frozenset(str(tag) for tag in said.get("held", ()))
                found[hostname.decode()] = Announced(int(said["processes"]), held)
                continue
        except (ValueError, KeyError, TypeError):
            pass
        gone.append(hostname)
    if gone:
        client.hdel(keys.workers(), *gone)
    return found


def live_processes(client: redis.Redis) -> int:
    """Pool processes of the workers heard from lately (0: none has announced itself)."""
    return sum(worker.processes for worker in live(client).values())
