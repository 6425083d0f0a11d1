"""Invite codes: how authors join a competition without an operator step each.

A code is 128 random bits; the arena keeps only its SHA-256 (as it does authors'
tokens: ``arena.store.authors``), so a leaked store gives no code and a code needs no
salt. Each code brings in up to ``uses`` authors until it expires; the store spends a
use in the same script that creates the author (``arena.store.competitions``), so two
joins racing for the last use cannot both win.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

PREFIX = "invite-"
MAX_COUNT = 1000
"""Codes one call may issue."""
MAX_USES = 10_000
"""Authors one code may bring in."""

UNKNOWN = "unknown"
USED_UP = "used up"
EXPIRED = "expired"


def new_code() -> str:
    return PREFIX + secrets.token_urlsafe(16)


def code_hash(code: str) -> str:
    """What the store keeps of ``code``."""
    return hashlib.sha256(code.encode()).hexdigest()


@dataclass(frozen=True)
class Invite:
    """A code's record: which competition, how many uses are left and until when."""

    competition: str
    uses: int
    left: int
    expires_at: float
    created_at: float

    def refusal(self, now: float) -> str | None:
        """Why the code cannot be used at ``now`` (``USED_UP``, ``EXPIRED``), or None."""
        if self.left <= 0:
            return USED_UP
        if now >= self.expires_at:
            return EXPIRED
        return None
