"""Leaderboards fit each game once, and give what fitting every board afresh gave."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence
from typing import Any

import pytest

from arena.ratings import fit, fit_counts, pair_outcomes
from arena.ratings import leaderboard as boards
from arena.ratings.board import INCOMPLETE, PROVISIONAL, RATED
from arena.ratings.elo import Z95
from arena.ratings.leaderboard import Leaderboard, duplicate_result
from arena.store.results import MatchResult
from tests.support.rating_history import GAMES, history, stored


def direct(results: Sequence[MatchResult], game: str) -> dict[str, tuple[float, float]]:
    """One game's ratings fitted straight from its outcomes, its pairs read in five:
    (elo, ci95) by bot."""
    chosen = [r for r in results if r.game == game]
    halves = [d for r in chosen if (d := duplicate_result(r)) is not None]
    players = sorted({e for r in chosen for e in r.entries})
    table = fit(pair_outcomes(halves, five=True), players)
    return {r.player: (r.elo, r.ci95) for r in table.ratings}


def test_a_game_board_is_its_own_fit_and_overall_the_mean_of_the_games() -> None:
    results = history(random.Random(1))
    got = boards.ratings_by_game(results)
    assert list(got) == ["", *GAMES]
    for game in GAMES:
        fitted = direct(results, game)
        rows = {row.bot: row for row in got[game].rows}
        assert {bot: (row.elo, row.elo_ci95) for bot, row in rows.items()} == fitted
        assert got[game] == boards.leaderboard(results, game)
    overall = got[""]
    assert overall == boards.leaderboard(results)
    ranked = [row for row in overall.rows if row.status in (RATED, PROVISIONAL)]
    assert {row.bot for row in ranked} == {"ace", "bee", "cat", "dog"}
    centre = {g: sum(row.game_elo[g] for row in ranked) / len(ranked) for g in GAMES}
    for row in ranked:  # each game measured from the four's mean (eel also plays seep)
        assert row.game_elo.keys() == set(GAMES)
        mean = sum(row.game_elo[g] - centre[g] for g in GAMES) / len(GAMES)
        assert row.elo == pytest.approx(mean, abs=1e-9)
    for row in ranked:  # the games are independent fits: their variances add
        c = {g: got[g].covariance for g in GAMES}
        var = (
            sum(
                c[g][row.bot][row.bot]
                - 2 * sum(c[g][row.bot][o.bot] for o in ranked) / len(ranked)
                + sum(c[g][o.bot][p.bot] for o in ranked for p in ranked) / len(ranked) ** 2
                for g in GAMES
            )
            / len(GAMES) ** 2
        )
        assert row.elo_ci95 == pytest.approx(Z95 * math.sqrt(var))
    (eel,) = [row for row in overall.rows if row.bot == "eel"]
    seep_eel = next(row for row in got["seep"].rows if row.bot == "eel")
    assert seep_eel.status == PROVISIONAL and seep_eel.rank > 0  # 2 pairs: ranked all the same
    # Not in every game: unranked overall, with the rating it has where it played.
    assert (eel.status, eel.rank, eel.game_elo) == (INCOMPLETE, 0, {"seep": seep_eel.elo})
    assert eel.note == "played seep only (1 of 3 games): not ranked overall"
    assert overall.caveats and got["seep"].caveats and not got["baloot"].caveats
    assert boards.ratings_by_game([]) == {"": Leaderboard("", (), 0.0, 0, ())}


def test_each_game_is_fitted_once(monkeypatch: pytest.MonkeyPatch) -> None:
    fits: list[int] = []

    def counting(*args: Any, **kwargs: Any) -> Any:
        fits.append(1)
        return fit_counts(*args, **kwargs)

    monkeypatch.setattr(boards, "fit_counts", counting)
    boards.ratings_by_game(history(random.Random(3)))
    assert len(fits) == len(GAMES)  # and never a pooled fit over all of them
    fits.clear()
    boards.leaderboard(history(random.Random(3)))
    assert len(fits) == len(GAMES)


def test_stored_tallies_of_finished_tournaments_give_the_boards_their_results_give() -> None:
    """The arena's refit reads a finished tournament's tally (its pairings' counts)
    instead of its results. Split into tournaments by pair, some stored as tallies
    (through JSON) and the rest read raw, the boards are the same; so is a bot that
    forfeited every match, one in a tally and one raw, left out of both."""
    results = history(random.Random(5))
    results += [
        stored(950, 0, "seep", ["fox", "ace"], 0, forfeit_team=0),
        stored(950, 1, "seep", ["ace", "fox"], 0, forfeit_team=1),
        stored(952, 0, "seep", ["bee", "fox"], 0, forfeit_team=1),
        stored(952, 1, "seep", ["fox", "bee"], 0, forfeit_team=0),
    ]

    def tournament(r: MatchResult) -> int:  # a pair's halves share its number: m<n>-<half>
        return int(r.match_id[1:].split("-")[0]) % 4

    finished = [
        json.loads(json.dumps(boards.tallies(r for r in results if tournament(r) == t)))
        for t in (1, 2, 3)
    ]
    raw = [r for r in results if tournament(r) == 0]  # fox's pair 952 among them
    assert 0 < len(raw) < len(results)
    split = boards.ratings_by_game(raw, finished)
    assert split == boards.ratings_by_game(results)
    assert any(row.bot == "fox" and row.status == "excluded" for row in split["seep"].rows)
