"""Leaderboards fit each game once, and give what fitting every board afresh gave."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from arena.ratings import fit, fit_counts, pair_outcomes
from arena.ratings import leaderboard as boards
from arena.ratings.leaderboard import Leaderboard, Row, caveats, duplicate_result
from arena.tournament.fair_play import TRUSTED

GAMES = ["baloot", "bid-euchre", "seep"]


def stored(
    n: int, half: int, game: str, entries: list[str], margin: int, **extra: Any
) -> dict[str, Any]:
    return {
        "match_id": f"m{n}-{half}",
        "game": game,
        "pair_key": f"t-{game}-{n}",
        "entries": entries,
        "scores": [50 + max(margin, 0), 50 + max(-margin, 0)],
        "end": "completed",
        "forfeit_team": None,
        "paired": True,
        **extra,
    }


def history(rng: random.Random) -> list[dict[str, Any]]:
    """Pairs (some level), a forfeit, a no contest, a half waiting for its twin, a match
    rated alone, a trusted result, and a bot that plays a single game."""
    bots = ["ace", "bee", "cat", "dog", "eel"]
    results = []
    for n in range(300):
        game = GAMES[n % len(GAMES)]
        a, b = rng.sample(bots[:4], 2)
        first, total = rng.randint(-20, 20), rng.choice([-7, -3, 0, 0, 2, 5, 9])
        results += [stored(n, 0, game, [a, b], first), stored(n, 1, game, [b, a], first - total)]
    results += [
        stored(900, 0, "seep", ["eel", "ace"], 4),
        stored(900, 1, "seep", ["ace", "eel"], -9),
        stored(901, 0, "seep", ["eel", "bee"], 30),
        stored(901, 1, "seep", ["bee", "eel"], 1, forfeit_team=1),
        stored(902, 0, "baloot", ["ace", "cat"], 0, end="no_contest"),
        stored(903, 0, "bid-euchre", ["dog", "bee"], 12),
        stored(904, 0, "baloot", ["cat", "dog"], 3, paired=False, pair_key="m904-0"),
        stored(905, 0, "seep", ["ace", "bee"], -1, fair_play=TRUSTED),
        stored(905, 1, "seep", ["bee", "ace"], 2, fair_play=TRUSTED),
    ]
    rng.shuffle(results)
    return results


def refitted(results: Sequence[Mapping[str, Any]], game: str) -> Leaderboard:
    """The board as it was computed before: every board, and each all-games board's
    per-game column, fitted afresh from its own results."""
    chosen = [r for r in results if not game or r["game"] == game]
    players = sorted({e for r in chosen for e in r["entries"]})
    rows: list[Row] = []
    draw_elo = 0.0
    if len(players) >= 2:
        halves = [d for r in chosen if (d := duplicate_result(r)) is not None]
        table = fit(pair_outcomes(halves), players=players)
        played = Counter(e for r in chosen for e in r["entries"])
        rows = [
            Row(
                i + 1, r.player, r.elo, r.ci95, r.games, r.wins, r.draws, r.losses, played[r.player]
            )
            for i, r in enumerate(table.ratings)
        ]
        draw_elo = table.draw_elo
    if not game:
        per_game: dict[str, dict[str, float]] = {}
        for name in sorted({r["game"] for r in chosen}):
            for row in refitted(chosen, name).rows:
                per_game.setdefault(row.bot, {})[name] = row.elo
        rows = [Row(**{**row.__dict__, "game_elo": per_game.get(row.bot, {})}) for row in rows]
    return Leaderboard(game, tuple(rows), draw_elo, len(chosen), caveats(chosen))


def test_boards_are_what_fitting_every_board_afresh_gave() -> None:
    results = history(random.Random(1))
    expected = {game: refitted(results, game) for game in ["", *GAMES]}
    got = boards.ratings_by_game(results)
    assert list(got) == ["", *GAMES]
    assert got == expected  # exactly: the same floats
    assert [r.bot for r in got[""].rows if r.game_elo.keys() == {"seep"}] == ["eel"]
    assert got[""].caveats and got["seep"].caveats and not got["baloot"].caveats
    assert boards.leaderboard(results) == expected[""]
    assert boards.leaderboard(results, "seep") == expected["seep"]
    assert boards.ratings_by_game([]) == {"": refitted([], "")}


def test_a_pair_key_shared_by_two_games_is_paired_as_before() -> None:
    # Never made by a schedule (pair keys name their game), but were one shared, the
    # all-games board pairs its halves across the games, as fitting it afresh did.
    results = history(random.Random(2))
    results += [
        stored(950, 0, "seep", ["ace", "dog"], 10, pair_key="shared"),
        stored(950, 1, "baloot", ["dog", "ace"], 1, pair_key="shared"),
    ]
    assert boards.ratings_by_game(results) == {g: refitted(results, g) for g in ["", *GAMES]}


def test_each_game_is_fitted_once(monkeypatch: pytest.MonkeyPatch) -> None:
    fits: list[int] = []

    def counting(*args: Any, **kwargs: Any) -> Any:
        fits.append(1)
        return fit_counts(*args, **kwargs)

    monkeypatch.setattr(boards, "fit_counts", counting)
    boards.ratings_by_game(history(random.Random(3)))
    assert len(fits) == 1 + len(GAMES)
    fits.clear()
    boards.leaderboard(history(random.Random(3)))
    assert len(fits) == 1 + len(GAMES)
