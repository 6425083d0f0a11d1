"""The collusion report: real Bid Euchre played honestly is not flagged, the same
tournament with one entry throwing its matches against an ally is, naming the pair;
and what it says of awkward tables (draws, few outcomes, perfect records, a pair
nothing else connects)."""

from __future__ import annotations

import functools
import itertools
import math
import random

import pytest

from arena.bots.examples import RandomBot
from arena.bots.local import play_in_process
from arena.bots.sdk import Bot
from arena.games.bid_euchre.bot import BidEuchreBasicBot
from arena.ratings.collusion import (
    FLAG_Z,
    MIN_OUTCOMES,
    PairReport,
    collusion_report,
    collusion_report_counts,
    collusion_reports,
)
from arena.ratings.elo import Counts, K, Outcome, count_outcomes, fit_counts
from arena.store.results import MatchResult
from bench.rating_units import NoisyBot
from tests.records import result

GAME = "bid-euchre"
OPTIONS = {"max_hands": 2}
"""Two hands a match: real play at a few milliseconds a match."""
DEALS = 12
"""Duplicate pairs a pairing: past MIN_OUTCOMES, with room for the thrown pair to show."""
THROWER, ALLY = "t", "a"
NOISE = {"t": 0.0, "b": 0.1, "a": 0.3, "c": 0.5, "d": 0.7}
"""Each entry plays bid-euchre-basic's move, or with this chance a random one: a field
of spread-out strengths (``t`` the strongest, ``a`` in the middle)."""


def _bots() -> dict[str, Bot]:
    basic = BidEuchreBasicBot()
    return {
        name: basic if eps == 0 else NoisyBot(basic, eps, seed=i)
        for i, (name, eps) in enumerate(sorted(NOISE.items()))
    }


def _duplicate_pair(x: str, y: str, bot_x: Bot, bot_y: Bot, deal: int) -> list[MatchResult]:
    """Deal ``deal`` played twice, the entries swapping seats, stored as the arena
    stores a duplicate pair."""
    halves = []
    for first, (team0, team1) in enumerate(((x, y), (y, x))):
        bots = [bot_x, bot_y] if team0 == x else [bot_y, bot_x]
        match_id = f"{x}-{y}-{deal}-{first}"
        scores = play_in_process(GAME, bots, deal, OPTIONS, match_id=match_id).scores()
        halves.append(
            result(
                match_id=match_id,
                pair_key=f"{x}-{y}-{deal}",
                game=GAME,
                deal=deal,
                entries=[team0, team1],
                scores=list(scores),
                winner_team=None if scores[0] == scores[1] else int(scores[1] > scores[0]),
            )
        )
    return halves


@functools.cache
def _honest_round_robin() -> tuple[MatchResult, ...]:
    bots = _bots()
    return tuple(
        half
        for x, y in itertools.combinations(sorted(bots), 2)
        for deal in range(DEALS)
        for half in _duplicate_pair(x, y, bots[x], bots[y], deal)
    )


def _thrown_round_robin() -> list[MatchResult]:
    """The same tournament, but the thrower plays at random in every match against its
    ally (and as before against everyone else)."""
    pair = tuple(sorted((THROWER, ALLY)))
    kept = [r for r in _honest_round_robin() if tuple(sorted(r.entries)) != pair]
    bots = _bots()
    bots[THROWER] = RandomBot(seed=7)
    x, y = pair
    thrown = [h for d in range(DEALS) for h in _duplicate_pair(x, y, bots[x], bots[y], d)]
    return kept + thrown


def _flagged(reports: list[PairReport]) -> list[tuple[str, str]]:
    return [(r.a, r.b) for r in reports if r.flagged]


def test_honest_bid_euchre_flags_no_pair() -> None:
    reports = collusion_reports(_honest_round_robin())[GAME]
    assert len(reports) == math.comb(len(NOISE), 2)
    assert all(r.outcomes == DEALS for r in reports), "a duplicate pair is one outcome"
    assert _flagged(reports) == []
    assert max(abs(r.z or 0.0) for r in reports) < FLAG_Z - 1, reports[0]


