"""Optimistic transactions: read under WATCH, write in MULTI, and start again when a
watched key changed before the write (redis-py's ``Redis.transaction``). A watched key
is often one every bot shares (``arena:bots``), so another bot's change makes a body
run again; the body then decides afresh on what it reads."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar, cast

import redis
from redis.client import Pipeline

T = TypeVar("T")


def watching(client: redis.Redis, keys: list[str], body: Callable[[Pipeline], T]) -> T:
    """What ``body`` returns, from its last run: each run reads through the pipeline it
    is given (watching ``keys``) and queues its writes after ``pipe.multi()``; a body
    that returns without queueing anything writes nothing."""
    return cast(T, client.transaction(body, *keys, value_from_callable=True))  # type: ignore[arg-type]
