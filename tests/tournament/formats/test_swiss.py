"""Swiss as pure functions: pairing rules, tie-breaks, byes, and handing a round out."""

from __future__ import annotations

import random
import re

import pytest
from google.protobuf.json_format import ParseDict
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.ratings.duplicate import DuplicateResult
from arena.tournament.formats import FORMATS, InvalidFormat, Played
from arena.tournament.formats.pairing import BYE, pairing, rounds
from arena.tournament.formats.swiss import Swiss
from arena.tournament.schedule import ScheduledMatch
from arena.v1 import arena_pb2
from tests.tournament.formats.drive import (
    Results,
    check_matches,
    drive,
    field,
    pieces,
    random_results,
    result,
    strength,
    tables,
)


def pairs_of(*pairs: str | tuple[str, str]) -> set[frozenset[str]]:
    """Pairs met, as two-letter strings or (entry, BYE)."""
    return {frozenset(p) for p in pairs}


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 12), seed=st.integers(0, 2**32), paired=st.booleans(), sharp=st.booleans())
def test_n_minus_1_rounds_never_repeat_a_pairing_or_a_bye(
    n: int, seed: int, paired: bool, sharp: bool
) -> None:
    fmt = Swiss(field(n, paired=paired), {"rounds": n - 1})
    # Sharp: a hidden strength order decides every deal, so score groups split hard.
    hidden = random.Random(seed).sample(fmt.field.entries, n)
    run = drive(fmt, strength(hidden) if sharp else random_results(seed))
    played = tables(run.state)
    met = [frozenset(p) for pairs, _ in played for p in pairs]
    assert len(met) == len(set(met))
    byes = [bye for _, bye in played if bye]
    assert len(byes) == len(set(byes)) == (n - 1 if n % 2 else 0)
    for r, (pairs, bye) in enumerate(played):
        seated = [e for p in pairs for e in p] + ([bye] if bye else [])
        assert sorted(seated) == sorted(fmt.field.entries)
        if bye:  # the lowest-ranked entry, going in, that had no bye yet
            ranked = [row[0] for row in fmt.ranking(run.state["rounds"][:r])]
            had = {b for _, b in played[:r]}
            assert bye == [e for e in ranked if e not in had][-1]
    check_matches(fmt, run.matches)
    ParseDict(fmt.standings(run.state), arena_pb2.Standings())


def test_round_one_pairs_by_entry_order_and_the_last_entry_sits_out() -> None:
    for n, expected, bye in [(6, ["e1e2", "e3e4", "e5e6"], ""), (5, ["e1e2", "e3e4"], "e5")]:
        state, _ = Swiss(field(n), {"rounds": 2}).next({"rounds": []}, 100)
        assert tables(state) == [([(p[:2], p[2:]) for p in expected], bye)]


def test_score_groups_pair_within_and_floaters_float_to_the_nearest_group() -> None:
    entries = list("abcdefgh")
    within = pairing(entries, [2, 2, 1, 1, 1, 1, 0, 0], set(), 3)
    assert within == [("a", "b"), ("c", "d"), ("e", "f"), ("g", "h")]
    # Three on 2 points: the lowest of them floats to the top of the 1-point group.
    assert pairing(list("abcdef"), [2, 2, 2, 1, 1, 0], set(), 3) == [
        ("a", "b"),
        ("c", "d"),
        ("e", "f"),
    ]


def test_a_repeat_is_avoided_by_the_nearest_swap() -> None:
    # a v b met: 1 v 3, 2 v 4 (the squared rank differences, 8 against 10 for 1 v 4).
    assert pairing(list("abcd"), [1, 1, 1, 1], pairs_of("ab"), 1) == [("a", "c"), ("b", "d")]
    # Only repeats are left: the fewest of them, still by score.
    met = pairs_of("ab", "ac", "ad", "bc", "bd", "cd")
    assert pairing(list("abcd"), [2, 2, 0, 0], met, 0) == [("a", "b"), ("c", "d")]


