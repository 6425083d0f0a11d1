"""A leaderboard as stored and served: its rows, and what each row's status means."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

MIN_PAIRS = 20
"""Pairs a bot needs on a board before its rating is shown. With fewer, the fit
stretches ratings away from the mean: in ``bench.rating_bias``'s round robins of 4 to 16
bots the median stretch is 13-31% at 7-15 pairs a bot and 4-7% at 21-30; 20 is the
round number about where it falls under 10% (docs/ratings.md)."""

RATED = "rated"
PROVISIONAL = "provisional"
"""Fitted, but on fewer than MIN_PAIRS pairs (or none): the number is not shown."""
INCOMPLETE = "incomplete"
"""Overall boards only: not rated in every game of the board (``arena.ratings.overall``)."""
EXCLUDED = "excluded"
"""Forfeited every match: left out of the fit, whose other ratings it would distort."""


@dataclass(frozen=True)
class Row:
    rank: int
    bot: str
    elo: float
    elo_ci95: float
    pairs: int
    wins: int
    draws: int
    losses: int
    matches: int
    game_elo: dict[str, float] = field(default_factory=dict)
    status: str = RATED
    """RATED, or why the row is not ranked: PROVISIONAL, INCOMPLETE or EXCLUDED."""
    note: str = ""
    """For the reader, when there is something to say: why the row is not ranked, that
    its group is not connected to the main one, that its record is perfect."""
    group: int = 1
    """Which connected part of the comparison graph the bot is in: 1 the largest, 0 for
    a bot not fitted at all; ratings in different groups cannot be compared."""
    bound: str = ""
    """"at least" or "at most" for a perfect record, whose estimate comes from the prior:
    ``elo_bound`` is then the one-sided 95% bound shown instead."""
    elo_bound: float = 0.0
    shared_partners: int = 0
    """Of ``matches``, those in which the bot's one process held both seats of its team
    (a remote entry in a partnership game): it may have seen its partner's hand."""


@dataclass(frozen=True)
class Leaderboard:
    game: str
    rows: tuple[Row, ...]
    draw_elo: float
    matches: int
    caveats: tuple[str, ...] = ()
    """What a reader should know before trusting these ratings."""
    covariance: dict[str, dict[str, float]] = field(default_factory=dict, compare=False)
    """The fit's covariance of the ratings, bot by bot: what pairwise answers come from
    (``arena.ratings.compare``). Only within a group; empty on boards stored before it
    was kept."""
    min_pairs: int = MIN_PAIRS
    """The pairs a rating needed when this board was made."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Leaderboard:
        rows = tuple(Row(**row) for row in data["rows"])
        caveats = tuple(data.get("caveats", ()))
        covariance = data.get("covariance", {})
        return cls(
            data["game"],
            rows,
            data["draw_elo"],
            data["matches"],
            caveats,
            covariance,
            data.get("min_pairs", MIN_PAIRS),
        )


_ORDER = {RATED: 0, PROVISIONAL: 1, INCOMPLETE: 2, EXCLUDED: 3}


def ranked(rows: Iterable[Row]) -> tuple[Row, ...]:
    """Rated rows first, ranked from 1 within their group (largest group first); then
    the rest, unranked (rank 0): provisional, incomplete, excluded."""
    ordered = sorted(rows, key=lambda r: (_ORDER[r.status], r.group, -r.elo, -r.pairs, r.bot))
    out, rank, group = [], 0, -1
    for row in ordered:
        if row.status == RATED:
            rank = rank + 1 if row.group == group else 1
            group = row.group
        out.append(replace(row, rank=rank if row.status == RATED else 0))
    return tuple(out)
