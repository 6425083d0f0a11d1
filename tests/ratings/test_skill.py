"""OpenSkill beside the Elo: explicit teams of seats, the Elo's units, one answer per set."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from arena.ratings import pair_outcomes
from arena.ratings.leaderboard import duplicate_result
from arena.ratings.skill import MU, SIGMA, rate, skill_table
from arena.ratings.teams import Team, TeamOutcome, match_teams, team_outcomes
from arena.store.results import MatchResult
from tests.support.rating_history import history, stored


def test_a_four_seat_game_today_has_one_member_teams_of_two_seats() -> None:
    result = stored(1, 0, "bid-euchre", ["ace", "bee"], 5)
    assert match_teams(result) == (Team(((0, "ace"), (2, "ace"))), Team(((1, "bee"), (3, "bee"))))
    assert [t.members for t in match_teams(result)] == [("ace",), ("bee",)]
    assert [t.label for t in match_teams(result)] == ["ace", "bee"]


def test_a_two_seat_game_has_one_seat_a_team() -> None:
    result = stored(1, 0, "bridgette", ["ace", "bee"], 5)
    assert match_teams(result) == (Team(((0, "ace"),)), Team(((1, "bee"),)))


def test_mixed_partners_make_two_member_teams() -> None:
    result = stored(1, 0, "seep", ["ace", "cat"], 5, seat_bots=["ace", "cat", "bee", "dog"])
    first, second = match_teams(result)
    assert first.seats == ((0, "ace"), (2, "bee")) and first.members == ("ace", "bee")
    assert second.seats == ((1, "cat"), (3, "dog")) and second.members == ("cat", "dog")
    assert first.label == "ace & bee"
    with pytest.raises(ValueError, match="3 seat bots for 4 seats"):
        match_teams(replace(result, seat_bots=("ace", "cat", "bee")))


def test_one_member_teams_give_exactly_the_elos_units() -> None:
    results = history(random.Random(3))
    mine = team_outcomes(results)
    elo = pair_outcomes(h for r in results if (h := duplicate_result(r)) is not None)
    assert [(o.a, o.b, o.score) for o in mine] == [((o.a,), (o.b,), o.score) for o in elo]


def mixed(n: int, a: tuple[str, str], b: tuple[str, str], margin: int) -> list[MatchResult]:
    """A duplicate pair between two-member teams: the teams swap seats for the second."""
    seats = [a[0], b[0], a[1], b[1]]
    swapped = [b[0], a[0], b[1], a[1]]
    return [
        stored(n, 0, "baloot", [a[0], b[0]], margin, seat_bots=seats),
        stored(n, 1, "baloot", [b[0], a[0]], 0, seat_bots=swapped),
    ]


def test_individuals_are_rated_whoever_their_partners() -> None:
    """``ace`` wins with every partner: it comes out on top, and its partners, who win
    and lose with it, between the others."""
    bots = ["ace", "bee", "cat", "dog", "eel"]
    results = []
    n = 0
    for partner in bots[1:]:
        others = [b for b in bots[1:] if b != partner]
        for rival in ((others[0], others[1]), (others[1], others[2]), (others[0], others[2])):
            results += mixed(n, ("ace", partner), rival, 10)
            n += 1
    units = team_outcomes(results)
    assert len(units) == n
    assert all(len(u.a) == len(u.b) == 2 and u.score in (0.0, 1.0) for u in units)
    table = skill_table(results)
    assert table.ratings[0].player == "ace"
    assert table.by_player()["ace"].units == n
    assert {r.player for r in table.ratings} == set(bots)


def test_halves_of_a_pair_must_seat_the_same_teams() -> None:
    first, second = mixed(1, ("ace", "bee"), ("cat", "dog"), 10)
    second = replace(second, seat_bots=("cat", "ace", "dog", "eel"))
    with pytest.raises(ValueError, match="seat different teams"):
        team_outcomes([first, second])


def test_the_ratings_are_a_function_of_the_set_of_results() -> None:
    results = history(random.Random(5))
    table = skill_table(results)
    for seed in range(3):
        random.Random(seed).shuffle(results)
        assert skill_table(results) == table
    assert skill_table(results, "seep") != table


def test_numbers_mean_what_the_docstring_says() -> None:
    table = rate([TeamOutcome("k", ("a",), ("b",), 1.0)], players=["c"])
    a, b, c = (table.by_player()[p] for p in "abc")
    assert a.mu > MU > b.mu and a.sigma < SIGMA and (c.mu, c.sigma, c.units) == (MU, SIGMA, 0)
    assert a.ordinal == pytest.approx(a.mu - 3 * a.sigma)
    assert [r.player for r in table.ratings] == ["a", "c", "b"]
    assert a.elo > 0 > b.elo and c.elo == 0
    draw = rate([TeamOutcome("k", ("a",), ("b",), 0.5)]).by_player()
    assert draw["a"].mu == pytest.approx(MU) and draw["a"].sigma < SIGMA


def test_a_bot_on_both_teams_is_refused() -> None:
    with pytest.raises(ValueError, match="on both teams"):
        rate([TeamOutcome("k", ("a", "b"), ("b", "c"), 1.0)])
