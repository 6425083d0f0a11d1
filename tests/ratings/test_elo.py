"""Maximum-likelihood Elo: right on average, honest intervals, blind to result order."""

from __future__ import annotations

import itertools
import random

import pytest

from arena.ratings import DuplicateResult, Outcome, fit, pair_outcomes


def expected(x: float) -> float:
    return 1 / (1 + 10 ** (-x / 400))


def simulate(
    strengths: dict[str, float], games_per_pair: int, draw_elo: float, rng: random.Random
) -> list[Outcome]:
    outcomes = []
    for a, b in itertools.combinations(sorted(strengths), 2):
        delta = strengths[a] - strengths[b]
        p_win, p_loss = expected(delta - draw_elo), expected(-delta - draw_elo)
        for _ in range(games_per_pair):
            u = rng.random()
            outcomes.append(Outcome(a, b, 1.0 if u < p_win else 0.0 if u < p_win + p_loss else 0.5))
    return outcomes


def test_the_same_results_in_any_order_give_identical_ratings() -> None:
    outcomes = simulate({"a": 0, "b": 80, "c": -40}, 60, 50, random.Random(3))
    shuffled = outcomes[:]
    random.Random(4).shuffle(shuffled)
    flipped = [Outcome(o.b, o.a, 1 - o.score) for o in shuffled]
    assert fit(outcomes) == fit(shuffled) == fit(flipped)


def test_ratings_recover_known_strengths_and_the_draw_margin() -> None:
    strengths = {"a": 0.0, "b": 100.0, "c": 250.0, "d": -150.0}
    table = fit(simulate(strengths, 2000, 60, random.Random(5)))
    mean = sum(strengths.values()) / len(strengths)
    for rating in table.ratings:
        assert rating.elo == pytest.approx(strengths[rating.player] - mean, abs=2 * rating.ci95)
    assert [r.player for r in table.ratings] == ["c", "b", "a", "d"]
    assert table.draw_elo == pytest.approx(60, abs=10)
    assert sum(r.elo for r in table.ratings) == pytest.approx(0, abs=1e-6)


def test_95_percent_intervals_cover_the_true_differences_about_95_percent_of_the_time() -> None:
    strengths = {"a": 0.0, "b": 60.0, "c": 150.0, "d": -100.0}
    rng = random.Random(2026)
    covered = checks = 0
    for _ in range(150):
        table = fit(simulate(strengths, 80, 40, rng))
        elo = {r.player: r.elo for r in table.ratings}
        for a, b in itertools.combinations(sorted(strengths), 2):
            error = (elo[a] - elo[b]) - (strengths[a] - strengths[b])
            covered += abs(error) <= table.difference_ci95(a, b)
            checks += 1
    assert 0.92 <= covered / checks <= 0.98, covered / checks


def test_a_player_who_won_everything_gets_a_finite_rating() -> None:
    outcomes = [Outcome("champ", "x", 1.0)] * 30 + [Outcome("x", "y", 0.5)] * 10
    table = fit(outcomes)
    best = table.ratings[0]
    assert best.player == "champ"
    assert 200 < best.elo < 3000
    assert (best.games, best.wins, best.draws, best.losses) == (30, 30, 0, 0)


def test_players_without_a_single_outcome_yet_are_listed_even_and_uncertain() -> None:
    # A tournament's first results are halves of duplicate pairs: no outcome to fit yet.
    table = fit([], players=["a", "b", "c"])
    assert [(r.player, r.elo, r.games) for r in table.ratings] == [
        ("a", 0.0, 0),
        ("b", 0.0, 0),
        ("c", 0.0, 0),
    ]
    assert all(1000 < r.ci95 < 5000 for r in table.ratings)  # the prior's width, finite


def test_fewer_than_two_players_cannot_be_rated() -> None:
    with pytest.raises(ValueError, match="at least two players"):
        fit([], players=["alone"])


