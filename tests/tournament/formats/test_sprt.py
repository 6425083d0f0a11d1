"""The SPRT: its arithmetic by hand, the format's bookkeeping, and its error rates by
simulation with known strengths."""

from __future__ import annotations

import math
import random
import re
from collections.abc import Sequence
from typing import Any

import pytest
from google.protobuf.json_format import ParseDict

from arena.ratings import DuplicateResult
from arena.ratings import sprt as math_
from arena.ratings.sprt_estimate import estimate_counts
from arena.ratings.sprt_llr import llr_any
from arena.ratings.sprt_overshoot import Ladder
from arena.tournament.formats import FORMATS, Field, InvalidFormat, Played, State
from arena.tournament.formats.sprt import Sprt
from arena.tournament.schedule import ScheduledMatch
from arena.v1 import arena_pb2

GAME = "bid-euchre"


def field(
    paired: bool = True, entries: Sequence[str] = ("new", "old"), games: Sequence[str] = (GAME,)
) -> Field:
    return Field(
        tournament_id="t1",
        entries=tuple(entries),
        games=tuple(games),
        games_of={e: (GAME,) for e in entries},
        deals=1,
        master_seed=7,
        paired=paired,
    )


LEVEL = {1.0: 3, 0.5: 2, 0.0: 1}
"""The five-outcome level of a pair ``played`` scores: won (lost) on the total only."""


def played(match: ScheduledMatch, score: float) -> Played:
    """``match``'s result such that its unit ends ``score`` for "new": all of the margin
    is in the half where "new" holds team 0 (the other half is level, so a pair is won
    or lost on the total only: ``LEVEL``), or, for a match rated alone, in the match
    itself."""
    new_first = match.entries[0] == "new"
    sign = {1.0: 1, 0.5: 0, 0.0: -1}[score]
    margin = sign if new_first else (0 if match.paired else -sign)
    a, b = match.entries
    return Played(match.match_id, DuplicateResult(match.pair_key, a, b, margin, None, match.paired))


