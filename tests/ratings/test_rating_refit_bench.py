"""The rating-refit bench on a tiny budget: its tables are what it says they are."""

from __future__ import annotations

from arena.ratings.leaderboard import ratings_by_game
from bench.rating_refit import measure, synthetic_results


def test_the_bench_tables_have_draws_or_none_and_it_measures() -> None:
    with_draws, without = (ratings_by_game(synthetic_results(400, d))[""] for d in (True, False))
    assert with_draws.matches == without.matches == 400
    assert sum(r.draws for r in with_draws.rows) > 0
    assert sum(r.draws for r in without.rows) == 0
    assert without.draw_elo < 1e-3
    counted, refit, decode = measure(200, draws=False, rounds=1)
    assert counted > 0 and refit > 0 and decode > 0
