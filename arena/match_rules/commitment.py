"""The deal commitment: the referee's promise, made before the first card, of the seed.

The first public event of every match (``MATCH_EVENT_KIND_STARTED``) carries

    deal_commitment = lowercase hex of SHA-256( UTF-8( "arena.v2 deal <match_id> <seed> <salt>" ) )

where ``<match_id>`` is the match id exactly as given (1 to 64 of ``A-Z a-z 0-9 - _``,
so it never holds a space), ``<seed>`` is the deal seed in decimal without leading zeros
or sign (``0`` for zero) and ``<salt>`` is 32 lowercase hex digits the referee draws for
this match from ``secrets``. The separators are single ASCII spaces. Seed and salt are
revealed only after the match (in the ``MatchResult`` and the replay, later still when
the request's disclosure says so), so a watcher can check that the deal was fixed before
play began; ``arena replay verify`` does that and re-deals every hand. The salt is what
keeps a small seed (``--seed 1``) from being found by hashing candidates until one
matches. ``arena.v1`` commitments, unsalted, are still verified for older replays.
"""

from __future__ import annotations

import hashlib
import re
import secrets

PREFIX = "arena.v2 deal"
"""Version tag and purpose at the start of the committed text."""
UNSALTED_PREFIX = "arena.v1 deal"
"""The first formula, without a salt: replays recorded before salts still verify."""
SALT = re.compile(r"^[0-9a-f]{32}\Z")


def new_salt() -> str:
    """128 bits from a cryptographic source, as 32 lowercase hex digits."""
    return secrets.token_hex(16)


def commitment_text(match_id: str, seed: int, salt: str | None) -> str:
    """The exact text whose SHA-256 is the commitment (``salt=None``: the v1 formula)."""
    if seed < 0:
        raise ValueError(f"a deal seed is never negative, got {seed}")
    if salt is None:
        return f"{UNSALTED_PREFIX} {match_id} {seed}"
    if not SALT.match(salt):
        raise ValueError(f"a salt is 32 lowercase hex digits, got {salt!r}")
    return f"{PREFIX} {match_id} {seed} {salt}"


def deal_commitment(match_id: str, seed: int, salt: str | None) -> str:
    """Lowercase hex SHA-256 of :func:`commitment_text`, 64 characters."""
    return hashlib.sha256(commitment_text(match_id, seed, salt).encode("utf-8")).hexdigest()
