"""The fault policy as pure rules, with no bot, no gRPC and no process: when a team
forfeits, what a forfeit before play ends as, what a fault costs, what is a fault, and
which move the referee plays instead. The referee and ``arena replay verify`` both ask
these rules (``tests/replay/test_verify_forfeits.py`` holds verify to them)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from arena.games import State, game_names, get_game
from arena.match_rules.faults import (
    KIND_NAMES,
    OUT_OF_TIME,
    Fault,
    FaultKind,
    FaultLedger,
    FaultPolicy,
    answer_fault,
    ending_before_play,
    forfeit_winner,
    substitute_action,
)
from arena.v1 import bot_pb2, referee_pb2

FOUR_SEATS = (0, 1, 0, 1)  # seats 0 and 2 are team 0, seats 1 and 3 team 1
ILLEGAL = referee_pb2.FAULT_KIND_ILLEGAL_ACTION


def fault(seat: int, decision: int = 0, kind: FaultKind = ILLEGAL) -> Fault:
    return Fault(seat, decision, kind, "test")


@pytest.mark.parametrize("max_faults", [1, 2, 3, 7])
def test_a_team_forfeits_on_exactly_its_max_faults_th_fault(max_faults: int) -> None:
    ledger = FaultLedger(FaultPolicy(max_faults), FOUR_SEATS)
    verdicts = [ledger.record(fault(1, decision)) for decision in range(max_faults)]
    assert verdicts == [None] * (max_faults - 1) + [1]


def test_the_faults_of_a_teams_seats_add_up() -> None:
    ledger = FaultLedger(FaultPolicy(3), FOUR_SEATS)
    assert ledger.record(fault(1)) is None
    assert ledger.record(fault(3)) is None
    assert ledger.record(fault(1)) == 1  # two by seat 1 and one by seat 3
    assert [ledger.seat_faults(s) for s in range(4)] == [0, 2, 0, 1]
    assert (ledger.team_faults(0), ledger.team_faults(1)) == (0, 3)


def test_a_fault_of_the_other_team_does_not_count() -> None:
    ledger = FaultLedger(FaultPolicy(3), FOUR_SEATS)
    for seat in (1, 0, 2, 3):  # two faults a team
        assert ledger.record(fault(seat)) is None
    assert ledger.record(fault(2)) == 0  # team 0's third, whatever team 1 has
    assert (ledger.team_faults(0), ledger.team_faults(1)) == (3, 2)


def test_the_policy_counts_faults_of_every_kind_alike() -> None:
    # Every kind but LEFT, which forfeits at once (below).
    counted = [k for k in KIND_NAMES if k != referee_pb2.FAULT_KIND_LEFT]
    ledger = FaultLedger(FaultPolicy(len(counted)), FOUR_SEATS)
    verdicts = [ledger.record(fault(1, i, kind)) for i, kind in enumerate(counted)]
    assert verdicts[-1] == 1 and set(verdicts[:-1]) == {None}


def test_a_team_unreachable_before_the_first_move_forfeits_whatever_max_faults() -> None:
    # No ledger, no limit: one unreachable seat is enough, for either team.
    assert ending_before_play({1}, 2) == (referee_pb2.MATCH_END_FORFEIT, 1)
    assert ending_before_play({0}, 2) == (referee_pb2.MATCH_END_FORFEIT, 0)


def test_a_match_nobody_can_play_is_no_contest() -> None:
    assert ending_before_play({0, 1}, 2) == (referee_pb2.MATCH_END_NO_CONTEST, None)


def test_after_a_forfeit_the_other_team_wins() -> None:
    assert forfeit_winner(0, 2) == 1
    assert forfeit_winner(1, 2) == 0
    assert forfeit_winner(None, 2) is None  # no contest: nobody wins
    assert forfeit_winner(0, 3) is None  # no single "other team"


def test_a_bot_waited_for_until_its_time_ran_out_has_spent_its_bank() -> None:
    # An unreachable bot is waited for like a slow one, so it costs the bank like one.
    assert {referee_pb2.FAULT_KIND_TIMEOUT, referee_pb2.FAULT_KIND_UNREACHABLE} == OUT_OF_TIME


def answer(action: int, match_id: str = "m", decision: int | None = None) -> bot_pb2.ActResponse:
    return bot_pb2.ActResponse(action_id=action, match_id=match_id, decision_index=decision)


def judged(response: bot_pb2.ActResponse) -> tuple[FaultKind, str] | None:
    return answer_fault(response, match_id="m", decision_index=7, legal=[3, 5])


def test_a_legal_answer_for_this_decision_is_no_fault() -> None:
    assert judged(answer(5, decision=7)) is None
    assert judged(answer(3, match_id="")) is None  # naming neither match nor decision is fine


def test_an_answer_that_names_another_decision_is_a_wrong_match_fault() -> None:
    assert judged(answer(5, decision=6)) == (
        referee_pb2.FAULT_KIND_WRONG_MATCH,
        "answer names decision 6; the request was 7",
    )


def test_an_answer_for_another_match_is_a_wrong_match_fault() -> None:
    assert judged(answer(5, match_id="other")) == (
        referee_pb2.FAULT_KIND_WRONG_MATCH,
        "answer names match 'other'",
    )


def test_an_id_outside_the_legal_list_is_an_illegal_action_fault() -> None:
    assert judged(answer(4)) == (ILLEGAL, "action id 4 is not one of the 2 legal ids")


def test_the_substitute_is_fixed_by_seed_and_decision() -> None:
    legal = list(range(0, 60, 3))
    picks = {(seed, d): substitute_action(seed, d, legal) for seed in range(20) for d in range(20)}
    assert picks == {(s, d): substitute_action(s, d, list(legal)) for s, d in picks}
    assert len(set(picks.values())) > 10  # random, not the first id every time
    assert substitute_action(1, 2, legal) == substitute_action(1, 2, legal)


def states() -> Iterator[tuple[int, State]]:
    """States of every game along random play, with the seed each was dealt from."""
    for name in game_names():
        for seed in range(3):
            state = get_game(name).new_state(seed)
            moves = random.Random(seed)
            for _ in range(40):
                if state.is_terminal():
                    break
                yield seed, state
                state.apply(moves.choice(state.legal_actions()))


def test_the_substitute_is_always_legal() -> None:
    checked = 0
    for seed, state in states():
        legal = state.legal_actions()
        for decision in range(5):
            assert substitute_action(seed, decision, legal) in legal
            checked += 1
    assert checked > 100


def test_a_recorded_fault_reads_back_as_the_same_fault() -> None:
    made = Fault(3, 41, referee_pb2.FAULT_KIND_UNREACHABLE, "gone", "play QH")
    assert Fault.from_json(made.to_json()) == made