def test_an_entry_throwing_its_matches_against_its_ally_is_flagged_by_name() -> None:
    reports = collusion_reports(_thrown_round_robin())[GAME]
    assert _flagged(reports) == [tuple(sorted((THROWER, ALLY)))]
    top = reports[0]
    assert (top.below, top.above) == (THROWER, ALLY)
    assert top.expected is not None and top.z is not None
    thrower_score = top.score if top.a == THROWER else top.outcomes - top.score
    thrower_expected = top.expected if top.a == THROWER else top.outcomes - top.expected
    assert thrower_score < thrower_expected - top.outcomes / 2


def _simulate(
    strengths: dict[str, float], per_pairing: int, draw_elo: float, rng: random.Random
) -> Counts:
    outcomes = []
    for a, b in itertools.combinations(sorted(strengths), 2):
        delta = strengths[a] - strengths[b]
        p_win = 1 / (1 + 10 ** (-(delta - draw_elo) / 400))
        p_loss = 1 / (1 + 10 ** (-(-delta - draw_elo) / 400))
        for _ in range(per_pairing):
            u = rng.random()
            outcomes.append(Outcome(a, b, 1.0 if u < p_win else 0.0 if u < p_win + p_loss else 0.5))
    return count_outcomes(outcomes)


def test_honest_simulated_round_robins_rarely_flag_a_pair() -> None:
    """The model's own honest tournaments, 8 entries x 8 pairs: the bench measures about
    1% with a flag. A z taken as (score - expected) / sd flagged 17%: the heavy tails of
    few outcomes and of a stretched rating (``bench.collusion_calibration``)."""
    rng = random.Random(11)
    flagged = 0
    for _ in range(12):
        strengths = {f"e{i}": rng.gauss(0, 200) for i in range(8)}
        flagged += bool(_flagged(collusion_report_counts(_simulate(strengths, 8, 40, rng))))
    assert flagged <= 1


def test_the_prediction_is_the_fit_formula_from_ratings_fitted_without_the_pair() -> None:
    rng = random.Random(3)
    counts = _simulate({"a": 150, "b": 0, "c": -100, "d": 50}, 10, 50, rng)
    counts["a", "b"] = (0, 1, 9)  # a, the stronger, loses to b
    report = {(r.a, r.b): r for r in collusion_report_counts(counts)}["a", "b"]
    rest = fit_counts({p: r for p, r in counts.items() if p != ("a", "b")})
    full = fit_counts(counts)

    def formula(table_elo: dict[str, float], draw_elo: float) -> float:
        delta = table_elo["a"] - table_elo["b"]
        p_win = 1 / (1 + math.exp(-K * (delta - draw_elo)))
        p_loss = 1 / (1 + math.exp(-K * (-delta - draw_elo)))
        return 10 * (p_win + 0.5 * (1 - p_win - p_loss))

    rest_elo = {r.player: r.elo for r in rest.ratings}
    full_elo = {r.player: r.elo for r in full.ratings}
    assert report.expected is not None
    assert report.expected == pytest.approx(formula(rest_elo, rest.draw_elo), rel=1e-9)
    # Its own outcomes would have pulled the prediction towards them.
    assert formula(full_elo, full.draw_elo) < report.expected - 1
    assert report.score == 0.5 and report.z is not None and report.z < 0
    assert report.sd is not None and report.sd > 0


def test_draws_count_half() -> None:
    rng = random.Random(5)
    counts = _simulate({"a": 0, "b": 0, "c": 120, "d": -120}, 12, 60, rng)
    outcomes = [
        Outcome(a, b, score)
        for (a, b), (w, d, lo) in counts.items()
        if (a, b) != ("a", "b")
        for score in [1.0] * w + [0.5] * d + [0.0] * lo
    ]
    outcomes += [Outcome("b", "a", 0.5)] * 12  # equals who drew every time: as predicted
    reports = {(r.a, r.b): r for r in collusion_report(outcomes)}
    drawn = reports["a", "b"]
    assert (drawn.wins, drawn.draws, drawn.losses, drawn.score) == (0, 12, 0, 6.0)
    assert drawn.z is not None and abs(drawn.z) < 1 and not drawn.flagged
    for r in reports.values():
        assert r.score == r.wins + 0.5 * r.draws


