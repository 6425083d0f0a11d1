"""A ladder's suspensions as pure functions: an entry whose latest matches are all
forfeited or faulted by it is not paired; one that answers Hello is paired again, and
only its matches from then on count; each suspension waits longer before its first
Hello; an entry that leaves takes its suspension with it."""

from __future__ import annotations

from collections.abc import Sequence

from google.protobuf import json_format

from arena.tournament.formats import ladder_suspension as ls
from arena.tournament.formats.base import Field, State
from arena.tournament.formats.ladder import Ladder
from arena.tournament.schedule import ScheduledMatch
from arena.v1 import arena_pb2
from tests.records import result

RULES = ls.Rules(suspend_after=3, first_hold_s=10.0, max_hold_s=35.0, probe_every_s=4.0)
FAILED = ls.Failure(forfeited=True, faults=3, kinds={"unreachable": 3})


def ladder(entries: str = "abc") -> Ladder:
    names = tuple(entries)
    return Ladder(Field("t", names, ("g",), dict.fromkeys(names, ("g",)), 1, 7, False), {})


def hand_out(format: Ladder, state: State, units: int) -> tuple[State, list[ScheduledMatch]]:
    """``units`` units, over as many calls as it takes (one call draws each pairing once)."""
    out: list[ScheduledMatch] = []
    while len(out) < 2 * units:
        state, new = format.next(state, 2 * units - len(out))
        if not new:
            break
        out += new
    return state, out


def conducts(
    matches: Sequence[ScheduledMatch], bad: str = "", faulty: str = ""
) -> list[ls.Conduct]:
    """Each match as played: ``bad`` forfeits every one it plays, ``faulty`` makes one
    timeout in each (and plays on), everyone else plays clean."""

    def failure(entry: str) -> ls.Failure | None:
        if entry == bad:
            return FAILED
        if entry == faulty:
            return ls.Failure(False, 1, {"timeout": 1})
        return None

    return [ls.Conduct(m.match_id, m.entries, tuple(map(failure, m.entries))) for m in matches]


def involving(matches: Sequence[ScheduledMatch], entry: str) -> list[ScheduledMatch]:
    return [m for m in matches if entry in m.entries]


def test_an_entry_whose_last_matches_all_failed_is_suspended_and_no_longer_paired() -> None:
    format = ladder()
    state, out = hand_out(format, format.start(), 30)
    failed = involving(out, "c")[:3]
    state = ls.note(state, conducts(failed, bad="c"), format.unit_number, RULES, 1000.0)
    held = ls.suspended(state)
    assert list(held) == ["c"]
    assert held["c"]["reason"] == (
        "its last 3 matches were all forfeited or faulted by it: 3 forfeited, 9 faults "
        "(unreachable: 9)"
    )
    assert held["c"]["since"] == 1000.0 and held["c"]["times"] == 1
    assert held["c"]["probe_from"] == 1010.0 and held["c"]["probe_every"] == 4.0
    # Its opponents made no fault: nothing counts against them.
    assert ls.suspended(state).keys() == {"c"} and state[ls.KEY]["streaks"] == {}
    assert format.players("g", state) == ["a", "b"]
    state, later = hand_out(format, state, 20)
    assert later and not involving(later, "c")  # only a and b are paired now


def test_one_clean_match_resets_the_count_and_faults_count_as_failures() -> None:
    format = ladder()
    state, out = hand_out(format, format.start(), 40)
    mine = involving(out, "c")
    assert len(mine) >= 8
    # Two forfeits, a clean match, two matches with a timeout each: never three in a row.
    played = [
        *conducts(mine[:2], bad="c"),
        *conducts(mine[2:3]),
        *conducts(mine[3:5], faulty="c"),
    ]
    state = ls.note(state, played, format.unit_number, RULES, 0.0)
    assert not ls.suspended(state)
    assert state[ls.KEY]["streaks"]["c"] == {"matches": 2, "forfeits": 0, "faults": {"timeout": 2}}
    # A third faulty match in a row suspends it: a fault is a failure, played on or not.
    state = ls.note(state, conducts(mine[5:6], faulty="c"), format.unit_number, RULES, 5.0)
    assert ls.suspended(state)["c"]["reason"] == (
        "its last 3 matches were all forfeited or faulted by it: 0 forfeited, 3 faults (timeout: 3)"
    )


def test_results_of_another_ladder_or_arriving_while_suspended_do_not_count() -> None:
    format = ladder()
    state, out = hand_out(format, format.start(), 40)
    mine = involving(out, "c")
    foreign = ls.Conduct("u-ladder-0-a", ("c", "a"), (FAILED, None))
    state = ls.note(state, [foreign, foreign, foreign], format.unit_number, RULES, 0.0)
    assert not ls.suspended(state)
    state = ls.note(state, conducts(mine[:3], bad="c"), format.unit_number, RULES, 1.0)
    # Its matches still out when it was suspended are played; they change nothing.
    state = ls.note(state, conducts(mine[3:], bad="c"), format.unit_number, RULES, 2.0)
    assert ls.suspended(state)["c"]["since"] == 1.0 and ls.suspended(state)["c"]["times"] == 1


