"""The fault policy: what is a fault, what it costs, and when a team forfeits.

The referee (``arena.referee.match``) and ``arena replay verify`` both ask this module,
so a replay verifies exactly when the referee would have done what it records.

- A fault is a decision without a good answer in time: no answer within the seat's
  allowance (its deadline plus what is left of its time bank), a gRPC error, a bot that
  could not be reached for the whole allowance, an id outside the legal list, or an
  answer that names another match or another decision. One decision makes at most one
  fault, however often a bot refused the connection meanwhile.
- Every fault is recorded, and the referee plays a legal action in the faulty seat's
  place, drawn from the match seed and the decision index so a replay re-plays exactly.
- A team forfeits on its ``max_faults``-th fault, its seats' faults added up; the match
  ends at once and the move that fault names is never played.
- A seat that answers ``LEAVE`` (2^64 - 1, an id no game uses) has left the match: a
  person who quit ``arena play``. That is a ``left`` fault, and its team forfeits on it at
  once, whatever ``max_faults`` says.
- A team whose bot cannot be reached before the first move forfeits at once, whatever
  ``max_faults`` says; so does one whose bot the operator's bot network policy forbids
  the referee to dial (``arena.bot_networks``). When no team can play, the match is no
  contest.
- After a forfeit the other team wins, when there are two.
- A referee's fault is not a bot's. When a remote seat's bot cannot be reached or does
  not answer in time, the referee asks every other remote bot of the match; if there is
  one and none answers either, the referee has lost every bot at once, which is its own
  network far more often than every bot failing in the same instant. The match is then
  abandoned (``CutOff``): nothing is stored, and the caller plays it again elsewhere,
  unless the policy says ``charge_cut_off`` (a caller that has seen the match fail
  several times: bots that are all truly down must forfeit at last). A match with one
  remote bot has no one else to ask, and its faults are charged as any other.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from arena.v1 import bot_pb2, referee_pb2

DEFAULT_MAX_FAULTS = 3

if TYPE_CHECKING:
    FaultKind: TypeAlias = referee_pb2.FaultKind.ValueType
    MatchEnd: TypeAlias = referee_pb2.MatchEnd.ValueType
else:
    FaultKind = int
    MatchEnd = int

KIND_NAMES = {
    referee_pb2.FAULT_KIND_TIMEOUT: "timeout",
    referee_pb2.FAULT_KIND_RPC_ERROR: "rpc_error",
    referee_pb2.FAULT_KIND_UNREACHABLE: "unreachable",
    referee_pb2.FAULT_KIND_ILLEGAL_ACTION: "illegal_action",
    referee_pb2.FAULT_KIND_WRONG_MATCH: "wrong_match",
    referee_pb2.FAULT_KIND_LEFT: "left",
}
KINDS_BY_NAME = {name: kind for kind, name in KIND_NAMES.items()}
LEAVE = 2**64 - 1
"""The answer that leaves the match (``ActResponse.action_id``): the largest id, no game's."""
OUT_OF_TIME = frozenset({referee_pb2.FAULT_KIND_TIMEOUT, referee_pb2.FAULT_KIND_UNREACHABLE})
"""Faults that took the seat's whole allowance: like any timeout, they empty its bank."""


@dataclass(frozen=True)
class FaultPolicy:
    max_faults: int = DEFAULT_MAX_FAULTS
    charge_cut_off: bool = False
    """Charge the bots even for faults made while the referee had lost them all."""

    @classmethod
    def from_proto(cls, policy: referee_pb2.FaultPolicy) -> FaultPolicy:
        return cls(
            max_faults=policy.max_faults or DEFAULT_MAX_FAULTS,
            charge_cut_off=policy.charge_cut_off,
        )


class CutOff(Exception):
    """The referee lost every bot of the match at once: the match is abandoned."""


def cut_off(others_answered: Sequence[bool]) -> bool:
    """Whether a remote seat's missing answer is the referee's fault and not its bot's
    (asked only where the policy does not ``charge_cut_off``): there is another remote
    bot to ask, and none of them answered."""
    return bool(others_answered) and not any(others_answered)


