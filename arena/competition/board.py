"""A competition's board: the ladder's leaderboard read by author.

The ladder rates versions (``name@version``); a competition ranks authors. Each author's
row is their best active version as the ladder's board ranks them (established before
provisional, then by Elo: ``arena.ratings.board.ranked``), so an author's old versions,
retired by newer ones, neither hold a place nor take one from the version they play now.
Their own view lists every version of theirs the ladder rated, active or not.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from arena.ratings.board import Leaderboard, Row, is_ranked


@dataclass(frozen=True)
class AuthorRow:
    rank: int
    """1 for the best author; 0 when none of the author's active versions is ranked."""
    author: str
    active: bool
    row: Row
    """The version's row on the ladder's board (``row.bot`` names the version)."""


def by_author(
    board: Leaderboard, authors: Mapping[str, str], active: Collection[str]
) -> list[AuthorRow]:
    """One row per author with an active version on ``board`` (``authors``: version ->
    its author), their best, ranked from 1 in the board's order."""
    best: dict[str, Row] = {}
    for row in board.rows:  # ranked order, unranked rows last
        author = authors.get(row.bot)
        if author and row.bot in active and author not in best:
            best[author] = row
    out, rank = [], 0
    for author, row in best.items():
        rank += is_ranked(row)
        out.append(AuthorRow(rank if is_ranked(row) else 0, author, True, row))
    return out


def versions_of(
    board: Leaderboard,
    authors: Mapping[str, str],
    active: Collection[str],
    who: Collection[str] | None,
) -> list[AuthorRow]:
    """Every version on ``board`` of the authors ``who`` (None: every author), by author
    and then in the board's order, each with its rank on the board."""
    rows = [
        AuthorRow(row.rank, authors[row.bot], row.bot in active, row)
        for row in board.rows
        if row.bot in authors and (who is None or authors[row.bot] in who)
    ]
    return sorted(rows, key=lambda r: r.author)  # stable: the board's order within
