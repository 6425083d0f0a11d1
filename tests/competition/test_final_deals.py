"""The final's number of deals (``arena.competition.final_deals``): the model against the
rating fit, the choice against simulated finals (``bench.final_deals``), the budget's
clamps, versions without a ladder rating, and input it refuses."""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import replace

import pytest

from arena.competition.final import final_deals
from arena.competition.final_deals import (
    POWER,
    choose_deals,
    difference_variances,
    peak_gap,
    sweep_floor,
    unit_information,
)
from arena.competition.spec import FINAL_LOS, CompetitionSpec, InvalidCompetition, check
from arena.ratings.board import PROVISIONAL, Leaderboard, Row, ranked
from arena.ratings.elo import K, fit_counts
from arena.records import RecordError
from arena.tournament.spec import MAX_MATCHES, Entry, HostedPackage
from arena.v1 import arena_pb2
from bench.final_deals import FIELDS, Field, board_of, chances, measure, name
from tests.competition.helpers import spec

VERSIONS = [name(i) for i in range(4)]


def test_one_pairs_information_is_the_binomials_without_draws_and_more_with_them() -> None:
    assert unit_information(0.0, 0.0) == pytest.approx(K * K / 4)
    assert unit_information(0.0, 40.0) > unit_information(0.0, 0.0)  # a draw says something
    assert (
        unit_information(300.0, 40.0) < unit_information(100.0, 40.0) < unit_information(0.0, 40.0)
    )  # a foregone outcome says little
    assert unit_information(1e6, 40.0) == 0.0  # no overflow far out


def test_the_predicted_variance_is_the_fits_own_at_the_expected_outcomes() -> None:
    """The fit's covariance of a round robin whose counts are the model's expectations
    (the observed information at the expectation) matches the Fisher information's."""
    elo, deals = (150.0, 0.0, -60.0, -200.0), 1000
    counts = {}
    for i, j in itertools.combinations(range(4), 2):
        win, draw, loss = chances(elo[i] - elo[j])
        counts[name(i), name(j)] = (deals * win, deals * draw, deals * loss)
    table = fit_counts(counts)  # type: ignore[arg-type]
    c = table.covariance
    predicted = difference_variances(elo, 40.0)
    for i in range(3):
        a, b = name(i), name(i + 1)
        fitted = c[a, a] + c[b, b] - 2 * c[a, b]
        assert predicted[i] / deals == pytest.approx(fitted, rel=0.03)


def test_the_chosen_deals_separate_adjacent_ranks_in_simulated_finals() -> None:
    """Four versions 150 Elo apart: the choice is the fewest deals for LOS 0.95 in 80%
    of finals; in 50 simulated finals each adjacent pair's median LOS is past it, and it
    is reached about as often as predicted."""
    field = FIELDS[0]
    m = measure(field, trials=50, seed=7)
    assert m.choice.deals < field.budget and not m.choice.predicted_ties
    assert all(g.chance >= POWER for g in m.choice.gaps)
    assert min(g.chance for g in m.choice.gaps) < 0.87  # the fewest: one deal fewer falls short
    fewer = choose_deals(board_of(field.elo), VERSIONS, 1, m.choice.deals - 1, 0.95)
    assert fewer.predicted_ties
    assert all(median >= 0.95 for median in m.median_los)
    for gap, separated in zip(m.choice.gaps, m.separated, strict=True):
        assert separated >= 0.6 and abs(separated - gap.chance) < 0.2


def test_a_tiny_budget_is_predicted_to_leave_ties_and_does() -> None:
    field = Field("budget 2", (200.0, 100.0, 0.0, -100.0), 1, 2)
    m = measure(field, trials=50, seed=8)
    assert m.choice.deals == 2
    assert len(m.choice.predicted_ties) == 3
    assert m.choice.reason.startswith("the budget, 2 deals: predicted short of LOS 0.95 in 80%")
    assert "v0@1 over v1@1 (+100 Elo on the open ladder, needs " in m.choice.reason
    assert all(g.chance < 0.3 for g in m.choice.gaps)
    assert all(separated < 0.5 for separated in m.separated)  # ties, as predicted
    assert all(median < 0.95 for median in m.median_los)


def test_the_choice_is_the_largest_need_clamped_to_the_budget() -> None:
    board = board_of((225.0, 75.0, -75.0, -225.0))
    roomy = choose_deals(board, VERSIONS, 1, 1000, 0.95)
    needs = [g.needs for g in roomy.gaps]
    assert roomy.deals == max(n for n in needs if n is not None) == 22
    assert roomy.reason == (
        "22 deals: what v0@1 over v1@1 (+150 Elo on the open ladder) needs for LOS 0.95 in "
        "80% of finals (the budget: 1,000 deals)"
    )
    assert choose_deals(board, VERSIONS, 1, 10, 0.95).deals == 10  # the ceiling
    assert choose_deals(board, VERSIONS, 2, 1000, 0.95).deals == 11  # the games average
    stricter = choose_deals(board, VERSIONS, 1, 1000, 0.99).deals
    looser = choose_deals(board, VERSIONS, 1, 1000, 0.8).deals
    assert looser < 22 < stricter


