"""The scheduler's rules (``workers.schedule_step.step``), each on its own, with a fake
clock, fake lookups and a fake format: no Redis, no Celery, no worker process."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import pytest

from arena.store.results import MatchResult
from arena.tournament import formats
from arena.tournament.formats import ladder_suspension
from arena.tournament.schedule import ScheduledMatch
from arena.v1 import arena_pb2
from workers.schedule_step import (
    HELD,
    Actions,
    Capacity,
    Ladder,
    Tournament,
    fair_share,
    step,
)

T = "t1"
RULES = ladder_suspension.Rules(suspend_after=2, first_hold_s=60.0, probe_every_s=60.0)
LADDER = Ladder(ratings_every=3, suspension=RULES)
ROOMY = Capacity(window=1000, processes=500, running=1)
"""So much room that neither the window nor the share limits a step."""


class Pairs(formats.Format):
    """Hands out ``units`` duplicate pairs (``a`` half, then ``b`` half), in order, and
    remembers every match id it was fed; decided once all are handed out."""

    name: ClassVar[str] = "pairs"
    proto: ClassVar[arena_pb2.TournamentFormat.ValueType] = arena_pb2.FORMAT_UNSPECIFIED
    title: ClassVar[str] = "Pairs"

    def __init__(self, units: int = 4) -> None:
        field_ = formats.Field(
            tournament_id=T,
            entries=("x", "y", "z"),
            games=("seep",),
            games_of={e: ("seep",) for e in ("x", "y", "z")},
            deals=1,
            master_seed=7,
            paired=True,
        )
        super().__init__(field_, {})
        self.units = units
        self.asked: list[int] = []
        """The room of every ``next`` call."""

    def all(self) -> list[ScheduledMatch]:
        return [
            m
            for u in range(self.units)
            for m in formats.base.unit_matches(self.field, f"u{u}", "seep", "x", "y", u)
        ]

    def total(self) -> int:
        return 2 * self.units

    def start(self) -> formats.State:
        return {"issued": 0, "fed": []}

    def next(self, state: formats.State, room: int) -> tuple[formats.State, list[ScheduledMatch]]:
        self.asked.append(room)
        new = self.all()[state["issued"] : state["issued"] + room]
        return {**state, "issued": state["issued"] + len(new)}, new

    def absorb(self, state: formats.State, played: Sequence[formats.Played]) -> formats.State:
        return {**state, "fed": [*state["fed"], *(p.match_id for p in played)]}

    def decided(self, state: formats.State) -> bool:
        return bool(state["issued"] >= self.total())


class EarlyPairs(Pairs):
    decides_early = True


class Forever(Pairs):
    plays_forever = True

    def decided(self, state: formats.State) -> bool:
        return False


class Suspending(Forever):
    """Suspends as a ladder does (``ladder_suspension``), every match's unit being 0."""

    suspends = True
    seen: list[tuple[list[str], float]]

    def suspend(
        self,
        state: formats.State,
        played: Sequence[MatchResult],
        rules: ladder_suspension.Rules,
        now: float,
    ) -> formats.State:
        self.seen.append(([r.match_id for r in played], now))
        conduct = [ladder_suspension.conduct(r) for r in played]
        return ladder_suspension.note(state, conduct, lambda _: 0, rules, now)

    def resume(self, state: formats.State, answered: Collection[str]) -> formats.State:
        state = ladder_suspension.keep_only(state, self.field.entries)
        return ladder_suspension.resume(state, answered, 1)


@dataclass
class Lookups:
    """Answers from dicts, and remembers what it was asked."""

    ended_firsts: set[str] = field(default_factory=set)
    hello: set[str] = field(default_factory=set)
    asked_ended: list[set[str]] = field(default_factory=list)
    asked_answered: list[dict[str, int]] = field(default_factory=list)

    def answered(self, suspended: Mapping[str, int]) -> Collection[str]:
        self.asked_answered.append(dict(suspended))
        return {e for e in suspended if e in self.hello}

    def ended(self, firsts: set[str]) -> Collection[str]:
        self.asked_ended.append(set(firsts))
        return firsts & self.ended_firsts


class Clock:
    """A fake clock that moves 10 s each time it is read."""

    def __init__(self, at: float = 1000.0) -> None:
        self.at = at

    def __call__(self) -> float:
        self.at += 10.0
        return self.at


