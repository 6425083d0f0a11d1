"""The arena's limits, and the checks of values that reach it by more than one door.

A tournament spec (the API) and a PlayMatch request (the referee) both carry a move
deadline, a time bank and a fault limit; both check them here, in seconds, so a value one
accepts the other never refuses (a 1 ns deadline once passed the API, reached the referee
as 0 s and left its tournament waiting for ever). Every refusal says what is allowed.
"""

from __future__ import annotations

import re

from google.protobuf import duration_pb2

from arena import wire

DEFAULT_MOVE_DEADLINE_S = 1.0
MIN_MOVE_DEADLINE_S = 0.001
"""Below a millisecond no bot can answer, and a duration rounds to nothing on the wire."""
MAX_MOVE_DEADLINE_S = 60.0
MAX_TIME_BANK_S = 3600.0
MAX_BROADCAST_DELAY_S = 3600.0
MAX_FAULTS_LIMIT = 1000
MATCH_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}\Z")
BOT_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,40}\Z")
"""A registry name, and a hosted bot's version label."""
ENTRY_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,40}(@[A-Za-z0-9_.-]{1,40})?\Z")
"""A tournament entry, ``name`` or a hosted bot's ``name@version``: what the referee
calls a bot to watchers."""


MAX_REQUEST_BYTES = 1 << 20
"""The largest message any arena server (API, referee) reads, from anyone: it is read
before the call's token is checked, so it is what an anonymous caller can make a server
hold. A hosted bot's package (up to 16 MiB) comes in pieces instead
(``arena.hosting.transfer``)."""


class LimitError(ValueError):
    """A value outside the arena's limits; the message is for the caller."""


def move_deadline_s(value: duration_pb2.Duration | None, field: str = "move_deadline") -> float:
    """The deadline in seconds (``None``, unset: the default)."""
    if value is None:
        return DEFAULT_MOVE_DEADLINE_S
    seconds = _seconds(value, field)
    if not MIN_MOVE_DEADLINE_S <= seconds <= MAX_MOVE_DEADLINE_S:
        raise LimitError(
            f"{field} must be {MIN_MOVE_DEADLINE_S * 1000:g} ms to {MAX_MOVE_DEADLINE_S:g} s, "
            f"got {seconds:g} s"
        )
    return seconds


def time_bank_s(value: duration_pb2.Duration | None, field: str = "time_bank") -> float:
    """The time bank in seconds (``None``, unset: none)."""
    if value is None:
        return 0.0
    seconds = _seconds(value, field)
    if not 0 <= seconds <= MAX_TIME_BANK_S:
        raise LimitError(f"{field} must be 0 to {MAX_TIME_BANK_S:g} s, got {seconds:g} s")
    return seconds


def broadcast_delay_s(value: duration_pb2.Duration | None, field: str = "broadcast_delay") -> float:
    """How long watchers wait for each event, in seconds (``None``, unset: no wait)."""
    if value is None:
        return 0.0
    seconds = _seconds(value, field)
    if not 0 <= seconds <= MAX_BROADCAST_DELAY_S:
        raise LimitError(
            f"{field} must be 0 to {MAX_BROADCAST_DELAY_S:g} s (an hour), got {seconds:g} s"
        )
    return seconds


def max_faults(value: int, field: str = "max_faults") -> int:
    if not 0 <= value <= MAX_FAULTS_LIMIT:
        raise LimitError(f"{field} must be 1..{MAX_FAULTS_LIMIT} (0 for the default), got {value}")
    return value


def _seconds(value: duration_pb2.Duration, field: str) -> float:
    try:
        return wire.seconds(value)
    except ValueError as error:
        raise LimitError(f"bad {field}: {error}") from None