def test_versions_far_apart_play_what_a_clean_sweep_needs() -> None:
    """Past about 430 Elo a wider gap is no easier to measure (every pair is won), and
    the board's LOS of a clean sweep grows with its pairs alone: the sweep's floor."""
    assert 400 < peak_gap(40.0) < 450
    assert sweep_floor(2, 1, 0.95) == 17 and sweep_floor(4, 1, 0.95) == 8
    assert sweep_floor(2, 2, 0.95) == 5  # two games, each fitted apart, then averaged
    far = choose_deals(board_of((1000.0, -1000.0)), VERSIONS[:2], 1, 1000, 0.95)
    assert far.deals == 17 and [g.needs for g in far.gaps] == [17]
    m = measure(Field("far", (1000.0, 0.0, -1000.0), 1, 50), trials=20, seed=9)
    assert m.choice.deals == 11 and m.separated == (1.0, 1.0)  # sweeps, all separated
    assert min(m.median_los) >= 0.95


def test_equal_ratings_cannot_be_separated_the_budget_says_so() -> None:
    choice = choose_deals(board_of((100.0, 0.0, 0.0)), VERSIONS[:3], 1, 60, 0.95)
    assert choice.deals == 60 and choice.gaps[0].needs == 48
    assert [(g.above, g.below, g.needs) for g in choice.predicted_ties] == [("v1@1", "v2@1", None)]
    assert choice.reason.endswith("v1@1 over v2@1 (+0 Elo on the open ladder, no gap)")


def test_versions_without_a_ladder_rating_get_the_budget() -> None:
    board = board_of((100.0, 0.0))
    assert choose_deals(None, VERSIONS[:2], 1, 30, 0.95).deals == 30
    missing = choose_deals(board, [*VERSIONS[:2], "new@1"], 1, 30, 0.95)
    assert (missing.deals, missing.gaps) == (30, ())
    assert missing.reason == "the budget, 30 deals: new@1 has no rating on the open ladder's board"
    unranked = Row(0, "late@1", 0.0, 0.0, 0, 0, 0, 0, 2, status=PROVISIONAL, group=0)
    apart = Row(0, "far@1", 50.0, 90.0, 5, 3, 0, 2, 5, status=PROVISIONAL, group=2)
    other = Leaderboard("", ranked([*board.rows, unranked, apart]), 40.0, 0)
    found = choose_deals(other, [*VERSIONS[:2], "late@1", "far@1"], 1, 30, 0.95)
    assert found.reason.startswith("the budget, 30 deals: far@1, late@1 have no rating")
    provisional = Leaderboard(
        "", ranked([replace(r, status=PROVISIONAL) for r in board.rows]), 40.0, 0
    )
    assert choose_deals(provisional, VERSIONS[:2], 1, 1000, 0.95).deals < 1000  # rated
    assert choose_deals(board, VERSIONS[:1], 1, 30, 0.95).deals == 30


@pytest.mark.parametrize(
    ("most", "games", "los", "power", "words"),
    [
        (0, 1, 0.95, POWER, "at least 1"),
        (10, 0, 0.95, POWER, "at least 1"),
        (10, 1, 0.5, POWER, "los must be above 0.5"),
        (10, 1, 1.0, POWER, "los must be above 0.5"),
        (10, 1, math.nan, POWER, "los must be above 0.5"),
        (10, 1, 0.95, 0.4, "power must be above 0.5"),
    ],
)
def test_bad_input_is_refused(most: int, games: int, los: float, power: float, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        choose_deals(board_of((1.0, 0.0)), VERSIONS[:2], games, most, los, power)


def _competition(**rules: float) -> CompetitionSpec:
    return check(
        spec(
            "sized",
            games=[arena_pb2.CompetitionGame(game="bid-euchre")],
            rules=arena_pb2.CompetitionRules(**rules),  # type: ignore[arg-type]
        ),
        time.time(),
    )


def test_the_rules_target_los_is_checked_and_stored() -> None:
    assert _competition().rules.final_los == FINAL_LOS == 0.95
    stored = _competition(final_los=0.9)
    assert stored.rules.final_los == 0.9
    assert CompetitionSpec.from_json(stored.to_json()) == stored
    for bad in (0.5, 1.0, -0.2, 1.5, math.nan):
        with pytest.raises(InvalidCompetition, match=r"final_los must be above 0\.5 and below 1"):
            _competition(final_los=bad)
    data = json_of(stored)
    del data["rules"]["final_los"]  # stored before the rule existed: the default
    assert CompetitionSpec.from_json(data).rules.final_los == 0.95
    data["rules"]["final_los"] = 1.0
    with pytest.raises(RecordError, match="final_los"):
        CompetitionSpec.from_json(data)


def json_of(competition: CompetitionSpec) -> dict[str, dict[str, object]]:
    import json

    found: dict[str, dict[str, object]] = json.loads(competition.to_json())
    return found


def test_the_budget_is_final_deals_within_the_tournament_limit() -> None:
    def entry(label: str) -> Entry:
        hosted = HostedPackage("a" * 64, "python3.11", "x")
        return Entry(label, ("bid-euchre",), hosted=hosted, author=label.partition("@")[0])

    few = [entry(v) for v in VERSIONS]
    assert final_deals(_competition(final_deals=7), few, None).deals == 7
    many = [entry(f"a{i}@1") for i in range(30)]
    capped = final_deals(_competition(final_deals=1000), many, None)
    assert capped.deals == MAX_MATCHES // (435 * 2)
    assert capped.reason.startswith(f"the budget, {MAX_MATCHES // (435 * 2)} deals: ")
