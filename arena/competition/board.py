"""A competition's board: the ladder's leaderboard read by author.

The ladder rates versions (``name@version``); a competition ranks authors. Each author's
row is their best active version as the ladder's board ranks them (established before
provisional, then by Elo: ``arena.ratings.board.ranked``), so an author's old versions,
retired by newer ones, neither hold a place nor take one from the version they play now.
Their own view lists every version of theirs the ladder rated, active or not.

With leagues (``arena.tournament.leagues``) an author's best active version is the
one in the highest league, and the rows are grouped by league, the top first, each in
the board's order, with the league's boss among them (marked, unranked: a boss is not
an author); authors are ranked in that order, so a version in a higher league ranks
above any in a lower one, whatever their Elo.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace

from arena.ratings.board import Leaderboard, Row, is_ranked
from arena.tournament.leagues import Leagues, league_of


@dataclass(frozen=True)
class AuthorRow:
    rank: int
    """1 for the best author; 0 when none of the author's active versions is ranked."""
    author: str
    active: bool
    row: Row
    """The version's row on the ladder's board (``row.bot`` names the version)."""
    league: str = ""
    """Its league's name; empty without leagues."""
    boss: bool = False
    """A league's boss, not an author's version (``author`` is empty, ``rank`` 0)."""


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


def in_leagues(
    board: Leaderboard,
    authors: Mapping[str, str],
    active: Collection[str],
    leagues: Leagues,
    reached: Mapping[str, int],
) -> list[AuthorRow]:
    """``by_author`` with leagues: each author's best active version is the one in the
    highest league, then first in the board's order; the rows and the bosses on
    ``board`` by league, the top first, each in the board's order; authors ranked from 1
    in that order (``reached``: each version's league as the ladder records it)."""
    where = {row.bot: i for i, row in enumerate(board.rows)}

    def place(bot: str) -> tuple[int, int]:
        return -league_of(leagues, reached, bot), where[bot]

    ordered = replace(board, rows=tuple(sorted(board.rows, key=lambda r: place(r.bot))))
    bosses = leagues.bosses()
    everyone = [
        *by_author(ordered, authors, active),
        *(AuthorRow(0, "", True, r, boss=True) for r in ordered.rows if r.bot in bosses),
    ]
    everyone.sort(key=lambda r: place(r.row.bot))
    out, rank = [], 0
    for r in everyone:
        counts = not r.boss and is_ranked(r.row)
        rank += counts
        name = leagues.leagues[league_of(leagues, reached, r.row.bot)].name
        out.append(replace(r, rank=rank if counts else 0, league=name))
    return out


def with_league(
    rows: list[AuthorRow], leagues: Leagues, reached: Mapping[str, int]
) -> list[AuthorRow]:
    """``rows`` each with its league's name, in the order given."""
    return [
        replace(r, league=leagues.leagues[league_of(leagues, reached, r.row.bot)].name)
        for r in rows
    ]