def test_the_bye_goes_to_the_lowest_ranked_entry_without_one() -> None:
    entries = list("abcde")
    assert pairing(entries, [2, 1, 1, 1, 1], set(), 3) == [("a", "b"), ("c", "d"), ("e", BYE)]
    had = pairs_of(("e", BYE), ("d", BYE))
    assert pairing(entries, [2, 1, 1, 1, 1], had, 2) == [("a", "b"), ("c", BYE), ("d", "e")]


def test_a_round_that_would_leave_later_rounds_only_repeats_is_passed_over() -> None:
    # Two rounds between {1, 3, 5} and {2, 4, 6}; the cheapest third (1-6, 3-2, 5-4, all
    # neighbours in this ranking) would leave two triangles, which no round can pair.
    met = pairs_of("12", "34", "56", "14", "36", "25")
    ranked = list("163254")
    trap = [("1", "6"), ("3", "2"), ("5", "4")]
    assert rounds(ranked, met | {frozenset(p) for p in trap}, 2) is None
    chosen = pairing(ranked, [1.0] * 6, met, 2)
    assert chosen in ([("1", "6"), ("3", "5"), ("2", "4")], [("1", "3"), ("2", "6"), ("5", "4")])
    assert rounds(ranked, met | {frozenset(p) for p in chosen}, 2) is not None


ROUND = re.compile(r"-swiss-r(\d+)-t\d+-.+-(\d+)-[ab]$")


def scripted(script: dict[tuple[int, str], str]) -> Results:
    """Per round and pairing (``"e1e2"``, either order), who takes each deal: a letter
    per deal, ``a``/``b`` for the pairing's first/second entry, ``=`` for level."""

    def play(m: ScheduledMatch) -> DuplicateResult:
        found = ROUND.search(m.match_id)
        assert found
        r, deal = int(found[1]), int(found[2])
        x, y = sorted(m.entries)
        plan = script[(r, x + y)]
        won = {"a": x, "b": y, "=": None}[plan[deal]]
        return result(m, 0 if won is None else 10 if won == m.entries[0] else -10)

    return play


def test_ranking_is_points_then_buchholz_then_units_then_entry_order() -> None:
    fmt = Swiss(field(4, deals=3), {"rounds": 2})
    script = {
        (1, "e1e2"): "bab",  # e2 2-1
        (1, "e3e4"): "bbb",  # e4 3-0
        # Going in: e4 (3 units) above e2 (2), and e1 (1) above e3 (0).
        (2, "e2e4"): "ab=",  # level 1.5-1.5
        (2, "e1e3"): "aab",  # e1 2-1
    }
    run = drive(fmt, scripted(script))
    assert tables(run.state) == [
        ([("e1", "e2"), ("e3", "e4")], ""),
        ([("e4", "e2"), ("e1", "e3")], ""),
    ]
    table = fmt.standings(run.state)["swiss"]["table"]
    # e2 and e4 both on 1.5: e2 met e1 (1) and e4 (1.5), e4 met e3 (0) and e2 (1.5), so
    # Buchholz puts e2 first though e4 won more units.
    assert [(r["rank"], r["entry"], r["points"], r["buchholz"], r["units"]) for r in table] == [
        (1, "e2", 1.5, 2.5, 3.5),
        (2, "e4", 1.5, 1.5, 4.5),
        (3, "e1", 1.0, 1.5, 3.0),
        (4, "e3", 0.0, 2.5, 1.0),
    ]


def test_entries_level_on_every_tie_break_share_a_rank_in_entry_order() -> None:
    fmt = Swiss(field(2, deals=2), {"rounds": 1})
    run = drive(fmt, scripted({(1, "e1e2"): "ab"}))
    standings = fmt.standings(run.state)["swiss"]
    assert [(r["rank"], r["entry"]) for r in standings["table"]] == [(1, "e1"), (1, "e2")]
    assert standings["rounds"] == [
        {
            "round": 1,
            "tables": [
                {
                    "a": "e1",
                    "b": "e2",
                    "a_units": 1.0,
                    "b_units": 1.0,
                    "a_points": 0.5,
                    "b_points": 0.5,
                }
            ],
            "bye": "",
            "complete": True,
        }
    ]


