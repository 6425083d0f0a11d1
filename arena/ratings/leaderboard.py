"""Leaderboards from stored match results: overall and per game, with 95% intervals."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from arena.ratings.duplicate import DuplicateResult, pair_outcomes
from arena.ratings.elo import fit
from arena.tournament.fair_play import OPERATOR_SEED_CAVEAT, TRUSTED, TRUSTED_CAVEAT


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


@dataclass(frozen=True)
class Leaderboard:
    game: str
    rows: tuple[Row, ...]
    draw_elo: float
    matches: int
    caveats: tuple[str, ...] = ()
    """What a reader should know before trusting these ratings."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Leaderboard:
        rows = tuple(Row(**row) for row in data["rows"])
        caveats = tuple(data.get("caveats", ()))
        return cls(data["game"], rows, data["draw_elo"], data["matches"], caveats)


def caveats(results: Iterable[Mapping[str, Any]]) -> tuple[str, ...]:
    """How many of the results came from tournaments whose deals a remembering bot, or
    someone who knew the seed, could have known (stored results name both)."""
    trusted = operator = 0
    for result in results:
        trusted += result.get("fair_play") == TRUSTED
        operator += bool(result.get("operator_seed"))
    notes = []
    if trusted:
        notes.append(f"{trusted} of these results were {TRUSTED_CAVEAT}")
    if operator:
        notes.append(f"{operator} of these results were {OPERATOR_SEED_CAVEAT}")
    return tuple(notes)


def duplicate_result(result: Mapping[str, Any]) -> DuplicateResult | None:
    """A stored result as a half of a duplicate pair; None if it cannot be rated."""
    if result["end"] == "no_contest":
        return None
    a, b = result["entries"]
    forfeit = result.get("forfeit_team")
    return DuplicateResult(
        pair_key=result["pair_key"],
        a=a,
        b=b,
        margin=result["scores"][0] - result["scores"][1],
        forfeit_by=None if forfeit is None else result["entries"][forfeit],
        paired=result.get("paired", True),
    )


def _fit_rows(results: Sequence[Mapping[str, Any]]) -> tuple[list[Row], float]:
    halves = [d for r in results if (d := duplicate_result(r)) is not None]
    outcomes = pair_outcomes(halves)
    players = sorted({e for r in results for e in r["entries"]})
    if len(players) < 2:
        return [], 0.0
    played = Counter(e for r in results for e in r["entries"])
    table = fit(outcomes, players=players)
    rows = [
        Row(i + 1, r.player, r.elo, r.ci95, r.games, r.wins, r.draws, r.losses, played[r.player])
        for i, r in enumerate(table.ratings)
    ]
    return rows, table.draw_elo


def leaderboard(results: Iterable[Mapping[str, Any]], game: str = "") -> Leaderboard:
    """Ratings of every bot in ``results`` (only ``game``'s when given)."""
    chosen = [r for r in results if not game or r["game"] == game]
    rows, draw_elo = _fit_rows(chosen)
    if not game:
        per_game: dict[str, dict[str, float]] = {}
        for name in sorted({r["game"] for r in chosen}):
            game_rows, _ = _fit_rows([r for r in chosen if r["game"] == name])
            for row in game_rows:
                per_game.setdefault(row.bot, {})[name] = row.elo
        rows = [Row(**{**asdict(row), "game_elo": per_game.get(row.bot, {})}) for row in rows]
    return Leaderboard(
        game=game,
        rows=tuple(rows),
        draw_elo=draw_elo,
        matches=len(chosen),
        caveats=caveats(chosen),
    )


def ratings_by_game(results: Sequence[Mapping[str, Any]]) -> dict[str, Leaderboard]:
    """The leaderboard of all games together (key ``""``) and of each game."""
    games = sorted({r["game"] for r in results})
    return {game: leaderboard(results, game) for game in ["", *games]}