def result(match_id: str, forfeit_team: int | None = None) -> MatchResult:
    return MatchResult(
        match_id=match_id,
        tournament_id=T,
        game="seep",
        pair_key=match_id.rsplit("-", 1)[0],
        deal=0,
        seed=1,
        entries=("x", "y"),
        scores=(3, 1),
        winner_team=0 if forfeit_team is None else 1 - forfeit_team,
        end="completed" if forfeit_team is None else "forfeit",
        forfeit_team=forfeit_team,
        team_faults=(0, 0),
        team_fault_kinds=None,
        decisions=40,
        duration_ms=12.0,
        replay_id=match_id,
        referee="127.0.0.1:1",
        finished_at=None,
        deal_key="u0",
        paired=True,
        deal_commitment="c" * 64,
        deal_salt="5" * 32,
        referee_match_id=f"{match_id}-0",
        fair_play=None,
        operator_seed=None,
    )


def run(
    fmt: formats.Format,
    scheduler: formats.State | None = None,
    issued: int = 0,
    done: int = 0,
    results: Sequence[Sequence[MatchResult]] = (),
    capacity: Capacity = ROOMY,
    lookups: Lookups | None = None,
    clock: Clock | None = None,
) -> Actions:
    return step(
        Tournament(T, scheduler, issued=issued, done=done),
        fmt,
        results,
        capacity,
        LADDER,
        clock or Clock(),
        lookups or Lookups(),
    )


def ids(matches: Sequence[ScheduledMatch]) -> list[str]:
    return [m.match_id for m in matches]


# Results: each fed once, in order, and the cursor moves past them.


def test_each_result_is_fed_once_in_order_and_the_cursor_moves_past_it() -> None:
    fmt = Pairs()
    first = run(fmt, issued=0, results=[[result("t1-u0-a"), result("t1-u0-b")], [result("x")]])
    assert first.state is not None
    assert first.state["cursor"] == 3
    assert first.state["format"]["fed"] == ["t1-u0-a", "t1-u0-b", "x"]
    again = run(fmt, scheduler=first.state, issued=8, done=8)  # nothing new stored
    assert again.state is None  # nothing fed twice, nothing to write


# The window: at most ``window`` matches handed out without a result.


def test_the_window_bounds_what_is_out_without_a_result() -> None:
    fmt = Pairs(units=10)
    state = {"cursor": 0, "format": {"issued": 3, "fed": []}}
    actions = run(fmt, state, issued=3, done=0, capacity=Capacity(5, 500, 1))
    assert fmt.asked == [2] and len(actions.new) == 2  # 3 out, room for 2


def test_a_full_window_hands_out_nothing_and_asks_the_format_for_nothing() -> None:
    fmt = Pairs(units=10)
    state = {"cursor": 0, "format": {"issued": 5, "fed": []}}
    actions = run(fmt, state, issued=5, done=0, capacity=Capacity(5, 500, 1))
    assert fmt.asked == [] and actions.new == () and actions.queue == ()


def test_results_make_room_in_the_window() -> None:
    fmt = Pairs(units=10)
    state = {"cursor": 0, "format": {"issued": 5, "fed": []}}
    actions = run(fmt, state, issued=5, done=2, capacity=Capacity(5, 500, 1))
    assert fmt.asked == [2]
    assert ids(actions.new) == ["t1-u2-b", "t1-u3-a"]


# The fair share: each running tournament an equal part of PER_PROCESS a process.


@pytest.mark.parametrize(
    ("running", "processes", "share"),
    [(1, 0, 2), (1, 1, 2), (1, 4, 8), (2, 4, 4), (3, 4, 3), (8, 4, 2), (0, 4, 8)],
)
def test_the_fair_share(running: int, processes: int, share: int) -> None:
    assert fair_share(running, processes) == share
    assert Capacity(256, processes, running).share == share


def test_the_per_process_cap_bounds_what_a_tournament_has_out() -> None:
    fmt = Pairs(units=10)
    # Two processes, one tournament: 2 x 2 = 4 out at most, of which 1 is out.
    actions = run(fmt, {"cursor": 0, "format": {"issued": 1, "fed": []}}, issued=1, done=0,
                  capacity=Capacity(256, processes=2, running=1))  # fmt: skip
    assert fmt.asked == [3] and len(actions.new) == 3


def test_tournaments_running_together_split_the_workers() -> None:
    alone, shared = Pairs(units=10), Pairs(units=10)
    run(alone, issued=0, capacity=Capacity(256, processes=6, running=1))
    run(shared, issued=0, capacity=Capacity(256, processes=6, running=3))
    assert alone.asked == [12] and shared.asked == [4]


