"""Rating history: what each bot's rating was on every board when the arena refitted.

Pure: boards in, points out, and points to and from compact JSON. Where they are kept
is ``arena.store.history``; when they are taken, ``workers.scheduler``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.ratings.leaderboard import Leaderboard


@dataclass(frozen=True)
class Point:
    """One bot on one board at one refit."""

    time: float
    """Seconds since the epoch when the refit read its results: the ratings are as of
    then (two refits that overlap are ordered by what they saw, not by who wrote last)."""
    event: str
    """What caused the refit: ``tournament T finished``, ``ladder L at 400 results``."""
    game: str
    """The board: a game, or ``""`` for all games together."""
    elo: float
    elo_ci95: float
    pairs: int
    status: str
    bound: str = ""
    elo_bound: float = 0.0
    version: str = field(default="", compare=False)
    """Which version of the bot the point rates, in a history joined across versions
    (``arena.ratings.versions.across_versions``); never stored: a point is kept under
    its version's own name."""

    def to_json(self) -> dict[str, Any]:
        """Short keys, and the bound only when there is one: a ladder writes thousands."""
        data: dict[str, Any] = {
            "t": round(self.time, 3),
            "e": self.event,
            "g": self.game,
            "elo": round(self.elo, 2),
            "ci": round(self.elo_ci95, 2),
            "p": self.pairs,
            "s": self.status,
        }
        if self.bound:
            data["b"] = self.bound
            data["eb"] = round(self.elo_bound, 2)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Point:
        return cls(
            time=float(data["t"]),
            event=str(data["e"]),
            game=str(data["g"]),
            elo=float(data["elo"]),
            elo_ci95=float(data["ci"]),
            pairs=int(data["p"]),
            status=str(data["s"]),
            bound=str(data.get("b", "")),
            elo_bound=float(data.get("eb", 0.0)),
        )


def history_points(
    boards: Mapping[str, Leaderboard], time: float, event: str
) -> dict[str, list[Point]]:
    """Every row of every board as a point, by bot: the overall board's first, then the
    games' in name order (the order a reader sees them)."""
    points: dict[str, list[Point]] = {}
    for game in sorted(boards):
        for row in boards[game].rows:
            points.setdefault(row.bot, []).append(
                Point(
                    time=time,
                    event=event,
                    game=game,
                    elo=row.elo,
                    elo_ci95=row.elo_ci95,
                    pairs=row.pairs,
                    status=row.status,
                    bound=row.bound,
                    elo_bound=row.elo_bound,
                )
            )
    return points


def series(points: list[Point], game: str | None = None) -> dict[str, list[Point]]:
    """Points by board, each in time order (stable: one refit's points keep their
    order); only ``game``'s board when given. Overall (``""``) first, then by name."""
    by_game: dict[str, list[Point]] = {} if game is None else {game: []}
    for point in sorted(points, key=lambda p: p.time):
        if game is None or point.game == game:
            by_game.setdefault(point.game, []).append(point)
    return {g: by_game[g] for g in sorted(by_game)}
