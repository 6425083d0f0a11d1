"""How a leaderboard row's rating reads, the same in the CLI, on the web pages and in a
bot's history: an estimate with its 95% interval from a bot's first rated pair, marked
``?`` while provisional (as lichess marks one), a one-sided bound for a bot that won or
lost every pair, and a word for a row with no rating on the board."""

from __future__ import annotations

import math
from collections.abc import Iterator

from arena.v1 import arena_pb2

PROVISIONAL_MARK = "?"
_UNRANKED = {
    arena_pb2.RATING_STATUS_INCOMPLETE: "incomplete",
    arena_pb2.RATING_STATUS_EXCLUDED: "excluded",
}
_BOUND = {arena_pb2.RATING_BOUND_AT_LEAST: "≥ ", arena_pb2.RATING_BOUND_AT_MOST: "≤ "}
NO_PAIR = "—"
"""The cell of a row with no rated pair yet: nothing fitted, nothing to show."""


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


def _estimate(
    status: arena_pb2.RatingStatus.ValueType,
    elo: float,
    bound: arena_pb2.RatingBound.ValueType,
    elo_bound: float,
    pairs: int,
) -> str:
    if status in _UNRANKED:
        return _UNRANKED[status]
    provisional = status == arena_pb2.RATING_STATUS_PROVISIONAL
    if provisional and not pairs:
        return NO_PAIR
    mark = PROVISIONAL_MARK if provisional else ""
    if bound in _BOUND:
        return _BOUND[bound] + elo_text(elo_bound) + mark
    return elo_text(elo) + mark


def _interval(
    status: arena_pb2.RatingStatus.ValueType,
    ci95: float,
    bound: arena_pb2.RatingBound.ValueType,
    pairs: int,
) -> str:
    if status in _UNRANKED or bound in _BOUND or not pairs:
        return ""
    return f"± {ci95:.0f}" if math.isfinite(ci95) else "± ?"


def rating_text(row: arena_pb2.LeaderboardRow, board: arena_pb2.Leaderboard) -> str:
    """The Elo cell: "+123" established, "+123?" provisional; "≥ +450" ("≥ +450?") for a
    bot that won every pair, "≤ -450" for one that lost every pair (the one-sided 95%
    bound, not the prior's estimate); "—" with no rated pair yet; "incomplete" or
    "excluded" for a row with no rating on this board."""
    return _estimate(row.status, row.elo, row.bound, row.elo_bound, row.pairs)


def interval_text(row: arena_pb2.LeaderboardRow) -> str:
    """The 95% half-width, "± 45", wherever the cell shows an estimate."""
    return _interval(row.status, row.elo_ci95, row.bound, row.pairs)


def bootstrap_text(row: arena_pb2.LeaderboardRow, board: arena_pb2.Leaderboard) -> str:
    """The bootstrap's 95% interval, "[-31, +118]", where the board has one
    (``GetLeaderboardRequest.bootstrap``) and the cell shows an estimate ("" elsewhere:
    a perfect record's percentiles are the prior's, as its estimate is)."""
    if not board.bootstrap or not interval_text(row) or not row.rank:
        return ""
    return f"[{elo_text(row.elo_low)}, {elo_text(row.elo_high)}]"


def cell_text(row: arena_pb2.LeaderboardRow) -> str:
    """The rating with its interval in one cell: "+123? ± 210"."""
    return f"{rating_text(row, arena_pb2.Leaderboard())} {interval_text(row)}".strip()


def rows_under(board: arena_pb2.Leaderboard) -> Iterator[tuple[arena_pb2.LeaderboardRow, str]]:
    """The board's rows, each followed by the older versions folded under it, with the
    bot each is folded under ("" for a row of its own)."""
    for row in board.rows:
        yield row, ""
        for older in row.older_versions:
            yield older, row.bot


def every_row(board: arena_pb2.Leaderboard) -> Iterator[arena_pb2.LeaderboardRow]:
    """The board's rows, each followed by the older versions folded under it."""
    return (row for row, _ in rows_under(board))


def rank_text(row: arena_pb2.LeaderboardRow) -> str:
    """ "3", "2.1" for the first of group 2, "" when not ranked."""
    if not row.rank:
        return ""
    return f"{row.group}.{row.rank}" if row.group > 1 else str(row.rank)


def point_text(point: arena_pb2.RatingPoint) -> str:
    """A point of a bot's rating history, as the board's cell read then."""
    estimate = _estimate(point.status, point.elo, point.bound, point.elo_bound, point.pairs)
    interval = _interval(point.status, point.elo_ci95, point.bound, point.pairs)
    return f"{estimate} {interval}".strip()


def ranking_text(board: arena_pb2.Leaderboard) -> str:
    """The ranking rule in a line, for a board with provisional rows ("" without)."""
    if not any(
        row.rank and row.status == arena_pb2.RATING_STATUS_PROVISIONAL for row in board.rows
    ):
        return ""
    where = ", in every game" if not board.game else ""
    return (
        f"Ranked by Elo: established ratings ({board.min_pairs} pairs or more{where}) first, "
        f"then provisional ones, marked {PROVISIONAL_MARK}, whose estimates run ahead of "
        "the truth with fewer pairs (their 95% intervals stay honest)."
    )


def standing_text(row: arena_pb2.LeaderboardRow) -> str:
    """Where a row stands, in words: "rank 2, +123? ± 210, provisional"; a row with no
    rank says its status ("incomplete")."""
    if not row.rank:
        return status_text(row.status) if row.pairs else "no rated pair yet"
    status = "provisional" if row.status == arena_pb2.RATING_STATUS_PROVISIONAL else "established"
    return f"rank {rank_text(row)}, {cell_text(row)}, {status}"