def test_a_forfeit_loses_its_unit_and_a_no_contest_voids_it() -> None:
    fmt = Swiss(field(2, deals=3), {"rounds": 1})
    state, matches = fmt.next(fmt.start(), 100)
    first, second = (m for m in matches if m.deal == 0)
    voided = [m for m in matches if m.deal == 1]
    lost = [m for m in matches if m.deal == 2]
    state = fmt.absorb(
        state,
        [
            # Deal 0: e1 outscores e2 by 90 but forfeits the other half: e2's unit.
            Played(first.match_id, result(first, 90 if first.entries[0] == "e1" else -90)),
            Played(second.match_id, result(second, 0, forfeit_by="e1")),
            # Deal 1: a no contest in either half and the unit is not played.
            Played(voided[0].match_id, None),
            Played(voided[1].match_id, result(voided[1], -50)),
            *(Played(m.match_id, result(m, 0)) for m in lost),  # deal 2: level
        ],
    )
    (row,) = fmt.standings(state)["swiss"]["rounds"][0]["tables"]
    assert (row["a_units"], row["b_units"], row["a_points"], row["b_points"]) == (
        0.5,
        1.5,
        0.0,
        1.0,
    )


def test_a_round_handed_out_in_pieces_is_the_round_handed_out_whole() -> None:
    def make() -> Swiss:
        return Swiss(field(7, games=("seep", "bid-euchre"), deals=2), {"rounds": 4})

    pieces(make, random_results(5), (1, 2, 3, 7, 13))


def test_a_round_waits_for_every_result_of_the_one_before() -> None:
    fmt = Swiss(field(4), {"rounds": 2})
    state, matches = fmt.next(fmt.start(), 100)
    assert len(matches) == 4 and not fmt.decided(state)
    state = fmt.absorb(state, [Played(m.match_id, result(m, 1)) for m in matches[:3]])
    assert fmt.next(state, 100)[1] == []
    standings = fmt.standings(state)["swiss"]
    assert [r["complete"] for r in standings["rounds"]] == [False]
    ParseDict(fmt.standings(state), arena_pb2.Standings())
    state = fmt.absorb(state, [Played(matches[3].match_id, result(matches[3], 1))])
    state, second = fmt.next(state, 100)
    # Handed out is decided: the scheduler waits for the last results itself.
    assert len(second) == 4 and fmt.decided(state)
    assert fmt.total() == 8


def test_unit_names_and_seeds_follow_the_deal_key_convention_open_or_paired() -> None:
    for paired in (True, False):
        fmt = Swiss(field(5, games=("seep", "bid-euchre"), deals=3, paired=paired), {"rounds": 3})
        run = drive(fmt, strength(fmt.field.entries))
        check_matches(fmt, run.matches)
        assert run.matches[0].match_id == "t1-swiss-r1-t1-seep-0-a"


@pytest.mark.parametrize(
    ("n", "params", "message"),
    [
        (5, {"rounds": 7}, "a Swiss tournament of 5 entries has 1 to 4 rounds, got 7"),
        (5, {"rounds": 0}, "a Swiss tournament of 5 entries has 1 to 4 rounds, got 0"),
        (5, {}, "a Swiss tournament of 5 entries has 1 to 4 rounds, got None"),
        (3, {"rounds": "2"}, "a Swiss tournament of 3 entries has 1 to 2 rounds, got '2'"),
        (1, {"rounds": 1}, "a Swiss tournament needs at least 2 entries, got 1"),
    ],
)
def test_rounds_out_of_range_say_what_is_allowed(
    n: int, params: dict[str, object], message: str
) -> None:
    with pytest.raises(InvalidFormat, match=f"^{re.escape(message)}$"):
        Swiss(field(n), params)


def test_every_entry_must_play_every_game() -> None:
    games = ("seep", "bid-euchre", "baloot")
    games_of = {"e1": games, "e2": ("seep",), "e3": ("seep", "baloot")}
    with pytest.raises(InvalidFormat) as error:
        Swiss(field(3, games=games, games_of=games_of), {"rounds": 2})
    assert str(error.value) == (
        "every entry must play every game of the tournament: e2 lacks bid-euchre, baloot; "
        "e3 lacks bid-euchre; choose games they all play"
    )


def test_swiss_is_registered() -> None:
    assert FORMATS["swiss"] is Swiss
