"""The rating-units bench on a tiny budget: both units are played and rated."""

from __future__ import annotations

from bench.rating_units import DUPLICATE, FIVE, HALVES, SINGLE, Setup, run, schedule


def test_no_deal_is_reused_except_within_a_duplicate_pair() -> None:
    jobs = schedule(matches=20, repeats=3, seed=7)
    deals = [j.deal for j in jobs if j.unit == SINGLE]
    pairs = [j.deal for j in jobs if j.unit == DUPLICATE]
    assert len(set(deals)) == len(deals) == 60
    assert len(set(pairs)) == len(pairs) // 2 == 30
    assert not set(deals) & set(pairs)
    assert len({j.match_id for j in jobs}) == len(jobs)


def test_both_units_produce_outcomes_and_positive_widths() -> None:
    setup = Setup("bid-euchre", "bid-euchre-basic", eps=0.05, seed=3)
    reports = run(setup, matches=20, repeats=2, workers=1)
    assert set(reports) == {DUPLICATE, FIVE, HALVES, SINGLE}
    assert (reports[DUPLICATE].matches, reports[DUPLICATE].outcomes) == (20, 10)
    assert (reports[SINGLE].matches, reports[SINGLE].outcomes) == (20, 20)
    for report in reports.values():
        assert report.wins + report.draws + report.losses == 2 * report.outcomes
        assert len(report.estimates) == 2
        assert all(e.ci95 > 0 for e in report.estimates)
        assert report.pooled.ci95 > 0
    # The same pairs read in five outcomes: the arena's keep the margin's win, draw or
    # loss; fishtest's sum of the halves has only even levels when no match is drawn.
    dup, five, halves = reports[DUPLICATE], reports[FIVE], reports[HALVES]
    assert (five.matches, five.outcomes, halves.matches, halves.outcomes) == (20, 10, 20, 10)
    assert (five.wins, five.draws, five.losses) == (dup.wins, dup.draws, dup.losses)
    assert sum(five.levels) == sum(halves.levels) == 2 * dup.outcomes
    assert (five.levels[3] + five.levels[4], five.levels[2]) == (dup.wins, dup.draws)
    assert dup.levels == () and halves.levels[1] == halves.levels[3] == 0


def test_the_same_seed_gives_the_same_figures() -> None:
    setup = Setup("bid-euchre", "bid-euchre-basic", eps=0.2, seed=5)
    assert run(setup, matches=8, repeats=1, workers=1) == run(setup, 8, 1, workers=2)
