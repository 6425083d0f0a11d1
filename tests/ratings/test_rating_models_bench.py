"""The rating-models bench on a small budget: both models find the truth's order, and
OpenSkill's one pass is close behind the Elo's exact fit (the full run's finding)."""

from __future__ import annotations

import pytest

from bench.rating_models import draw_margin, kendall, measure, outcome_chances, spearman


def test_the_helpers() -> None:
    assert spearman([1, 2, 3, 4], [10, 30, 20, 40]) == pytest.approx(0.8)
    assert kendall([1, 2, 3, 4], [10, 30, 20, 40]) == pytest.approx(4 / 6)
    win, draw = outcome_chances(0.0, draw_margin(0.1))
    assert draw == pytest.approx(0.1) and win == pytest.approx(0.45)


def test_both_models_rank_close_to_the_truth_and_the_elo_not_worse() -> None:
    s = measure(bots=8, per_pairing=4, trials=60, seed=3)
    assert 0.05 < s.draws < 0.12
    assert s.elo_rho > 0.65 and s.skill_rho > 0.6
    assert s.skill_rho <= s.elo_rho + 0.02  # the truth is the Elo's model
    assert s.skill_rho >= s.elo_rho - 0.08  # ...but OpenSkill is not far behind
    assert s.elo_tau < s.elo_rho and s.skill_tau < s.skill_rho
    assert 0 < s.order_shift < 3
    assert measure(bots=8, per_pairing=4, trials=60, seed=3) == s