def test_a_pair_under_the_minimum_count_is_reported_but_not_flagged() -> None:
    rng = random.Random(8)
    counts = _simulate({"top": 600, "x": 100, "y": -100, "low": -600}, 12, 40, rng)
    few = 3
    assert few < MIN_OUTCOMES
    counts["low", "top"] = (few, 0, 0)  # the favourite lost all three
    (report,) = [r for r in collusion_report_counts(counts) if (r.a, r.b) == ("low", "top")]
    assert report.z is not None and report.z >= FLAG_Z
    assert not report.flagged
    (allowed,) = [
        r for r in collusion_report_counts(counts, min_outcomes=few) if (r.a, r.b) == ("low", "top")
    ]
    assert allowed.flagged


def test_perfect_records_stay_finite_and_unflagged() -> None:
    rng = random.Random(2)
    counts = _simulate({"a": 900, "b": 0, "c": -50, "d": -100}, 8, 40, rng)
    counts.update({("a", x): (8, 0, 0) for x in "bcd"})  # a won everything
    reports = collusion_report_counts(counts)
    assert all(r.z is not None and math.isfinite(r.z) for r in reports)
    assert _flagged(reports) == []


def test_a_pair_nothing_else_connects_has_no_prediction() -> None:
    counts = {("a", "b"): (20, 0, 0), ("b", "c"): (5, 0, 5)}
    reports = {(r.a, r.b): r for r in collusion_report_counts(counts)}
    for pair in (("a", "b"), ("b", "c")):  # removing either pair leaves a or c alone
        r = reports[pair]
        assert (r.expected, r.sd, r.z, r.flagged) == (None, None, None, False)


def test_flagged_pairs_are_left_out_of_the_other_predictions() -> None:
    """The thrown pair inflates the ally: predicted from it, the ally's honest losses
    to b and c look like b and c cheating too, and t's like t slumping."""
    counts = {
        ("a", "b"): (2, 2, 16),
        ("a", "c"): (3, 2, 15),
        ("a", "t"): (20, 0, 0),  # t, the strongest, lost everything to a
        ("b", "c"): (9, 2, 9),
        ("b", "t"): (3, 2, 15),
        ("c", "t"): (3, 2, 15),
    }
    alone = collusion_report_counts(counts, flag_z=math.inf)  # each pair left out alone
    assert len([r for r in alone if abs(r.z or 0.0) >= FLAG_Z]) > 1
    reports = collusion_report_counts(counts)
    assert _flagged(reports) == [("a", "t")]
    assert (reports[0].below, reports[0].above) == ("t", "a")


def test_stored_results_are_rated_as_the_leaderboard_rates_them() -> None:
    """Both halves of a duplicate pair make one outcome; a lone half waits for its
    twin; a no-contest is not rated; each game is reported on its own."""
    results = []
    for n, (x, y, margins) in enumerate(
        [("a", "b", (3, 1)), ("a", "c", (2, -2)), ("b", "c", (-1, -4)), ("a", "b", (1, -1))]
    ):
        for half, margin in enumerate(margins):  # x's margin in each half
            ours, theirs = max(margin, 0), max(-margin, 0)
            results.append(
                result(
                    match_id=f"m{n}-{half}",
                    pair_key=f"p{n}",
                    game=GAME,
                    entries=[x, y] if half == 0 else [y, x],
                    scores=[ours, theirs] if half == 0 else [theirs, ours],
                )
            )
    results.append(
        result(match_id="lone", pair_key="p9", game=GAME, entries=["a", "c"], scores=[5, 0])
    )
    results.append(
        result(
            match_id="nc",
            game=GAME,
            entries=["b", "c"],
            scores=[0, 0],
            end="no_contest",
            paired=False,
        )
    )
    results.append(
        result(match_id="s1", game="seep", entries=["a", "b"], scores=[1, 0], paired=False)
    )
    by_game = collusion_reports(results)
    assert set(by_game) == {GAME, "seep"}
    reports = {(r.a, r.b): r for r in by_game[GAME]}
    assert {p: (r.wins, r.draws, r.losses) for p, r in reports.items()} == {
        ("a", "b"): (1, 1, 0),
        ("a", "c"): (0, 1, 0),
        ("b", "c"): (0, 0, 1),
    }
    (seep,) = by_game["seep"]
    assert (seep.wins, seep.expected) == (1, None)
