"""A leaderboard as stored and served: its rows, what each row's status means, and the
rule that ranks them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from arena.records import stale

MIN_PAIRS = 20
"""Pairs that establish a rating. With fewer, the fit stretches ratings away from the
mean: in ``bench.rating_bias``'s round robins of 4 to 16 bots the median stretch is
13-31% at 7-15 pairs a bot and 4-7% at 21-30; 20 is the round number about where it
falls under 10% (docs/ratings.md). A bot with fewer is shown and ranked all the same,
marked provisional and ranked after the established ones, as lichess marks ``?``."""

RATED = "rated"
"""Established: at least MIN_PAIRS pairs (in every game, on an overall board)."""
PROVISIONAL = "provisional"
"""Fitted on fewer than MIN_PAIRS pairs: shown with its interval, marked, and ranked
after the established rows of its group. A row with no rated pair at all (group 0) has
no estimate to show and no rank."""
INCOMPLETE = "incomplete"
"""Overall boards only: not rated in every game of the board (``arena.ratings.overall``)."""
EXCLUDED = "excluded"
"""Forfeited every match: left out of the fit, whose other ratings it would distort."""

RANK_RULE = 2
"""The ranking rule a stored board was made under: 1 ranked established rows only, 2
(``ranked``) ranks provisional rows too. A reader can refit boards stored under an older
rule, whose notes say what that rule did."""


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
    """RATED or PROVISIONAL (both ranked), or why the row is not ranked: INCOMPLETE,
    EXCLUDED, or PROVISIONAL with no rated pair (group 0)."""
    note: str = ""
    """For the reader, when there is something to say: why the row is not ranked or is
    provisional, that its group is not connected to the main one, that it won or lost
    every pair."""
    group: int = 1
    """Which connected part of the comparison graph the bot is in: 1 the largest, 0 for
    a bot not fitted at all; ratings in different groups cannot be compared."""
    bound: str = ""
    """"at least" for a bot that won every pair, "at most" for one that lost every pair:
    its estimate comes from the prior, so ``elo_bound``, the one-sided 95% bound, is
    shown instead."""
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
    (``arena.ratings.compare``). Only within a group; empty on a board an earlier build
    stored (``arena store migrate`` leaves it so: it cannot be known afterwards)."""
    min_pairs: int = MIN_PAIRS
    """The pairs that established a rating when this board was made."""
    rule: int = RANK_RULE
    """The ranking rule it was made under (``RANK_RULE``)."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Leaderboard:
        """A stored board, ranked afresh by today's rule, so that a board stored under an
        older one (which left provisional rows unranked) ranks as a fresh one does. One an
        earlier build stored without a key of today's is refused (``StaleRecord``):
        ``arena store migrate`` fills it in."""
        missing = [k for k in BOARD_KEYS if k not in data] or [
            k for row in data["rows"] for k in ROW_KEYS if k not in row
        ]
        if missing:
            raise stale(f"the {data.get('game', '')!r} leaderboard", f"no {missing[0]!r}")
        return cls(
            data["game"],
            ranked(Row(**row) for row in data["rows"]),
            data["draw_elo"],
            data["matches"],
            tuple(data["caveats"]),
            data["covariance"],
            data["min_pairs"],
            data["rule"],
        )


ROW_KEYS = tuple(f.name for f in fields(Row))
BOARD_KEYS = tuple(f.name for f in fields(Leaderboard))
"""What a stored row and board hold: every field."""


def is_ranked(row: Row) -> bool:
    """Ranked: fitted in a group, established or provisional."""
    return row.status in (RATED, PROVISIONAL) and row.group > 0


def ranked(rows: Iterable[Row]) -> tuple[Row, ...]:
    """The rule: group by group (largest first), the established rows by Elo, then the
    provisional ones by Elo, ranked from 1 in each group; then the rows that have no
    rank (0): no rated pair, incomplete, excluded. Provisional rows come after because
    with few pairs an estimate runs ahead of the truth (``MIN_PAIRS``)."""

    def key(r: Row) -> tuple[int, int, bool, float, int, str]:
        apart = 0 if is_ranked(r) else _UNRANKED.get(r.status, len(_UNRANKED))
        return (apart, r.group, r.status != RATED, -r.elo, -r.pairs, r.bot)

    out, rank, group = [], 0, -1
    for row in sorted(rows, key=key):
        if is_ranked(row):
            rank = rank + 1 if row.group == group else 1
            group = row.group
        out.append(replace(row, rank=rank if is_ranked(row) else 0))
    return tuple(out)


_UNRANKED = {RATED: 1, PROVISIONAL: 1, INCOMPLETE: 2, EXCLUDED: 3}
