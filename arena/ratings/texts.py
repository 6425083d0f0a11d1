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


STATUS_NAMES: dict[int, str] = {
    int(value): arena_pb2.RatingStatus.Name(value).removeprefix("RATING_STATUS_").lower()
    for value in arena_pb2.RatingStatus.values()
    if value != arena_pb2.RATING_STATUS_UNSPECIFIED
}


def status_text(status: int) -> str:
    """ "rated", "provisional", ...; "?" for a status this version does not know."""
    return STATUS_NAMES.get(int(status), "?")


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


def point_text(point: arena_pb2.RatingPoint) -> str:
    """A point of a bot's rating history: Elo ± its interval, or a perfect record's
    one-sided bound, as the board showed it."""
    if point.status in _UNRANKED or point.status == arena_pb2.RATING_STATUS_PROVISIONAL:
        return "—"
    if point.bound in _BOUND:
        return _BOUND[point.bound] + elo_text(point.elo_bound)
    return f"{elo_text(point.elo)} ± {point.elo_ci95:.0f}"
