"""Knockout as pure functions: bracket placement, who goes on from a tie, and handing a
round out."""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Mapping

import pytest
from google.protobuf.json_format import ParseDict

from arena.tournament.formats import FORMATS, InvalidFormat, Played, State
from arena.tournament.formats.knockout import Knockout, bracket
from arena.tournament.schedule import ScheduledMatch
from arena.v1 import arena_pb2
from tests.tournament.formats.drive import (
    check_matches,
    drive,
    field,
    pieces,
    random_results,
    result,
    strength,
)


def seeds(state: State, r: int) -> list[tuple[int, int]]:
    return [(t["a_seed"], t["b_seed"]) for t in state["rounds"][r]["ties"]]


@pytest.mark.parametrize("n", range(2, 18))
def test_the_bracket_keeps_the_top_seeds_apart_and_gives_them_the_byes(n: int) -> None:
    size = 1 << (n - 1).bit_length()
    order = bracket(size)
    assert sorted(order) == list(range(1, size + 1))
    # The top 2^k seeds sit in 2^k different sections of the bracket, for every k.
    k = 1
    while k <= size:
        sections = [(order.index(s) * k) // size for s in range(1, k + 1)]
        assert sorted(sections) == list(range(k))
        k *= 2
    fmt = Knockout(field(n), {})
    first = seeds(fmt.start(), 0)
    assert sorted(s for s, b in first if b == 0) == list(range(1, size - n + 1))  # byes: the top
    assert first[0] == (1, size if size == n else 0)
    # With the favourite winning every tie, round r pairs seed s with m + 1 - s of the m
    # left, and 1 meets 2 only in the final.
    run = drive(fmt, strength(fmt.field.entries))
    for r in range(len(run.state["rounds"])):
        left = size >> r
        assert all(b in (0, left + 1 - a) for a, b in seeds(run.state, r))
        assert ((1, 2) in seeds(run.state, r)) == (left == 2)
    assert fmt.standings(run.state)["knockout"]["champion"] == "e1"
    check_matches(fmt, run.matches)


def test_the_champion_is_the_strongest_whatever_the_seeding() -> None:
    rng = random.Random(7)
    for n in (2, 3, 5, 8, 13):
        entries = field(n).entries
        seeding = rng.sample(entries, n)
        strongest = rng.sample(entries, n)
        fmt = Knockout(field(n), {"seeding": seeding})
        run = drive(fmt, strength(strongest))
        assert fmt.standings(run.state)["knockout"]["champion"] == strongest[0]
        assert seeds(fmt.start(), 0)[0][0] == 1
        assert fmt.start()["rounds"][0]["ties"][0]["a"] == seeding[0]


def test_each_round_is_played_by_the_winners_of_the_one_before() -> None:
    for seed in range(20):
        fmt = Knockout(field(11, deals=2), {})
        run = drive(fmt, random_results(seed))
        rounds = run.state["rounds"]
        for before, after in itertools.pairwise(rounds):
            winners = [t["winner"] for t in before["ties"]]
            assert [{t["a"], t["b"]} for t in after["ties"]] == [
                set(winners[i : i + 2]) for i in range(0, len(winners), 2)
            ]
            for t in after["ties"]:
                assert t["a_seed"] < t["b_seed"] and t["winner"] in (t["a"], t["b"])
        final = rounds[-1]["ties"]
        assert len(final) == 1
        assert fmt.standings(run.state)["knockout"]["champion"] == final[0]["winner"]
        ParseDict(fmt.standings(run.state), arena_pb2.Standings())


def one_tie(
    deals: int, seeding: list[str] | None = None
) -> tuple[Knockout, State, list[ScheduledMatch]]:
    """A final between e1 and e2, handed out whole."""
    fmt = Knockout(field(2, deals=deals), {"seeding": seeding} if seeding else {})
    state, matches = fmt.next(fmt.start(), 100)
    return fmt, state, matches


Play = Mapping[tuple[int, str], int | str | None]
"""Per (deal, seating): e1's margin, the entry that forfeits, or None for no contest."""


def settle(
    fmt: Knockout,
    state: State,
    matches: list[ScheduledMatch],
    play: Play,
) -> dict[str, object]:
    """Absorbs a result per (deal, seating): e1's margin, ``"e1"``/``"e2"`` for a
    forfeit by that entry (e1 ahead by 500 all the same), None for a no contest."""
    played = []
    for m in matches:
        what = play[(m.deal, m.match_id[-1])]
        sign = 1 if m.entries[0] == "e1" else -1
        if what is None:
            played.append(Played(m.match_id, None))
        elif isinstance(what, str):
            played.append(Played(m.match_id, result(m, sign * 500, forfeit_by=what)))
        else:
            played.append(Played(m.match_id, result(m, sign * what)))
    state = fmt.absorb(state, played)
    assert fmt.decided(state)
    knockout = fmt.standings(state)["knockout"]
    ParseDict({"knockout": knockout}, arena_pb2.Standings())
    (tie,) = knockout["rounds"][0]["ties"]
    assert knockout["champion"] == tie["winner"]
    return {k: tie[k] for k in ("a", "a_units", "b_units", "winner", "decided_by")}


def test_more_units_win_the_tie() -> None:
    fmt, state, matches = one_tie(3)
    # e2 takes two deals by a point each; e1 one by 100.
    play = {(0, "a"): 100, (0, "b"): 0, (1, "a"): -1, (1, "b"): 0, (2, "a"): 0, (2, "b"): -1}
    assert settle(fmt, state, matches, play) == {
        "a": "e1",
        "a_units": 1.0,
        "b_units": 2.0,
        "winner": "e2",
        "decided_by": "units",
    }


def test_level_on_units_the_margin_decides_and_a_forfeit_adds_no_margin() -> None:
    fmt, state, matches = one_tie(2)
    # Deal 0: e2 forfeits one half (scored 500 behind, which does not count) and leads
    # the other by 15: e1's unit. Deal 1: e2's by 10. Margin: e1 -25.
    play: Play = {(0, "a"): "e2", (0, "b"): -15, (1, "a"): -4, (1, "b"): -6}
    assert settle(fmt, state, matches, play) == {
        "a": "e1",
        "a_units": 1.0,
        "b_units": 1.0,
        "winner": "e2",
        "decided_by": "margin",
    }
    fmt, state, matches = one_tie(2)
    play = {(0, "a"): 40, (0, "b"): -15, (1, "a"): -4, (1, "b"): -6}
    assert settle(fmt, state, matches, play)["winner"] == "e1"


def test_level_on_units_and_margin_the_higher_seed_goes_on() -> None:
    # Deal 0 level; deal 1 not contested in one half, so its 100-point half is void.
    play = {(0, "a"): 7, (0, "b"): -7, (1, "a"): None, (1, "b"): 100}
    for seeding, winner in ((None, "e1"), (["e2", "e1"], "e2")):
        fmt, state, matches = one_tie(2, seeding=seeding)
        tie = settle(fmt, state, matches, play)
        assert (tie["a"], tie["a_units"], tie["b_units"]) == (winner, 0.5, 0.5)
        assert (tie["winner"], tie["decided_by"]) == (winner, "seed")


def test_a_bye_goes_on_at_once() -> None:
    fmt = Knockout(field(3), {})
    state, matches = fmt.next(fmt.start(), 100)
    bye, _ = state["rounds"][0]["ties"]
    assert (bye["a"], bye["b"], bye["winner"], bye["decided_by"]) == ("e1", "", "e1", "bye")
    assert {m.entries for m in matches} == {("e2", "e3"), ("e3", "e2")}
    ParseDict(fmt.standings(state), arena_pb2.Standings())


def test_a_round_waits_for_every_tie_of_the_one_before_and_decided_is_the_final_out() -> None:
    fmt = Knockout(field(4), {})
    assert fmt.total() == 3 * 2
    state, matches = fmt.next(fmt.start(), 100)
    assert len(matches) == 4
    state = fmt.absorb(state, [Played(m.match_id, result(m, 3)) for m in matches[:3]])
    assert fmt.next(state, 100)[1] == [] and not fmt.decided(state)
    state = fmt.absorb(state, [Played(matches[3].match_id, result(matches[3], 3))])
    state, final = fmt.next(state, 1)
    assert len(final) == 1 and not fmt.decided(state)
    state, rest = fmt.next(state, 100)
    assert len(rest) == 1 and fmt.decided(state)
    assert fmt.standings(state)["knockout"]["champion"] == ""


def test_a_round_handed_out_in_pieces_is_the_round_handed_out_whole() -> None:
    def make() -> Knockout:
        return Knockout(field(11, games=("seep", "bid-euchre"), deals=2), {})

    whole = pieces(make, random_results(9), (1, 2, 3, 5, 13))
    assert whole.matches[0].match_id == "t1-knockout-r1-t2-seep-0-a"  # tie 1 is a bye


def test_unit_names_and_seeds_follow_the_deal_key_convention_open_or_paired() -> None:
    for paired in (True, False):
        fmt = Knockout(field(6, games=("seep", "bid-euchre"), deals=3, paired=paired), {})
        check_matches(fmt, drive(fmt, random_results(1)).matches)


@pytest.mark.parametrize(
    ("n", "params", "message"),
    [
        (1, {}, "a knockout needs at least 2 entries, got 1"),
        (
            3,
            {"seeding": ["e1", "e2"]},
            "a knockout's seeding lists every entry exactly once, best first: e1, e2, e3 in some order; got ['e1', 'e2']",
        ),
        (
            3,
            {"seeding": ["e1", "e2", "e2"]},
            "a knockout's seeding lists every entry exactly once, best first: e1, e2, e3 in some order; got ['e1', 'e2', 'e2']",
        ),
        (
            2,
            {"seeding": ["e1", "x"]},
            "a knockout's seeding lists every entry exactly once, best first: e1, e2 in some order; got ['e1', 'x']",
        ),
        (
            2,
            {"seeding": "e1e2"},
            "a knockout's seeding lists every entry exactly once, best first: e1, e2 in some order; got 'e1e2'",
        ),
    ],
)
def test_invalid_knockouts_say_what_is_allowed(
    n: int, params: dict[str, object], message: str
) -> None:
    with pytest.raises(InvalidFormat, match=f"^{re.escape(message)}$"):
        Knockout(field(n), params)


def test_every_entry_must_play_every_game() -> None:
    games = ("seep", "baloot")
    with pytest.raises(
        InvalidFormat,
        match=r"^every entry must play every game of the tournament: e2 lacks baloot; choose games they all play$",
    ):
        Knockout(field(2, games=games, games_of={"e1": games, "e2": ("seep",)}), {})


def test_knockout_is_registered() -> None:
    assert FORMATS["knockout"] is Knockout