def test_a_tournament_gets_its_minimum_share_before_any_worker_announces_itself() -> None:
    fmt = Pairs(units=10)
    run(fmt, issued=0, capacity=Capacity(256, processes=0, running=5))
    assert fmt.asked == [2]


def test_held_second_halves_do_not_count_in_flight() -> None:
    # 3 out, 2 of them held: 1 queued or playing, so a share of 2 leaves room for 1.
    state = {"cursor": 0, "format": {"issued": 3, "fed": []}, HELD: {"h1": "f1", "h2": "f2"}}
    fmt = Pairs(units=10)
    run(fmt, state, issued=3, done=0, capacity=Capacity(256, processes=1, running=1))
    assert fmt.asked == [1]


def test_a_format_that_decides_early_counts_its_held_halves() -> None:
    state = {"cursor": 0, "format": {"issued": 3, "fed": []}, HELD: {"h1": "f1", "h2": "f2"}}
    fmt = EarlyPairs(units=10)
    actions = run(fmt, state, issued=3, done=0, capacity=Capacity(256, processes=1, running=1))
    assert fmt.asked == [] and actions.new == ()


def test_held_halves_still_count_in_the_window() -> None:
    state = {"cursor": 0, "format": {"issued": 3, "fed": []}, HELD: {"h1": "f1", "h2": "f2"}}
    fmt = Pairs(units=10)
    run(fmt, state, issued=3, done=0, capacity=Capacity(window=4, processes=500, running=1))
    assert fmt.asked == [1]


# Held second halves: queued once their first half has ended, once.


def test_a_second_half_is_held_until_its_first_half_has_ended() -> None:
    fmt, lookups = Pairs(units=2), Lookups()
    first = run(fmt, issued=0, lookups=lookups)
    assert ids(first.new) == ["t1-u0-a", "t1-u0-b", "t1-u1-a", "t1-u1-b"]
    assert first.queue == ("t1-u0-a", "t1-u1-a")
    assert first.state is not None
    assert first.state[HELD] == {"t1-u0-b": "t1-u0-a", "t1-u1-b": "t1-u1-a"}
    assert lookups.asked_ended == [{"t1-u0-a", "t1-u1-a"}]

    lookups = Lookups(ended_firsts={"t1-u1-a"})
    second = run(fmt, first.state, issued=4, done=1, lookups=lookups)
    assert second.queue == ("t1-u1-b",) and second.new == ()
    assert second.state is not None and second.state[HELD] == {"t1-u0-b": "t1-u0-a"}

    lookups = Lookups(ended_firsts={"t1-u0-a", "t1-u1-a"})
    third = run(fmt, second.state, issued=4, done=2, lookups=lookups)
    assert third.queue == ("t1-u0-b",)
    assert third.state is not None and HELD not in third.state  # queued once, then gone


def test_a_second_half_handed_out_after_its_first_half_ended_is_queued_at_once() -> None:
    fmt = Pairs(units=2)
    state = {"cursor": 1, "format": {"issued": 1, "fed": ["t1-u0-a"]}}
    actions = run(
        fmt,
        state,
        issued=1,
        done=1,
        capacity=Capacity(window=1, processes=500, running=1),
        lookups=Lookups(ended_firsts={"t1-u0-a"}),
    )
    assert ids(actions.new) == ["t1-u0-b"] and actions.queue == ("t1-u0-b",)


def test_unpaired_matches_are_queued_without_asking_what_ended() -> None:
    fmt, lookups = Pairs(units=1), Lookups()
    fmt.field = formats.Field(**{**fmt.field.__dict__, "paired": False})
    actions = run(fmt, issued=0, lookups=lookups)
    assert actions.queue == ("t1-u0-a", "t1-u0-b") and lookups.asked_ended == []


# A ladder's refits of the arena's ratings: each time its results cross a multiple.


@pytest.mark.parametrize(
    ("before", "after", "refit"),
    [(0, 2, False), (2, 3, True), (3, 5, False), (5, 7, True), (0, 7, True), (3, 3, False)],
)
def test_a_ladder_refits_when_its_result_count_crosses_a_multiple(
    before: int, after: int, refit: bool
) -> None:
    state = {"cursor": before, "format": {"issued": 0, "fed": []}}
    batch = [result(f"t1-r{i}-a") for i in range(before, after)]
    actions = run(Forever(), state, results=[batch] if batch else [])
    expected = f"pairs {T} at {after} results" if refit else None
    assert actions.refit == expected


def test_a_format_that_finishes_is_never_refitted_as_it_goes() -> None:
    state = {"cursor": 2, "format": {"issued": 0, "fed": []}}
    actions = run(Pairs(), state, results=[[result("t1-u0-a"), result("t1-u0-b")]])
    assert actions.refit is None


