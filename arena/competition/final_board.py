"""A competition's final board: what the final's results give, frozen once.

The board is the final round robin's leaderboard over all its games
(``arena.ratings.leaderboard``: maximum-likelihood Elo of duplicate pairs, with 95%
intervals and the fit's covariance) read by final version: rank, author, version, rating
with its interval, the likelihood of superiority over the next rank
(``arena.ratings.compare``), rated outcomes and matches won. Two adjacent ranks whose
LOS is under the rules' ``final_los`` (``TIE_LOS`` by default) are marked tied: the
results do not separate them at that confidence. Versions without a rating (no rated
pair, or forfeited everything) are listed last with rank 0.

The same function that freezes the board refits it for ``arena competition verify``
(``arena.competition.final_verify``), from the results any reader can fetch: a board
that is a refit of those results matches to ``TOLERANCE_ELO``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING

from arena.competition.final import FinalVersion
from arena.ratings.board import Leaderboard, Row, is_ranked
from arena.ratings.compare import CannotCompare, compare
from arena.ratings.leaderboard import leaderboard
from arena.records import Fields, check_version, current, parse

if TYPE_CHECKING:  # the store keeps competitions; a board only reads a result's fields
    from arena.store.results import MatchResult

KIND = "final board"
VERSION = 1
TIE_LOS = 0.95
"""Adjacent ranks separated with less confidence than this are reported tied, unless the
rules state another (``arena.competition.spec.Rules.final_los``, whose default it is)."""
TOLERANCE_ELO = 0.5
"""How far a refit's ratings and intervals may differ from the frozen ones (the fit is
deterministic; this leaves room for float sums in another order)."""
TOLERANCE_LOS = 0.001


@dataclass(frozen=True)
class FinalRow:
    rank: int
    """1 for the best; 0 for a version without a rating, listed last."""
    author: str
    version: str
    chosen: str
    """How the version was picked (``arena.competition.final.CHOICES``)."""
    elo: float
    elo_ci95: float
    """Half-width of the rating's 95% interval."""
    los_next: float
    """The chance it is stronger than the next rank (0 for the last and unranked)."""
    tied_with_next: bool
    """``los_next`` is under ``TIE_LOS``: the results do not separate the two."""
    pairs: int
    """Rated outcomes (duplicate pairs), and how they went."""
    wins: int
    draws: int
    losses: int
    matches: int
    matches_won: int
    status: str
    """The leaderboard's status for the row (rated, provisional, excluded...)."""


@dataclass(frozen=True)
class FinalBoard:
    tournament_id: str
    """The final round robin ('' if fewer than two versions met: no final was played)."""
    frozen_at: float
    matches: int
    """Results the board was fitted from."""
    unplayed: int
    """Matches of the final's schedule without a result: its time ran out first."""
    results_digest: str
    """The digest of those results and their records (``arena.tournament.digest``)."""
    rows: tuple[FinalRow, ...]
    tie_los: float = TIE_LOS
    record_version: int = field(default=VERSION)

    def to_json(self) -> str:
        check_version(KIND, self.record_version, VERSION)
        data = asdict(self)
        _read(data)
        return json.dumps(data)

    @classmethod
    def from_json(cls, text: str | bytes) -> FinalBoard:
        found = parse(KIND, text)
        return _read(current(KIND, found, VERSION))


_ROW_TEXT = ("author", "version", "chosen", "status")
_ROW_NUMBERS = ("elo", "elo_ci95", "los_next")


def _read(data: Mapping[str, object]) -> FinalBoard:
    f = Fields(KIND, data)
    rows = data.get("rows")
    if not isinstance(rows, list | tuple):
        f.fail("rows", "a list of rows")
    read = []
    for raw in rows:
        r = Fields(f"{KIND} row", raw if isinstance(raw, Mapping) else {})
        values: dict[str, object] = {k: r.text(k) for k in _ROW_TEXT}
        values |= {k: r.number(k) for k in _ROW_NUMBERS}
        values["tied_with_next"] = r.flag("tied_with_next")
        for f_ in fields(FinalRow):
            if f_.name not in values:
                values[f_.name] = r.integer(f_.name, 0)
        read.append(FinalRow(**values))  # type: ignore[arg-type]
    return FinalBoard(
        tournament_id=f.text("tournament_id"),
        frozen_at=f.number("frozen_at", 0),
        matches=f.integer("matches", 0),
        unplayed=f.integer("unplayed", 0),
        results_digest=f.text("results_digest"),
        rows=tuple(read),
        tie_los=f.number("tie_los", 0),
        record_version=f.integer("record_version", VERSION, VERSION),
    )


