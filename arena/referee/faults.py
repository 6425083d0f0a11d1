"""The fault policy: what the referee does when a bot misbehaves.

Every fault (timeout, gRPC error, unreachable bot, an id outside the legal list, an
answer for another match) is recorded, and the referee plays a legal action in the
faulty seat's place, chosen from the match seed so a replay is reproducible. When a
team's seats reach ``max_faults`` faults in one match, or a team's bot cannot be
reached before the first move, the match ends as a forfeit for that team.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from arena.v1 import referee_pb2

DEFAULT_MAX_FAULTS = 3

if TYPE_CHECKING:
    FaultKind: TypeAlias = referee_pb2.FaultKind.ValueType
else:
    FaultKind = int

KIND_NAMES = {
    referee_pb2.FAULT_KIND_TIMEOUT: "timeout",
    referee_pb2.FAULT_KIND_RPC_ERROR: "rpc_error",
    referee_pb2.FAULT_KIND_UNREACHABLE: "unreachable",
    referee_pb2.FAULT_KIND_ILLEGAL_ACTION: "illegal_action",
    referee_pb2.FAULT_KIND_WRONG_MATCH: "wrong_match",
}


@dataclass(frozen=True)
class FaultPolicy:
    max_faults: int = DEFAULT_MAX_FAULTS

    @classmethod
    def from_proto(cls, policy: referee_pb2.FaultPolicy) -> FaultPolicy:
        return cls(max_faults=policy.max_faults or DEFAULT_MAX_FAULTS)


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


def substitute_action(seed: int, decision_index: int, legal: Sequence[int]) -> int:
    """The legal action played for a faulty seat: random, but fixed by seed and decision."""
    return random.Random(f"substitute:{seed}:{decision_index}").choice(legal)


class FaultLedger:
    """Counts faults per seat and decides when a team has forfeited."""

    def __init__(self, policy: FaultPolicy, seat_teams: Sequence[int]) -> None:
        self.policy = policy
        self.seat_teams = tuple(seat_teams)
        self.faults: list[Fault] = []

    def record(self, fault: Fault) -> int | None:
        """Record a fault; returns the team that forfeits because of it, if any."""
        self.faults.append(fault)
        team = self.seat_teams[fault.seat]
        if self.team_faults(team) >= self.policy.max_faults:
            return team
        return None

    def seat_faults(self, seat: int) -> int:
        return sum(1 for f in self.faults if f.seat == seat)

    def team_faults(self, team: int) -> int:
        return sum(1 for f in self.faults if self.seat_teams[f.seat] == team)