def results(matches: Sequence[ScheduledMatch], scores: Sequence[float]) -> list[Played]:
    """One score per unit: per pair when paired, else per match."""
    per_unit = 2 if matches and matches[0].paired else 1
    return [played(m, scores[i // per_unit]) for i, m in enumerate(matches)]


def run(fmt: Sprt, scores: Sequence[float]) -> State:
    """Hand out one pair per score and absorb them, in order."""
    state, matches = fmt.next(fmt.start(), 2 * len(scores))
    return fmt.absorb(state, results(matches, scores))


def status(fmt: Sprt, state: State) -> arena_pb2.SprtStatus:
    return ParseDict(fmt.standings(state), arena_pb2.Standings()).sprt


# --- the arithmetic ---------------------------------------------------------------------


def test_llr_is_the_exact_generalised_one() -> None:
    # 60 wins, 25 draws, 15 losses: fishtest's LLR_logistic gives 0.85088409273; the
    # normal approximation, N (s1 - s0) (2 mean - s0 - s1) / (2 var) with mean 0.725 and
    # var 0.136875, would say 1.16384, far off a mean so far from s0 and s1.
    assert math_.expected_score(5) == pytest.approx(0.5071950817090514, abs=1e-15)
    s0, s1 = 0.5, math_.expected_score(5)
    assert math_.llr(60, 25, 15, 0, 5) == pytest.approx(0.8508840927313228, abs=1e-9)
    assert math_.llr(60, 25, 15, 0, 5) == pytest.approx(llr_any([15, 25, 60], s0, s1), abs=1e-9)
    # Swapping wins and losses about a symmetric pair of bounds flips the sign.
    assert math_.llr(15, 25, 60, -5, 5) == pytest.approx(-math_.llr(60, 25, 15, -5, 5))


def test_bounds_are_walds() -> None:
    assert math_.bounds(0.05, 0.05) == pytest.approx((math.log(0.05 / 0.95), math.log(19)))
    assert math_.bounds(0.1, 0.2) == pytest.approx((math.log(0.2 / 0.9), math.log(0.8 / 0.1)))


def test_edge_cases_of_the_llr() -> None:
    assert math_.llr(0, 0, 0, 0, 5) == 0.0
    # A short streak is little evidence: its exact LLR is at most log(s1 / s0) a unit
    # (the normal approximation with fishtest's 1e-3 prior put two wins at about 11).
    assert 0 < math_.llr(2, 0, 0, 0, 5) < 0.1
    assert -0.1 < math_.llr(0, 0, 2, 0, 5) < 0
    assert math_.llr(300, 0, 0, 0, 5) > math_.bounds(0.05, 0.05)[1]
    # Identical bots in duplicate pairs draw every unit: no better, so towards H0.
    assert math_.llr(0, 400, 0, 0, 5) < math_.bounds(0.05, 0.05)[0]
    assert all(math.isfinite(math_.llr(w, d, l_, 0, 5)) for w, d, l_ in [(9, 0, 0), (0, 9, 0)])


def test_elo_estimate_sign_and_magnitude() -> None:
    elo, ci = math_.elo_estimate(60, 25, 15)  # mean score 0.725
    assert elo == pytest.approx(-400 * math.log10(1 / 0.725 - 1))  # 168.4
    assert 60 < ci < 100
    # The interval narrows as 1/sqrt(N); the mirror image is as far below 0.
    assert math_.elo_estimate(600, 250, 150)[1] == pytest.approx(ci / math.sqrt(10), rel=0.05)
    assert math_.elo_estimate(15, 25, 60)[0] == pytest.approx(-elo)
    assert math_.elo_estimate(30, 40, 30)[0] == 0.0
    assert math_.elo_estimate(0, 0, 0) == (0.0, 0.0)
    assert 0 < math_.elo_estimate(5, 0, 0)[0] <= 1200


# --- the format ---------------------------------------------------------------------


def test_registered_with_its_defaults() -> None:
    assert FORMATS["sprt"] is Sprt
    for params in ({}, {"elo0": 0, "elo1": 0, "alpha": 0, "beta": 0, "max_units": 0}):
        fmt = Sprt(field(), params)
        assert fmt.total() is None
        p = status(fmt, fmt.start()).params
        assert (p.elo0, p.elo1, p.alpha, p.beta, p.max_units) == (0, 5, 0.05, 0.05, 100000)


@pytest.mark.parametrize(
    ("kwargs", "params", "message"),
    [
        ({"entries": ("a", "b", "c")}, {}, "exactly 2 entries, the new version first"),
        ({"entries": ("new",)}, {}, "exactly 2 entries"),
        ({"games": (GAME, "seep")}, {}, "exactly 1 game, which both entries play"),
        ({"games": ("seep",)}, {}, "exactly 1 game, which both entries play"),
        ({}, {"elo0": 5, "elo1": 5}, "elo0 < elo1"),
        ({}, {"elo0": 2}, "elo0 < elo1"),
        ({}, {"elo0": 0, "elo1": 51}, "elo1 at most 50 above elo0"),
        ({}, {"elo0": -440, "elo1": -400}, "SPRT bounds are from -400 to 400 Elo"),
        ({}, {"alpha": 0.5}, "alpha is more than 0 and less than 0.5"),
        ({}, {"alpha": -0.1}, "alpha is more than 0 and less than 0.5"),
        ({}, {"beta": 0.7}, "beta is more than 0 and less than 0.5"),
        ({}, {"max_units": 100001}, "max_units is a whole number from 1 to 100000"),
        ({}, {"max_units": -3}, "max_units is a whole number from 1 to 100000"),
        ({}, {"max_units": 2.5}, "max_units is a whole number from 1 to 100000"),
        ({}, {"elo1": "ten"}, "elo1 is a number"),
    ],
)
def test_invalid_parameters_say_what_is_allowed(
    kwargs: dict[str, Any], params: dict[str, Any], message: str
) -> None:
    with pytest.raises(InvalidFormat, match=re.escape(message)):
        Sprt(field(**kwargs), params)


def test_hands_out_whole_units_up_to_max_units() -> None:
    fmt = Sprt(field(), {"max_units": 3})
    state = fmt.start()
    assert fmt.next(state, 1)[1] == []  # half a pair is no unit
    state, first = fmt.next(state, 5)
    state, rest = fmt.next(state, 100)
    matches = first + rest
    assert [len(first), len(rest)] == [4, 2]
    assert fmt.decided(state) and fmt.next(state, 100)[1] == []
    assert len({m.match_id for m in matches}) == 6
    assert {m.pair_key for m in matches} == {f"t1-sprt-{GAME}-{k}" for k in range(3)}
    assert all(re.fullmatch(r"t1-[A-Za-z0-9-]+-[ab]", m.match_id) for m in matches)
    assert [m.entries for m in first[:2]] == [("new", "old"), ("old", "new")]
    assert first[0].seed == first[1].seed  # a duplicate pair shares its deal


def test_open_play_rates_each_match_and_ends_an_odd_max_units_on_one_seating() -> None:
    fmt = Sprt(field(paired=False), {"max_units": 3})
    state, matches = fmt.next(fmt.start(), 100)
    assert [m.match_id for m in matches] == [
        f"t1-sprt-{GAME}-{k}-{h}" for k, h in ("0a", "0b", "1a")
    ]
    assert len({m.seed for m in matches}) == 3
    state = fmt.absorb(state, results(matches, [1.0, 0.5, 0.0]))
    s = status(fmt, state)
    assert (s.units, s.wins, s.draws, s.losses) == (3, 1, 1, 1)
    assert s.verdict == arena_pb2.SPRT_VERDICT_INCONCLUSIVE


def test_outcomes_are_the_first_entrys_whichever_seat_it_holds() -> None:
    fmt = Sprt(field(entries=("new", "old")), {})
    mine = status(fmt, run(fmt, [1.0, 1.0, 0.5, 0.0]))
    assert (mine.wins, mine.draws, mine.losses) == (2, 1, 1)
    # The same results, the entries listed the other way round: the other side's record.
    other = Sprt(field(entries=("old", "new")), {})
    theirs = status(other, run(other, [1.0, 1.0, 0.5, 0.0]))
    assert (theirs.wins, theirs.draws, theirs.losses) == (1, 1, 2)
    assert theirs.elo < 0 < mine.elo


def test_a_forfeit_loses_the_unit_and_a_no_contest_voids_it() -> None:
    fmt = Sprt(field(), {"max_units": 2})
    state, matches = fmt.next(fmt.start(), 100)
    a, b = matches[0], matches[1]
    forfeit = Played(b.match_id, DuplicateResult(b.pair_key, *b.entries, 5, "new"))
    state = fmt.absorb(state, [played(a, 1.0), forfeit])
    state = fmt.absorb(state, [Played(matches[2].match_id, None), played(matches[3], 1.0)])
    s = status(fmt, state)
    assert (s.units, s.losses, s.verdict) == (1, 1, arena_pb2.SPRT_VERDICT_INCONCLUSIVE)


def test_results_in_pieces_give_the_state_of_results_at_once() -> None:
    fmt = Sprt(field(), {"elo0": -20, "elo1": 20})
    rng = random.Random(1)
    scores = rng.choices([1.0, 0.5, 0.0], k=400)
    state, matches = fmt.next(fmt.start(), 800)
    everything = results(matches, scores)
    at_once = fmt.absorb(state, everything)
    in_pieces = state
    i = 0
    while i < len(everything):
        size = rng.randint(1, 30)
        in_pieces = fmt.absorb(in_pieces, everything[i : i + size])
        i += size
    assert in_pieces == at_once
    assert fmt.standings(in_pieces) == fmt.standings(at_once)


def test_halves_out_of_order_wait_in_the_state_for_each_other() -> None:
    fmt = Sprt(field(), {})
    state, matches = fmt.next(fmt.start(), 40)
    scores = [1.0, 0.5, 0.0, 1.0] * 5
    everything = results(matches, scores)
    state = fmt.absorb(state, everything[1::2][::-1])  # every b half, last unit first
    assert len(state["halves"]) == 20 and status(fmt, state).units == 0
    state = fmt.absorb(state, everything[0::2])
    s = status(fmt, state)
    assert state["halves"] == {}
    assert (s.units, s.wins, s.draws, s.losses) == (20, 10, 5, 5)


def test_nothing_is_handed_out_after_a_verdict_and_late_units_still_count() -> None:
    fmt = Sprt(field(), {"elo0": 0, "elo1": 50})
    state, matches = fmt.next(fmt.start(), 200)
    everything = results(matches, [1.0] * 100)
    for i in range(0, len(everything), 2):
        state = fmt.absorb(state, everything[i : i + 2])
        if status(fmt, state).verdict == arena_pb2.SPRT_VERDICT_H1:
            break
    s = status(fmt, state)
    assert s.verdict == arena_pb2.SPRT_VERDICT_H1 and s.llr >= s.upper_in_force
    assert s.lower == s.lower_in_force < 0 < s.upper_in_force < s.upper  # no fall yet
    assert fmt.decided(state) and fmt.next(state, 100)[1] == []
    # Units already out finish, and count, but the verdict stands.
    late = fmt.absorb(state, results(matches[2 * s.units : 2 * s.units + 2], [0.0]))
    assert status(fmt, late).units == s.units + 1
    assert status(fmt, late).verdict == arena_pb2.SPRT_VERDICT_H1


def test_h0_when_the_new_version_is_worse() -> None:
    fmt = Sprt(field(), {"elo0": 0, "elo1": 50})
    state = run(fmt, [0.0, 0.5] * 50)
    s = status(fmt, state)
    assert s.verdict == arena_pb2.SPRT_VERDICT_H0 and s.elo < 0


def test_the_trace_is_thinned_to_1000_points_ending_on_the_last_unit() -> None:
    fmt = Sprt(field(), {"max_units": 5001})
    state = run(fmt, [1.0, 0.0] * 2500 + [1.0])  # level: no verdict
    s = status(fmt, state)
    units = [p.units for p in s.trace]
    assert s.verdict == arena_pb2.SPRT_VERDICT_INCONCLUSIVE
    assert 500 <= len(units) <= 1000 and units[-1] == 5001 == s.units
    assert units == sorted(set(units))
    assert s.trace[-1].llr == pytest.approx(s.llr)
    half = units[0] // 2
    assert s.trace[0].llr == pytest.approx(math_.llr_levels([0, half, 0, half, 0], 0, 5))


def test_standings_parse_at_every_stage() -> None:
    fmt = Sprt(field(), {"elo0": -1.5, "elo1": 3.5, "alpha": 0.1, "beta": 0.2})
    start = status(fmt, fmt.start())
    assert start.verdict == arena_pb2.SPRT_VERDICT_PENDING and start.units == 0
    assert (start.lower, start.upper) == pytest.approx(math_.bounds(0.1, 0.2))
    state = run(fmt, [1.0, 0.5, 0.5, 0.0, 1.0])
    s = status(fmt, state)
    assert (s.units, s.wins, s.draws, s.losses) == (5, 2, 2, 1)
    levels = [0, 1, 2, 2, 0]  # pairs won and lost on the total only
    assert s.llr == pytest.approx(math_.llr_levels(levels, -1.5, 3.5))
    found = estimate_counts(levels, -1.5, 3.5, 0.1, 0.2)
    assert (s.elo, s.elo_low, s.elo_high) == pytest.approx((found.elo, found.low, found.high))
    assert s.elo_ci95 == pytest.approx((found.high - found.low) / 2)
    assert [p.units for p in s.trace] == [1, 2, 3, 4, 5]
    assert (s.params.elo0, s.params.beta) == (-1.5, 0.2)


# --- the stopping rule -----------------------------------------------------------------


def test_the_format_stops_where_the_overshoot_corrected_bounds_say() -> None:
    """Unit by unit, the format's verdict is the one the exact LLR and the ladder give
    (the rule ``arena.ratings.sprt_simulation`` simulates; its error rates are checked
    in tests/ratings/test_sprt_stats.py)."""
    rng = random.Random(4)
    lower, upper = math_.bounds(0.05, 0.05)
    for trial in range(10):
        scores = rng.choices([1.0, 0.5, 0.0], weights=[0.4, 0.3, 0.3], k=3000)
        ladder, levels, expected = Ladder(), [0] * 5, None
        for i, score in enumerate(scores):
            levels[LEVEL[score]] += 1
            llr = math_.llr_levels(levels, 0, 50)
            ladder = ladder.step(llr)
            o0, o1 = ladder.corrections()
            if llr >= upper - o1 or llr <= lower + o0:
                expected = (i + 1, "H1" if llr >= upper - o1 else "H0")
                break
        assert expected is not None, trial
        units, verdict = expected
        fmt = Sprt(field(), {"elo0": 0, "elo1": 50})
        start, matches = fmt.next(fmt.start(), 2 * units)
        before = fmt.absorb(start, results(matches[:-2], scores[: units - 1]))
        assert status(fmt, before).verdict == arena_pb2.SPRT_VERDICT_PENDING
        s = status(fmt, fmt.absorb(before, results(matches[-2:], scores[units - 1 : units])))
        assert s.units == units
        assert s.verdict == getattr(arena_pb2, f"SPRT_VERDICT_{verdict}")


def test_a_state_stored_before_the_ladder_starts_one_at_its_llr() -> None:
    """A test running when the overshoot correction came in must not see its whole LLR
    so far as one rise (which would bring the upper bound down by half of it)."""
    fmt = Sprt(field(), {"elo0": 0, "elo1": 50})
    scores = [1.0, 1.0, 0.5, 1.0, 0.0, 1.0] * 3
    state, matches = fmt.next(fmt.start(), 2 * len(scores) + 2)
    old = fmt.absorb(state, results(matches[:-2], scores))
    del old["ladder"]
    now = math_.llr_levels(old["levels"], 0, 50)
    assert status(fmt, old).upper_in_force == status(fmt, old).upper  # no ladder: Wald's
    later = fmt.absorb(old, results(matches[-2:], [0.5]))
    after = math_.llr_levels(later["levels"], 0, 50)
    assert Ladder.from_list(later["ladder"]) == Ladder(low=now, high=now).step(after)
    assert abs(after - now) < 0.1  # one unit's rise or fall, not the whole LLR
    assert status(fmt, later).verdict == arena_pb2.SPRT_VERDICT_PENDING


# --- five outcomes of a pair -----------------------------------------------------------


def pair(fmt: Sprt, state: State, new_margins: tuple[int, int]) -> State:
    """One more pair, "new" scoring ``new_margins`` (its points less old's) in its two
    matches, and the state after it."""
    state, (first, second) = fmt.next(state, 2)
    return fmt.absorb(
        state,
        [
            Played(
                m.match_id,
                DuplicateResult(m.pair_key, *m.entries, mine if m.entries[0] == "new" else -mine),
            )
            for m, mine in ((first, new_margins[0]), (second, new_margins[1]))
        ],
    )


def test_a_pair_is_tested_in_its_five_outcomes() -> None:
    """Won both halves and won on the total only are one win by the total margin, but
    two outcomes for the pentanomial LLR; the standings' record stays the margin's."""
    fmt = Sprt(field(), {"elo0": -10, "elo1": 10})
    state = fmt.start()
    for margins in [(5, 3), (9, -2), (4, -4), (0, 0), (-6, 1), (-1, -7), (2, 0)]:
        state = pair(fmt, state, margins)
    assert state["levels"] == [1, 1, 2, 2, 1]
    assert state["counts"] == [3, 2, 2]
    s = status(fmt, state)
    assert (s.wins, s.draws, s.losses, s.units) == (3, 2, 2, 7)
    assert s.llr == pytest.approx(math_.llr_levels([1, 1, 2, 2, 1], -10, 10))
    assert s.llr != pytest.approx(math_.llr(3, 2, 2, -10, 10))
    found = estimate_counts([1, 1, 2, 2, 1], -10, 10, 0.05, 0.05)
    assert s.elo == pytest.approx(found.elo)
    # Winning both halves is the stronger evidence.
    both = pair(fmt, state, (3, 3))
    split = pair(fmt, state, (9, -3))
    assert status(fmt, both).llr > status(fmt, split).llr > s.llr - 1e-9


def test_a_forfeit_is_the_lowest_level_and_open_play_stays_in_three() -> None:
    fmt = Sprt(field(), {})
    state, (a, b) = fmt.next(fmt.start(), 2)
    forfeit = Played(b.match_id, DuplicateResult(b.pair_key, *b.entries, -50, "new"))
    state = fmt.absorb(
        state, [Played(a.match_id, DuplicateResult(a.pair_key, *a.entries, 80)), forfeit]
    )
    assert state["levels"] == [1, 0, 0, 0, 0]
    alone = Sprt(field(paired=False), {"max_units": 2})
    state, matches = alone.next(alone.start(), 100)
    state = alone.absorb(state, results(matches, [1.0, 0.5]))
    assert "levels" not in state
    assert status(alone, state).llr == pytest.approx(math_.llr(1, 1, 0, 0, 5))


def test_a_test_stored_before_five_outcomes_goes_on_in_three() -> None:
    fmt = Sprt(field(), {"elo0": 0, "elo1": 50})
    scores = [1.0, 1.0, 0.5, 1.0, 0.0, 1.0]
    state, matches = fmt.next(fmt.start(), 2 * len(scores) + 2)
    old = fmt.absorb(state, results(matches[:-2], scores))
    del old["levels"]
    later = fmt.absorb(old, results(matches[-2:], [1.0]))
    assert "levels" not in later and later["counts"] == [5, 1, 1]
    assert status(fmt, later).llr == pytest.approx(math_.llr(5, 1, 1, 0, 50))
    found = estimate_counts([1, 1, 5], 0, 50, 0.05, 0.05)
    assert status(fmt, later).elo == pytest.approx(found.elo)