def final_rows(
    results: Sequence[MatchResult], versions: Sequence[FinalVersion], tie_los: float = TIE_LOS
) -> tuple[FinalRow, ...]:
    """The board ``results`` give the final ``versions``."""
    board = leaderboard(results)
    won = _matches_won(results)
    by_version = {v.version: v for v in versions}
    ranked = [r for r in board.rows if is_ranked(r) and r.bot in by_version]
    rows = []
    for i, row in enumerate(ranked):
        below = ranked[i + 1] if i + 1 < len(ranked) else None
        los = _los(board, row, below)
        tied = below is not None and los < tie_los
        rows.append(_row(i + 1, by_version[row.bot], row, los, tied, won))
    on_board = {r.bot: r for r in board.rows}
    seen = {r.bot for r in ranked}
    for version in sorted(by_version.values(), key=lambda v: v.version):
        if version.version not in seen:
            rows.append(_unranked(version, on_board.get(version.version), won))
    return tuple(rows)


def _los(board: Leaderboard, row: Row, below: Row | None) -> float:
    if below is None:
        return 0.0
    try:
        return compare(board, row.bot, below.bot).los
    except CannotCompare:  # in different groups: nothing connects them
        return 0.5


def _row(
    rank: int, version: FinalVersion, row: Row, los: float, tied: bool, won: Mapping[str, int]
) -> FinalRow:
    return FinalRow(
        rank=rank,
        author=version.author,
        version=version.version,
        chosen=version.chosen,
        elo=row.elo,
        elo_ci95=row.elo_ci95,
        los_next=los,
        tied_with_next=tied,
        pairs=row.pairs,
        wins=row.wins,
        draws=row.draws,
        losses=row.losses,
        matches=row.matches,
        matches_won=won.get(row.bot, 0),
        status=row.status,
    )


def _unranked(version: FinalVersion, row: Row | None, won: Mapping[str, int]) -> FinalRow:
    return FinalRow(
        rank=0,
        author=version.author,
        version=version.version,
        chosen=version.chosen,
        elo=0.0,
        elo_ci95=0.0,
        los_next=0.0,
        tied_with_next=False,
        pairs=0 if row is None else row.pairs,
        wins=0 if row is None else row.wins,
        draws=0 if row is None else row.draws,
        losses=0 if row is None else row.losses,
        matches=0 if row is None else row.matches,
        matches_won=won.get(version.version, 0),
        status="unplayed" if row is None else row.status,
    )


def _matches_won(results: Iterable[MatchResult]) -> dict[str, int]:
    won: dict[str, int] = {}
    for result in results:
        if result.winner_team is not None and result.end != "no_contest":
            winner = result.entries[result.winner_team]
            won[winner] = won.get(winner, 0) + 1
    return won


def differences(frozen: Sequence[FinalRow], refit: Sequence[FinalRow]) -> str | None:
    """The first way ``frozen`` is not ``refit`` (beyond the tolerances), or None."""
    if len(frozen) != len(refit):
        return f"the frozen board has {len(frozen)} rows, the refit {len(refit)}"
    for was, now in zip(frozen, refit, strict=True):
        where = f"rank {was.rank} ({was.version})" if was.rank else f"unranked {was.version}"
        if (was.rank, was.version) != (now.rank, now.version):
            return f"{where}: the refit ranks {now.version} there" + (
                f" at {now.rank}" if now.rank != was.rank else ""
            )
        for name, tolerance in (
            ("elo", TOLERANCE_ELO),
            ("elo_ci95", TOLERANCE_ELO),
            ("los_next", TOLERANCE_LOS),
        ):
            a, b = getattr(was, name), getattr(now, name)
            if abs(a - b) > tolerance:
                return f"{where}: {name} is {a:.6g} frozen, {b:.6g} refitted"
        for name in ("tied_with_next", "pairs", "wins", "draws", "losses", "matches",
                     "matches_won"):  # fmt: skip
            a, b = getattr(was, name), getattr(now, name)
            if a != b:
                return f"{where}: {name} is {a} frozen, {b} refitted"
    return None
