"""A bot's versions on one board: rated apart, shown together.

Each version (``name@version``) is a player of its own in the fit, rated from its own
results only: a new version may be better or worse, and lending it its predecessor's
results would hide which. A reader asks about the bot, though, so a board shows one row
a bot, its newest version's, with the older versions folded under it, and a history
asked for by the bot's name follows whichever version was newest at each refit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from arena.ratings.board import Leaderboard, Row, ranked
from arena.ratings.history import Point

Submitted = Mapping[str, float]
"""When each version (``name@version``) was submitted, seconds since the epoch. A version
missing from it (one since removed, whose time is not kept) counts as the oldest."""


def bot_of(entry: str) -> str:
    """The bot an entry is a version of (a remote bot's entry is its name)."""
    return entry.partition("@")[0]


def newest_first(entries: Iterable[str], submitted: Submitted) -> list[str]:
    """``entries`` newest first; those of unknown time last, by name."""
    return sorted(entries, key=lambda e: (-submitted.get(e, -math.inf), e))


@dataclass(frozen=True)
class Folded:
    """A board with one row a bot, and what was folded away."""

    board: Leaderboard
    """Each bot's newest version on the board (and every remote bot), ranked among
    themselves by the board's rule: an older version holds no place."""
    older: dict[str, tuple[Row, ...]] = field(default_factory=dict)
    """By the newest version's entry, the older versions' rows, newest first, rank 0."""


def folded(board: Leaderboard, submitted: Submitted) -> Folded:
    """``board`` with each bot's older versions folded under its newest one's row."""
    by_bot: dict[str, list[Row]] = {}
    for row in board.rows:
        by_bot.setdefault(bot_of(row.bot), []).append(row)
    current: list[Row] = []
    older: dict[str, tuple[Row, ...]] = {}
    for rows in by_bot.values():
        by_entry = {row.bot: row for row in rows}
        newest, *rest = newest_first(by_entry, submitted)
        current.append(by_entry[newest])
        if rest:
            older[newest] = tuple(replace(by_entry[e], rank=0) for e in rest)
    if not older:
        return Folded(board)
    return Folded(replace(board, rows=ranked(current)), older)


def across_versions(points: Mapping[str, Sequence[Point]], submitted: Submitted) -> list[Point]:
    """One bot's history from its versions' (``points`` by entry): on each board, at
    each refit, the point of the newest version rated then, marked with its version.
    A refit rates every version it has results of, so an old version's points go on
    after a new one joins: those are left out, and the line stays the bot's current
    version's."""
    rank = {e: i for i, e in enumerate(newest_first(points, submitted))}
    chosen: dict[tuple[str, float], tuple[int, Point]] = {}
    for entry, found in points.items():
        for point in found:
            key = (point.game, point.time)
            if key not in chosen or rank[entry] < chosen[key][0]:
                chosen[key] = (rank[entry], replace(point, version=entry.partition("@")[2]))
    return [point for _, point in chosen.values()]
