"""Pairwise answers from the full covariance: the difference's interval covers the
truth 95% of the time, and the LOS is BayesElo's normal-approximation number."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from arena.ratings.compare import CannotCompare, compare, los, los_matrix
from arena.ratings.leaderboard import Leaderboard, leaderboard
from arena.store.results import MatchResult
from tests.records import result


def expected(x: float) -> float:
    return 1 / (1 + 10 ** (-x / 400))


def results(strengths: dict[str, float], units: int, rng: random.Random) -> list[MatchResult]:
    """Stored results of single-match units (open play) with BayesElo's model, draws
    within a 40-Elo margin."""
    out = []
    for n, (a, b) in enumerate(itertools.product(sorted(strengths), repeat=2)):
        if a >= b:
            continue
        delta = strengths[a] - strengths[b]
        for k in range(units):
            u = rng.random()
            p_win, p_loss = expected(delta - 40), expected(-delta - 40)
            margin = 1 if u < p_win else -1 if u < p_win + p_loss else 0
            match_id = f"m{n}-{k}"
            out.append(
                result(
                    match_id=match_id,
                    pair_key=match_id,
                    game="seep",
                    entries=[a, b],
                    scores=[max(margin, 0), max(-margin, 0)],
                    end="completed",
                    paired=False,
                )
            )
    return out


def test_los_is_the_normal_chance_that_the_difference_is_positive() -> None:
    assert los(40, 20) == pytest.approx(0.5 * (1 + math.erf(2 / math.sqrt(2))))
    assert los(40, 20) == pytest.approx(0.97725, abs=1e-5)
    assert los(0, 30) == 0.5 and los(-40, 20) == pytest.approx(1 - los(40, 20))
    assert (los(1, 0), los(-1, 0), los(0, 0)) == (1.0, 0.0, 0.5)


def test_the_difference_interval_covers_the_truth_93_to_97_percent_of_the_time() -> None:
    strengths = {"a": 0.0, "b": 60.0, "c": 150.0, "d": -100.0}
    rng = random.Random(1)
    covered = checks = 0
    for _ in range(250):
        board = leaderboard(results(strengths, 40, rng))
        for a, b in itertools.combinations(sorted(strengths), 2):
            found = compare(board, a, b)
            truth = strengths[a] - strengths[b]
            covered += abs(found.difference - truth) <= found.ci95
            checks += 1
            assert compare(board, b, a).los == pytest.approx(1 - found.los)
    assert 0.93 <= covered / checks <= 0.97, covered / checks


def test_the_los_matrix_and_the_refusals() -> None:
    board = leaderboard(results({"a": 0.0, "b": 200.0, "c": -200.0}, 30, random.Random(2)))
    matrix = dict(los_matrix(board))
    bots = [row.bot for row in board.rows]
    assert bots == ["b", "a", "c"] and list(matrix) == bots
    assert matrix["b"][0] == 0.5 and matrix["b"][1] == pytest.approx(compare(board, "b", "a").los)
    assert matrix["b"][1] > 0.99 and matrix["c"][0] < 0.01
    assert dict(los_matrix(board, limit=2)).keys() == {"b", "a"}
    with pytest.raises(CannotCompare, match="no rating for ghost on this board; ranked: a, b, c"):
        compare(board, "a", "ghost")
    with pytest.raises(CannotCompare, match="compare two different bots"):
        compare(board, "a", "a")
    stored = Leaderboard.from_json(board.to_json())  # a finished tournament's, read back
    assert compare(stored, "a", "c") == compare(board, "a", "c")
    old = Leaderboard.from_json({**board.to_json(), "covariance": {}})
    with pytest.raises(CannotCompare, match="stored without its covariance"):
        compare(old, "a", "c")