def test_a_duplicate_pair_is_decided_by_its_total_margin() -> None:
    results = [
        DuplicateResult("deal-1", "x", "y", margin=+30),
        DuplicateResult("deal-1", "y", "x", margin=+10),  # x lost the swapped match by 10
        DuplicateResult("deal-2", "x", "y", margin=-5),
        DuplicateResult("deal-2", "y", "x", margin=-5),  # level: a draw
        DuplicateResult("deal-3", "x", "y", margin=+50),
        DuplicateResult("deal-3", "y", "x", margin=+60),
        DuplicateResult("deal-4", "x", "y", margin=+9),  # its twin is not played yet
    ]
    assert pair_outcomes(results) == [
        Outcome("x", "y", 1.0),
        Outcome("x", "y", 0.5),
        Outcome("x", "y", 0.0),
    ]


def test_a_forfeit_loses_the_pair_whatever_the_margin() -> None:
    results = [
        DuplicateResult("deal-1", "x", "y", margin=+80),
        DuplicateResult("deal-1", "y", "x", margin=+1, forfeit_by="x"),
        DuplicateResult("deal-2", "x", "y", margin=0, forfeit_by="x"),
        DuplicateResult("deal-2", "y", "x", margin=0, forfeit_by="y"),
    ]
    assert pair_outcomes(results) == [Outcome("x", "y", 0.0), Outcome("x", "y", 0.5)]


def test_a_table_without_draws_converges_as_fast_as_one_with_draws() -> None:
    # No draw at all puts the draw margin's maximum on its clamp (d = 0); Newton used to
    # keep stepping past the clamp and ran all its iterations.
    strengths = {f"p{i}": 40.0 * i for i in range(10)}
    with_draws = fit(simulate(strengths, 30, 60, random.Random(7)))
    without = fit(simulate(strengths, 30, 0, random.Random(7)))
    assert with_draws.draw_elo > 20
    assert without.draw_elo < 1e-3
    assert all(r.draws == 0 for r in without.ratings)
    assert with_draws.iterations <= 10
    assert without.iterations <= with_draws.iterations + 3


@pytest.mark.parametrize("draw_elo", [50, 0])
def test_the_fit_stops_at_a_maximum_with_or_without_draws(
    draw_elo: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nudging any rating either way from the fit's answer lowers the likelihood: holding
    # the draw margin on its clamp did not cost the ratings their maximum.
    from arena.ratings import elo

    caught: list[tuple[elo._Problem, elo.Vector]] = []
    newton = elo._newton

    def spy(problem: elo._Problem, theta: elo.Vector) -> tuple[elo.Vector, int]:
        answer = newton(problem, theta)
        caught.append((problem, answer[0]))
        return answer

    monkeypatch.setattr(elo, "_newton", spy)
    fit(simulate({"a": 0.0, "b": 90.0, "c": -120.0, "d": 30.0}, 40, draw_elo, random.Random(11)))
    problem, theta = caught[0]
    best = problem.value(theta)
    for i in range(len(theta) - 1):
        for nudge in (-0.01, 0.01):
            moved = theta.copy()
            moved[i] += nudge
            assert problem.value(moved) < best


def test_the_analytic_hessian_is_the_derivative_of_the_gradient() -> None:
    import numpy as np

    from arena.ratings import elo

    rng = np.random.default_rng(3)
    n = 5
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    counts = rng.integers(0, 9, size=(len(pairs), 3)).astype(float)
    problem = elo._Problem(
        n,
        np.array([p[0] for p in pairs], dtype=float),
        np.array([p[1] for p in pairs], dtype=float),
        counts[:, 0],
        counts[:, 1],
        counts[:, 2],
    )
    for log_d in (np.log(40.0), 1.0):
        theta = np.append(rng.normal(0, 150, n - 1), log_d)
        _, hessian = problem.derivatives(theta)
        h = 1e-4
        differences = np.array(
            [
                (problem.derivatives(theta + h * e)[0] - problem.derivatives(theta - h * e)[0])
                / (2 * h)
                for e in np.eye(n)
            ]
        )
        assert np.allclose(hessian, differences, rtol=1e-5, atol=1e-9)
        assert np.array_equal(hessian, hessian.T)
