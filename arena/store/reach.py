"""Reaching the arena's Redis: one client with timeouts, one check at start, and one
wording for "it is down" wherever the arena says it."""

from __future__ import annotations

import redis

CONNECT_TIMEOUT_S = 5.0
COMMAND_TIMEOUT_S = 30.0


class StoreUnreachable(OSError):
    """Redis does not answer; the message names where it was looked for (never with the
    password) and why."""


def where(client: redis.Redis) -> str:
    kwargs = client.connection_pool.connection_kwargs
    if "path" in kwargs:
        return f"unix:{kwargs['path']}"
    return f"{kwargs.get('host', 'localhost')}:{kwargs.get('port', 6379)}/{kwargs.get('db', 0)}"


def unreachable(client: redis.Redis, error: Exception) -> str:
    return f"cannot reach the arena's Redis at {where(client)} ({error})"


def connect(url: str) -> redis.Redis:
    """A client for ``url`` that answered a PING, or ``StoreUnreachable``."""
    client = redis.Redis.from_url(
        url, socket_connect_timeout=CONNECT_TIMEOUT_S, socket_timeout=COMMAND_TIMEOUT_S
    )
    try:
        client.ping()
    except redis.RedisError as error:
        raise StoreUnreachable(unreachable(client, error)) from None
    return client
