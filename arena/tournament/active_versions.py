"""Which of an author's hosted versions play in a competition's ladder: their active
versions (``docs/competitions.md``).

The rule is Kaggle's: an author's newest ``n`` submissions are active, whichever of
their bots each went to, so submitting a version retires the author's oldest active one
once they have ``n``. Only versions that play one of the ladder's games count (a version
that plays none of them could never be paired). Newest is by submission time, ties by
label, so every worker picks the same ones.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.store.packages import HostedVersion


def active(versions: Iterable[HostedVersion], n: int, games: Iterable[str]) -> list[HostedVersion]:
    """The newest ``n`` of ``versions`` (one author's, across their bots) that play one of
    ``games``, newest first."""
    wanted = set(games)
    playing = [v for v in versions if wanted & set(v.games)]
    return sorted(playing, key=lambda v: (v.submitted_at, v.label), reverse=True)[: max(n, 0)]
