"""The deal commitment: the referee's promise, made before the first card, of the seed.

The first public event of every match (``MATCH_EVENT_KIND_STARTED``) carries

    deal_commitment = lowercase hex of SHA-256( UTF-8( "arena.v1 deal <match_id> <seed>" ) )

where ``<match_id>`` is the match id exactly as given (1 to 64 of ``A-Z a-z 0-9 - _``,
so it never holds a space) and ``<seed>`` is the deal seed in decimal without leading
zeros or sign (``0`` for zero). Both separators are one ASCII space. The seed itself is
revealed only after the match, in the ``MatchResult`` and the replay, so a watcher can
check that the deal was fixed before play began; ``arena replay verify`` does that and
re-deals every hand. ``arena.v1`` versions the formula: a different one gets a new prefix.
"""

from __future__ import annotations

import hashlib

PREFIX = "arena.v1 deal"
"""Version tag and purpose at the start of the committed text."""


def commitment_text(match_id: str, seed: int) -> str:
    """The exact text whose SHA-256 is the commitment."""
    if seed < 0:
        raise ValueError(f"a deal seed is never negative, got {seed}")
    return f"{PREFIX} {match_id} {seed}"


def deal_commitment(match_id: str, seed: int) -> str:
    """Lowercase hex SHA-256 of :func:`commitment_text`, 64 characters."""
    return hashlib.sha256(commitment_text(match_id, seed).encode("utf-8")).hexdigest()
