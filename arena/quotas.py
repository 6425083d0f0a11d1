"""Authors' quotas on hosted bots: how much of the arena's Redis one author may fill.

A package is up to 16 MiB and is kept in Redis for as long as a version uses it, so one
author submitting version after version could fill the arena's memory (20 versions of
16 MiB took 320 MiB before quotas). An author may therefore hold at most ``bots`` hosted
bots, ``versions`` versions of each, and ``bytes`` of packages in all; ``arena api
serve`` sets them (``--author-max-*`` or ``$ARENA_AUTHOR_MAX_*``). A SubmitBot past one
is refused with RESOURCE_EXHAUSTED and nothing is stored; removing a version or a bot
(RemoveBotVersion, RemoveBot) makes room.

Bytes count each distinct package once: packages are stored under their SHA-256, so the
same bytes under two versions, or two of the author's bots, are stored and counted once.
A package that another author's bot also uses counts for each of them, since either may
end up keeping it alone. Packages of removed versions that running tournaments still play
(kept until none does: ``arena.store.removal``) no longer count: the author gave them up,
and what keeps them is tournaments the operator ran or a ladder's matches in flight.

The operator has no quotas. Its token already removes any bot and issues author tokens,
so a quota would protect nothing from it, and its bots (the house bots, a demo's) are
the arena's own. A version the operator submits to an author's bot is not refused, but
counts against that author afterwards: the bot is theirs to prune.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

MiB = 1 << 20
BOTS_ENV = "ARENA_AUTHOR_MAX_BOTS"
VERSIONS_ENV = "ARENA_AUTHOR_MAX_VERSIONS"
BYTES_ENV = "ARENA_AUTHOR_MAX_BYTES"
_SIZE = re.compile(r"^\s*(\d+)\s*(|B|KiB|MiB|GiB)\s*\Z")
_UNITS = {"": 1, "B": 1, "KiB": 1 << 10, "MiB": MiB, "GiB": 1 << 30}


class OverQuota(Exception):
    """A submission that would take its author past a quota; the message names the quota,
    the use and the limit, and how to make room."""


@dataclass(frozen=True)
class AuthorQuotas:
    """What each author may hold; the operator has none of these limits."""

    bots: int = 10
    """Hosted bots."""
    versions: int = 20
    """Versions of one bot."""
    bytes: int = 64 * MiB
    """Bytes of distinct packages over all their versions: four of the largest (16 MiB)."""

    def refusal(self, author: str, usage: Usage, bot: str, sha256: str, size: int) -> str | None:
        """Why ``author`` may not add a version of ``bot`` with this package, or None."""
        if bot not in usage.versions and usage.bots + 1 > self.bots:
            return (
                f"quota of hosted bots reached: author {author!r} has {usage.bots} "
                f"({', '.join(sorted(usage.versions)) or 'none'}), at most {self.bots} allowed; "
                "remove one (`arena bot remove NAME`), or submit this as a new version of one"
            )
        held = usage.versions.get(bot, 0)
        if held + 1 > self.versions:
            return (
                f"quota of versions per bot reached: {bot!r} has {held}, at most "
                f"{self.versions} allowed; remove one it no longer needs (`arena bot remove "
                f"{bot} --version V`; `arena bot versions {bot}` lists them)"
            )
        if sha256 not in usage.packages and usage.bytes + size > self.bytes:
            return (
                f"quota of package bytes reached: author {author!r} stores {usage.bytes:,} "
                f"bytes of packages, at most {self.bytes:,} allowed, and this one adds "
                f"{size:,}; remove versions (`arena bot remove NAME --version V`) or bots "
                "(`arena bot remove NAME`) no longer needed (a package counts once, however "
                "many versions use it)"
            )
        return None


@dataclass(frozen=True)
class Usage:
    """What an author's hosted bots hold."""

    versions: Mapping[str, int]
    """Bot name -> its versions."""
    packages: Mapping[str, int]
    """SHA-256 -> bytes, for each distinct package their versions use."""

    @property
    def bots(self) -> int:
        return len(self.versions)

    @property
    def bytes(self) -> int:
        return sum(self.packages.values())


def parse_count(text: str, what: str) -> int:
    """A quota of things: a whole number, 0 or more (0: none allowed)."""
    if not text.strip().isdigit():
        raise ValueError(f"{what} must be a whole number, 0 or more, not {text!r}")
    return int(text)


def parse_size(text: str, what: str) -> int:
    """A quota of bytes: a whole number, optionally with a unit (``64MiB``, ``1GiB``)."""
    found = _SIZE.match(text)
    if found is None:
        raise ValueError(
            f"{what} must be a number of bytes, optionally with a unit (KiB, MiB, GiB: "
            f"64MiB), not {text!r}"
        )
    return int(found[1]) * _UNITS[found[2]]