# When to finish.


def test_a_decided_format_finishes_once_every_match_out_has_a_result() -> None:
    fmt = Pairs(units=1)
    state = {"cursor": 2, "format": {"issued": 2, "fed": []}}
    assert run(fmt, state, issued=2, done=2).finish
    assert not run(fmt, state, issued=2, done=1).finish


def test_an_undecided_format_does_not_finish() -> None:
    fmt = Pairs(units=2)
    state = {"cursor": 2, "format": {"issued": 2, "fed": []}}
    capacity = Capacity(window=2, processes=500, running=1)  # room for none
    actions = run(fmt, state, issued=2, done=0, capacity=capacity)
    assert actions.new == () and not actions.finish


def test_the_matches_handed_out_by_the_step_itself_must_be_played_first() -> None:
    fmt = Pairs(units=2)  # the last pair, handed out now, decides it
    state = {"cursor": 2, "format": {"issued": 2, "fed": []}}
    actions = run(fmt, state, issued=2, done=2)
    assert len(actions.new) == 2 and not actions.finish


def test_a_format_that_plays_forever_never_finishes() -> None:
    state = {"cursor": 0, "format": {"issued": 8, "fed": []}}
    assert not run(Forever(), state, issued=8, done=8).finish


def test_a_tournament_scheduled_whole_finishes_without_a_format() -> None:
    actions = step(Tournament(T, None, issued=4, done=4), None, (), ROOMY, LADDER, Clock(),
                   Lookups())  # fmt: skip
    assert actions == Actions(finish=True)
    actions = step(Tournament(T, None, issued=4, done=3), None, (), ROOMY, LADDER, Clock(),
                   Lookups())  # fmt: skip
    assert actions == Actions(finish=False)


# What is written.


def test_the_first_step_writes_its_state_even_with_nothing_to_hand_out() -> None:
    fmt = Pairs(units=0)
    actions = run(fmt, issued=0)
    assert actions.state == {"cursor": 0, "format": {"issued": 0, "fed": []}}
    assert actions.finish  # decided, nothing out


def test_an_unchanged_state_is_not_written() -> None:
    state = {"cursor": 0, "format": {"issued": 2, "fed": []}}
    capacity = Capacity(window=2, processes=500, running=1)
    assert run(Pairs(units=2), state, issued=2, done=0, capacity=capacity).state is None


# A ladder's suspensions: counted per batch at the clock's time, resumed on Hello.


def test_suspensions_count_each_batch_at_the_clocks_time_and_are_reported() -> None:
    fmt = Suspending(units=10)
    fmt.seen = []
    state = {"cursor": 0, "format": {"issued": 0, "fed": []}}
    batches = [[result("t1-u0-a", forfeit_team=1)], [result("t1-u0-b", forfeit_team=1)]]
    actions = run(fmt, state, results=batches, clock=Clock(at=1000.0))
    assert fmt.seen == [(["t1-u0-a"], 1010.0), (["t1-u0-b"], 1020.0)]
    assert [entry for entry, _ in actions.suspended] == ["y"]
    assert "forfeited" in actions.suspended[0][1]
    assert actions.state is not None
    held = ladder_suspension.suspended(actions.state["format"])
    assert held["y"]["since"] == 1020.0


def test_a_suspended_entry_whose_hello_answered_is_paired_again() -> None:
    fmt = Suspending(units=10)
    fmt.seen = []
    state = {"cursor": 0, "format": {"issued": 0, "fed": []}}
    forfeits = [[result("t1-u0-a", forfeit_team=1), result("t1-u0-b", forfeit_team=1)]]
    suspended = run(fmt, state, results=forfeits)
    assert suspended.state is not None and suspended.resumed == ()

    silent = Lookups()
    still = run(fmt, suspended.state, lookups=silent)
    assert silent.asked_answered == [{"y": 1}] and still.resumed == ()

    answering = Lookups(hello={"y"})
    back = run(fmt, suspended.state, lookups=answering)
    assert back.resumed == ("y",)
    assert back.state is not None and "y" not in ladder_suspension.suspended(back.state["format"])


def test_nothing_is_asked_of_the_probes_when_no_entry_is_suspended() -> None:
    fmt, lookups = Suspending(units=10), Lookups()
    fmt.seen = []
    run(fmt, {"cursor": 0, "format": {"issued": 0, "fed": []}}, lookups=lookups)
    assert lookups.asked_answered == []
