"""What the Celery broker holds, read from kombu's Redis layout: the matches queued and
the ones a worker has taken but not acknowledged (waiting for a retry's countdown, or
being played)."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterable, Iterator
from typing import Any

import redis

PRIORITY_SEPARATOR = "\x06\x16"
"""How kombu's Redis transport names a queue's priority lists: ``celery\\x06\\x163``."""
PRIORITY_STEPS = (3, 6, 9)
UNACKED = "unacked"
UNACKED_INDEX = "unacked_index"
"""Delivery tags by the time a worker took them."""
PLAY_MATCH = "arena.play_match"


def queue_keys(queue: str) -> list[str]:
    return [queue] + [f"{queue}{PRIORITY_SEPARATOR}{p}" for p in PRIORITY_STEPS]


def queue_length(client: redis.Redis, queue: str) -> int:
    return sum(int(client.llen(key)) for key in queue_keys(queue))


def queued_matches(
    client: redis.Redis,
    queues: Iterable[str] = ("celery",),
    stranded_after: float | None = None,
) -> set[tuple[str, str]]:
    """(tournament id, match id) of every ``play_match`` message in the broker, leaving
    out unacknowledged ones taken more than ``stranded_after`` seconds ago."""
    raw: list[bytes] = []
    for queue in queues:
        for key in queue_keys(queue):
            raw.extend(client.lrange(key, 0, -1))  # type: ignore[arg-type]
    stranded: set[bytes] = set()
    if stranded_after is not None:
        taken_before = time.time() - stranded_after
        tags: list[bytes] = client.zrangebyscore(UNACKED_INDEX, "-inf", taken_before)  # type: ignore[assignment]
        stranded = set(tags)
    for tag, value in client.hgetall(UNACKED).items():
        if tag in stranded:
            continue
        try:
            raw.append(json.dumps(json.loads(value)[0]).encode())
        except (ValueError, IndexError, TypeError):
            continue
    return set(_matches(raw))


def _matches(messages: Iterable[bytes]) -> Iterator[tuple[str, str]]:
    for payload in messages:
        args = _args(payload)
        if args is not None:
            yield args


def _args(payload: bytes) -> tuple[str, str] | None:
    try:
        message: dict[str, Any] = json.loads(payload)
        if message.get("headers", {}).get("task") != PLAY_MATCH:
            return None
        body = message["body"]
        if message.get("properties", {}).get("body_encoding") == "base64":
            body = base64.b64decode(body)
        args = json.loads(body)[0]
        return str(args[0]), str(args[1])
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return None
