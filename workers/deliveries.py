"""Broker deliveries that no live worker holds, handed back to the queue.

kombu's Redis transport keeps each message a worker has taken and not yet acknowledged
in its ``unacked`` hash, and hands it back only once the visibility timeout has passed:
an hour as shipped, since a match may rightly run that long. A worker that died (or
lost its connection to a Redis that restarted) while holding one would stall the match,
and its tournament, for that hour. So each worker announces, in every watchdog round,
the delivery tags it holds: received, waiting for a retry's countdown, or being played
(``workers.capacity``). A delivery taken more than ``ROUNDS_ALIVE`` rounds ago that no
live worker holds is handed back, at the front of its queue, by kombu's own restore
(``QoS.restore_by_tag``, the call the visibility timeout ends in).

So a dead worker's matches go back to the queue within ``ROUNDS_ALIVE + 1`` watchdog
rounds of its death (40 s as shipped), whatever the visibility timeout, which stays as
the backstop for a watchdog that cannot run. A worker that was only stopped and wakes
up later finds its delivery handed back: its copy of the match stands down or counts
once (leases, HSETNX), as any copy does.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable

import redis

from workers.broker import UNACKED_INDEX
from workers.capacity import ROUNDS_ALIVE

log = logging.getLogger(__name__)


def held_here() -> list[str]:
    """The delivery tags this worker process holds: its Celery requests, from the one
    just received to the one being played (Celery drops those it can no longer
    acknowledge when its broker connection closes)."""
    from celery.worker import state

    return [
        str(request.message.delivery_tag)
        for request in list(state.requests.values())
        if request.message is not None
    ]


def stranded(client: redis.Redis, held: Iterable[str], interval_s: float) -> list[str]:
    """Deliveries taken more than ``ROUNDS_ALIVE`` watchdog rounds ago that no live
    worker holds: by then a worker that held one would have announced it."""
    taken_before = time.time() - ROUNDS_ALIVE * interval_s
    tags: list[bytes] = client.zrangebyscore(UNACKED_INDEX, "-inf", taken_before)  # type: ignore[assignment]
    holding = set(held)
    return [tag.decode() for tag in tags if tag.decode() not in holding]


def hand_back(tags: list[str]) -> None:
    """Put each delivery back at the front of its queue, as kombu does when its
    visibility timeout ends."""
    from workers.app import app

    with app.connection_for_write() as connection:
        qos = connection.default_channel.qos
        for tag in tags:
            log.warning("delivery %s is held by no live worker: handed back to the queue", tag)
            qos.restore_by_tag(tag, leftmost=True)
