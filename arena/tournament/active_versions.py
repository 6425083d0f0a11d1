"""Which of an author's hosted versions play in a competition's ladder: their active
versions (``docs/competitions.md``).

The rule is Kaggle's: an author's newest ``n`` submissions are active, whichever of
their bots each went to, so submitting a version retires the author's oldest active one
once they have ``n``. Only versions that play one of the ladder's games count (a version
that plays none of them could never be paired). Newest is by submission time, ties by
label, so every worker picks the same ones.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.store.bots import RegisteredBot
    from arena.store.packages import HostedVersion


def active(versions: Iterable[HostedVersion], n: int, games: Iterable[str]) -> list[HostedVersion]:
    """The newest ``n`` of ``versions`` (one author's, across their bots) that play one of
    ``games``, newest first."""
    wanted = set(games)
    playing = [v for v in versions if wanted & set(v.games)]
    return sorted(playing, key=lambda v: (v.submitted_at, v.label), reverse=True)[: max(n, 0)]


def by_author(
    registered: Iterable[RegisteredBot],
    versions: Callable[[str], Sequence[HostedVersion]],
    authors: Collection[str],
    n: int,
    games: Iterable[str],
) -> dict[str, list[HostedVersion]]:
    """The active versions of each of ``authors`` (``versions``: every version of a hosted
    bot by name), newest first; an author with none is left out. What a competition's
    ladder plays, what its final picks from, and what an author may mark."""
    wanted = tuple(games)
    mine: dict[str, list[HostedVersion]] = {}
    for bot in registered:
        if bot.hosted and bot.author in authors:
            mine.setdefault(bot.author, []).extend(versions(bot.name))
    found = {author: active(listed, n, wanted) for author, listed in mine.items()}
    return {author: listed for author, listed in found.items() if listed}
