"""How a leaderboard row's rating reads, the same in the CLI and on the web: a number only
where the board stands behind one."""

from __future__ import annotations

import math

from arena.v1 import arena_pb2

_UNRANKED = {
    arena_pb2.RATING_STATUS_INCOMPLETE: "incomplete",
    arena_pb2.RATING_STATUS_EXCLUDED: "excluded",
}
_BOUND = {arena_pb2.RATING_BOUND_AT_LEAST: "≥ ", arena_pb2.RATING_BOUND_AT_MOST: "≤ "}


def elo_text(value: float) -> str:
    return f"{round(value):+d}" if math.isfinite(value) else "?"  # "+d": never "-0"


def rating_text(row: arena_pb2.LeaderboardRow, board: arena_pb2.Leaderboard) -> str:
    """The Elo cell: "+123"; "≥ +450" for a perfect record (its 95% bound); "6/20 pairs"
    while provisional on a game's board ("provisional" overall, where the note says in
    which game); "incomplete" or "excluded" for a row with no rating on this board."""
    if row.status in _UNRANKED:
        return _UNRANKED[row.status]
    if row.status == arena_pb2.RATING_STATUS_PROVISIONAL:
        return f"{row.pairs}/{board.min_pairs} pairs" if board.game else "provisional"
    if row.bound in _BOUND:
        return _BOUND[row.bound] + elo_text(row.elo_bound)
    return elo_text(row.elo)


def interval_text(row: arena_pb2.LeaderboardRow) -> str:
    """The 95% half-width, where the rating shown is the estimate."""
    shown = row.status in (arena_pb2.RATING_STATUS_UNSPECIFIED, arena_pb2.RATING_STATUS_RATED)
    if not shown or row.bound in _BOUND:
        return ""
    return f"± {row.elo_ci95:.0f}" if math.isfinite(row.elo_ci95) else "± ?"


def rank_text(row: arena_pb2.LeaderboardRow) -> str:
    """ "3", "2.1" for the first of group 2, "" when not ranked."""
    if not row.rank:
        return ""
    return f"{row.group}.{row.rank}" if row.group > 1 else str(row.rank)