@dataclass(frozen=True)
class Fault:
    seat: int
    decision_index: int
    kind: FaultKind
    detail: str
    substituted_action: str = ""

    @property
    def kind_name(self) -> str:
        return KIND_NAMES[self.kind]

    def to_proto(self) -> referee_pb2.Fault:
        return referee_pb2.Fault(
            seat=self.seat,
            decision_index=self.decision_index,
            kind=self.kind,
            detail=self.detail,
            substituted_action=self.substituted_action,
        )

    def to_json(self) -> dict[str, object]:
        return {
            "seat": self.seat,
            "decision": self.decision_index,
            "kind": self.kind_name,
            "detail": self.detail,
            "substituted_action": self.substituted_action,
        }

    @classmethod
    def from_json(cls, fault: Mapping[str, Any]) -> Fault:
        """The fault a replay records (``to_json``); KeyError for a kind it does not know."""
        return cls(
            fault["seat"],
            fault["decision"],
            KINDS_BY_NAME[fault["kind"]],
            fault["detail"],
            fault["substituted_action"],
        )


def answer_fault(
    answer: bot_pb2.ActResponse, *, match_id: str, decision_index: int, legal: Sequence[int]
) -> tuple[FaultKind, str] | None:
    """What is wrong with an answer that came in time, if anything: it names another
    decision or another match (an empty name is accepted), it leaves the match
    (``LEAVE``), or its id is not legal."""
    if answer.HasField("decision_index") and answer.decision_index != decision_index:
        return (
            referee_pb2.FAULT_KIND_WRONG_MATCH,
            f"answer names decision {answer.decision_index}; the request was {decision_index}",
        )
    if answer.match_id and answer.match_id != match_id:
        return referee_pb2.FAULT_KIND_WRONG_MATCH, f"answer names match {answer.match_id!r}"
    if answer.action_id == LEAVE and LEAVE not in legal:
        return referee_pb2.FAULT_KIND_LEFT, "the seat's player left the match"
    if answer.action_id not in legal:
        return (
            referee_pb2.FAULT_KIND_ILLEGAL_ACTION,
            f"action id {answer.action_id} is not one of the {len(legal)} legal ids",
        )
    return None


def substitute_action(seed: int, decision_index: int, legal: Sequence[int]) -> int:
    """The legal action played for a faulty seat: random, but fixed by seed and decision."""
    return random.Random(f"substitute:{seed}:{decision_index}").choice(legal)


def ending_before_play(
    failed_teams: Collection[int], num_teams: int
) -> tuple[MatchEnd, int | None]:
    """How a match ends when the bots of ``failed_teams`` (not empty) cannot be reached
    before the first move: (end, forfeiting team). No move is played, so ``max_faults``
    has no say."""
    if len(failed_teams) < num_teams:
        return referee_pb2.MATCH_END_FORFEIT, min(failed_teams)
    return referee_pb2.MATCH_END_NO_CONTEST, None


def forfeit_winner(forfeit_team: int | None, num_teams: int) -> int | None:
    """The winner of a match ``forfeit_team`` forfeited: the other team, if there is one."""
    if forfeit_team is None or num_teams != 2:
        return None
    return 1 - forfeit_team


class FaultLedger:
    """One match's faults, in order: counts them and decides when a team forfeits."""

    def __init__(self, policy: FaultPolicy, seat_teams: Sequence[int]) -> None:
        self.policy = policy
        self.seat_teams = tuple(seat_teams)
        self.faults: list[Fault] = []

    def record(self, fault: Fault) -> int | None:
        """Record a fault; returns the team that forfeits on it, if any. (Before the first
        move ``ending_before_play`` decides instead.)"""
        self.faults.append(fault)
        team = self.seat_teams[fault.seat]
        if fault.kind == referee_pb2.FAULT_KIND_LEFT:  # the player left: no more to play
            return team
        if self.team_faults(team) >= self.policy.max_faults:
            return team
        return None

    def seat_faults(self, seat: int) -> int:
        return sum(1 for f in self.faults if f.seat == seat)

    def team_faults(self, team: int) -> int:
        return sum(1 for f in self.faults if self.seat_teams[f.seat] == team)
