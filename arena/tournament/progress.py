"""How a running tournament's progress reads, the same in the CLI and on the web page."""

from __future__ import annotations

from datetime import UTC

from arena.v1 import arena_pb2


def waiting_text(t: arena_pb2.Tournament) -> str:
    """Why the tournament waits ('' when it does not): since when, and the last failure."""
    if not t.HasField("waiting"):
        return ""
    since = t.waiting.since.ToDatetime(tzinfo=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return f"waiting for a referee since {since} ({t.waiting.reason})"
