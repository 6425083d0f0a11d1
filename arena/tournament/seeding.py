"""Seeding by rating: the arena's ratings order a knockout's entries before it starts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.ratings.board import PROVISIONAL, RATED


def by_rating(
    entries: Sequence[str], boards: Mapping[str, Mapping[str, Any]], games: Sequence[str]
) -> list[str]:
    """Entries best first by the arena's ratings: the game's board when the tournament
    plays one game, else the board of all games together. Unrated entries follow the
    rated ones, in the order given: a newcomer is seeded last, not guessed at. A
    provisional rating still seeds: it is the best guess there is."""
    board = boards.get(games[0] if len(games) == 1 else "", {})
    elo = {
        row["bot"]: row["elo"]
        for row in board.get("rows", [])
        if row.get("status", RATED) in (RATED, PROVISIONAL)  # others have no rating here
    }
    rated = sorted((e for e in entries if e in elo), key=lambda e: -elo[e])
    return rated + [e for e in entries if e not in elo]