def test_an_entry_that_answers_is_paired_again_and_only_its_later_matches_count() -> None:
    format = ladder()
    state, out = hand_out(format, format.start(), 40)
    mine = involving(out, "c")
    state = ls.note(state, conducts(mine[:3], bad="c"), format.unit_number, RULES, 100.0)
    state = ls.resume(state, ["c"], state["units"])
    assert not ls.suspended(state) and format.players("g", state) == ["a", "b", "c"]
    # The failed matches that were out when it was suspended arrive after it came back:
    # they were handed out before, so they do not suspend it again.
    state = ls.note(state, conducts(mine[3:], bad="c"), format.unit_number, RULES, 200.0)
    assert not ls.suspended(state)
    state, later = hand_out(format, state, 40)
    again = involving(later, "c")
    assert len(again) >= 3  # paired again
    state = ls.note(state, conducts(again[:3], bad="c"), format.unit_number, RULES, 300.0)
    second = ls.suspended(state)["c"]
    assert second["times"] == 2 and second["probe_from"] == 300.0 + 20.0  # twice the hold
    state = ls.resume(state, ["c"], state["units"])
    state, third_round = hand_out(format, state, 40)
    state = ls.note(
        state, conducts(involving(third_round, "c")[:3], bad="c"), format.unit_number, RULES, 400.0
    )
    third = ls.suspended(state)["c"]
    assert third["times"] == 3 and third["probe_from"] == 400.0 + 35.0  # at most max_hold


def test_hellos_are_due_from_probe_from_then_every_probe_every() -> None:
    format = ladder()
    state, out = hand_out(format, format.start(), 40)
    state = ls.note(
        state, conducts(involving(out, "c")[:3], bad="c"), format.unit_number, RULES, 0.0
    )
    assert ls.due(state, 9.9, {}) == []
    assert ls.due(state, 10.0, {}) == ["c"]
    assert ls.due(state, 13.0, {"c": 10.0}) == []
    assert ls.due(state, 14.0, {"c": 10.0}) == ["c"]


def test_an_entry_that_leaves_takes_its_suspension_but_its_count_of_them_stays() -> None:
    format = ladder()
    state, out = hand_out(format, format.start(), 40)
    mine = involving(out, "c")
    state = ls.note(state, conducts(mine[:3], bad="c"), format.unit_number, RULES, 0.0)
    state = ls.note(
        state, conducts(involving(out, "b")[:1], bad="b"), format.unit_number, RULES, 0.0
    )
    assert ls.keep_only(state, {"a", "b", "c"}) is state
    left = ls.keep_only(state, {"a"})
    assert not ls.suspended(left) and left[ls.KEY]["streaks"] == {}
    assert left[ls.KEY]["times"] == {"c": 1}  # its next suspension, if it comes back, waits longer


def test_standings_are_arena_v1_ladder_standings() -> None:
    format = ladder()
    state, out = hand_out(format, format.start(), 40)
    state = ls.note(
        state, conducts(involving(out, "c")[:3], bad="c"), format.unit_number, RULES, 1.7e9
    )
    shown = json_format.ParseDict(format.standings(state), arena_pb2.Standings())
    assert shown.WhichOneof("kind") == "ladder" and shown.ladder.suspend_after == 3
    (row,) = shown.ladder.suspended
    assert row.entry == "c" and row.times == 1 and row.reason.startswith("its last 3 matches")
    assert row.since.seconds == 1_700_000_000 and row.probe_from.seconds == 1_700_000_010
    assert row.probe_every.seconds == 4


def test_a_stored_result_counts_against_the_team_that_forfeited_or_faulted() -> None:
    forfeit = result(
        match_id="t-ladder-0-a",
        game="seep",
        entries=["a", "b"],
        scores=[0, 0],
        end="forfeit",
        forfeit_team=1,
        team_faults=[1, 3],
        team_fault_kinds=[{"timeout": 1}, {"rpc_error": 3}],
    )
    assert ls.conduct(forfeit).failures == (
        ls.Failure(False, 1, {"timeout": 1}),
        ls.Failure(True, 3, {"rpc_error": 3}),
    )
    # A no contest at the decision cap, without a fault, is no one's failure.
    capped = result(
        match_id="t-ladder-1-a", game="seep", entries=["a", "b"], scores=[5, 4], end="no_contest"
    )
    assert ls.conduct(capped).failures == (None, None)
