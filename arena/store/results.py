"""A match's stored result (``arena:t:{id}:results``): the record type and its JSON
(``arena.records``).

The JSON keys are the dataclass's fields, in its order; ``seat_bots`` and ``started_at``
are written only when set (a reader that does not know a key ignores it). A result of
version 1 (no ``record_version``: stored by an earlier build) is refused until
``arena store migrate`` upgrades it (``arena.store.migrate``). What such a result never
recorded stays None (its time, its fault kinds, fair play, the seed's source).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.records import Fields, RecordError, check_version, current, parse
from arena.tournament.fair_play import MAX_SEED, MODES
from arena.v1 import referee_pb2

KIND = "match result"
VERSION = 2
ENDS = tuple(name.removeprefix("MATCH_END_").lower() for name, _ in referee_pb2.MatchEnd.items())
"""How a match can end, as stored: ``completed``, ``forfeit``, ``no_contest``..."""
TEAMS = 2
"""Every game the arena has is played by two teams; a result names an entry per team."""
SEAT_BOTS = "seat_bots"
STARTED_AT = "started_at"
SHARED_PARTNERS = "shared_partners"
SAME_AUTHOR = "same_author"


@dataclass(frozen=True)
class MatchResult:
    match_id: str
    tournament_id: str
    game: str
    pair_key: str
    """The duplicate pair the match is a half of; its own match id when rated alone."""
    deal: int
    seed: int
    entries: tuple[str, ...]
    """The entry of each team, team 0 first."""
    scores: tuple[int, ...]
    """Each team's final score."""
    winner_team: int | None
    end: str
    """One of ``ENDS``."""
    forfeit_team: int | None
    team_faults: tuple[int, ...]
    """Each team's faults."""
    team_fault_kinds: tuple[Mapping[str, int], ...] | None
    """Each team's faults by kind (``arena.match_rules.faults.KIND_NAMES``); None for a
    result stored before kinds were kept."""
    decisions: int
    duration_ms: float
    replay_id: str
    referee: str
    """The address of the referee that played it."""
    finished_at: float | None
    """When the result was stored (seconds since the epoch); None if not kept."""
    deal_key: str
    paired: bool
    """A half of a duplicate pair, rated with its twin; False: rated alone."""
    deal_commitment: str
    deal_salt: str
    referee_match_id: str
    fair_play: str | None
    """The tournament's fair-play mode; None for a result stored before modes existed."""
    operator_seed: bool | None
    """Whether the operator gave the master seed; None if not recorded (as above)."""
    seat_bots: tuple[str, ...] | None = None
    """The bot in each seat, when a team's seats are held by different bots (a later
    format); None: every seat of team ``t`` is ``entries[t]``."""
    started_at: float | None = None
    """When the worker asked the referee to play the attempt that counted (seconds since
    the epoch); None for a result stored before it was kept."""
    shared_partners: tuple[str, ...] | None = None
    """The entries whose one process held both seats of their team (remote entries in a
    partnership game): each could see its partner's hand. None: none did, or a result
    stored before the arena noted it."""
    same_author: bool = False
    """Both entries are one author's: the result is played but never rated."""
    record_version: int = VERSION

    @property
    def forfeit_by(self) -> str | None:
        """The entry that forfeited, if one did."""
        return None if self.forfeit_team is None else self.entries[self.forfeit_team]

    @property
    def margin(self) -> int:
        """Team 0's score less team 1's."""
        return self.scores[0] - self.scores[1]

    def to_json(self) -> dict[str, Any]:
        """The stored JSON object; raises ``RecordError`` (and nothing is written) if the
        result is not valid."""
        check_version(KIND, self.record_version, VERSION)
        data: dict[str, Any] = {
            "match_id": self.match_id,
            "tournament_id": self.tournament_id,
            "game": self.game,
            "pair_key": self.pair_key,
            "deal": self.deal,
            "seed": self.seed,
            "entries": list(self.entries),
            "scores": list(self.scores),
            "winner_team": self.winner_team,
            "end": self.end,
            "forfeit_team": self.forfeit_team,
            "team_faults": list(self.team_faults),
            "team_fault_kinds": (
                None if self.team_fault_kinds is None else [dict(k) for k in self.team_fault_kinds]
            ),
            "decisions": self.decisions,
            "duration_ms": self.duration_ms,
            "replay_id": self.replay_id,
            "referee": self.referee,
            "finished_at": self.finished_at,
            "deal_key": self.deal_key,
            "paired": self.paired,
            "deal_commitment": self.deal_commitment,
            "deal_salt": self.deal_salt,
            "referee_match_id": self.referee_match_id,
            "fair_play": self.fair_play,
            "operator_seed": self.operator_seed,
        }
        if self.seat_bots is not None:
            data[SEAT_BOTS] = list(self.seat_bots)
        if self.started_at is not None:
            data[STARTED_AT] = self.started_at
        if self.shared_partners:
            data[SHARED_PARTNERS] = list(self.shared_partners)
        if self.same_author:
            data[SAME_AUTHOR] = True
        data["record_version"] = self.record_version
        _read(data)
        return data

    @classmethod
    def from_json(cls, data: str | bytes | Mapping[str, Any]) -> MatchResult:
        """A stored result as the current type; raises ``RecordError`` naming the field
        that is missing or wrong, or ``StaleRecord`` for an earlier build's result."""
        found = parse(KIND, data)
        return _read(current(KIND, found, VERSION, str(found.get("match_id", ""))))


def _read(data: Mapping[str, Any]) -> MatchResult:
    f = Fields(KIND, data)
    return MatchResult(
        match_id=f.text("match_id", empty=False),
        tournament_id=f.text("tournament_id"),
        game=f.text("game", empty=False),
        pair_key=f.text("pair_key", empty=False),
        deal=f.integer("deal", 0),
        seed=f.integer("seed", 0, MAX_SEED),
        entries=f.texts("entries", TEAMS),
        scores=f.integers("scores", TEAMS),
        winner_team=f.optional_integer("winner_team", 0, TEAMS - 1),
        end=f.text("end", ENDS),
        forfeit_team=f.optional_integer("forfeit_team", 0, TEAMS - 1),
        team_faults=f.integers("team_faults", TEAMS, 0),
        team_fault_kinds=_fault_kinds(f),
        decisions=f.integer("decisions", 0),
        duration_ms=f.number("duration_ms", 0),
        replay_id=f.text("replay_id"),
        referee=f.text("referee"),
        finished_at=f.optional_number("finished_at", 0),
        deal_key=f.text("deal_key"),
        paired=f.flag("paired"),
        deal_commitment=f.text("deal_commitment"),
        deal_salt=f.text("deal_salt"),
        referee_match_id=f.text("referee_match_id"),
        fair_play=f.optional_text("fair_play", _MODES),
        operator_seed=f.optional_flag("operator_seed"),
        seat_bots=None if data.get(SEAT_BOTS) is None else f.texts(SEAT_BOTS),
        started_at=None if data.get(STARTED_AT) is None else f.number(STARTED_AT, 0),
        shared_partners=None if not data.get(SHARED_PARTNERS) else f.texts(SHARED_PARTNERS),
        same_author=SAME_AUTHOR in data and f.flag(SAME_AUTHOR),
        record_version=f.integer("record_version", VERSION, VERSION),
    )


_MODES = tuple(sorted(set(MODES.values())))


def _fault_kinds(f: Fields) -> tuple[Mapping[str, int], ...] | None:
    value = f.data.get("team_fault_kinds", 0)
    if value is None:
        return None
    if (
        not isinstance(value, list | tuple)
        or len(value) != TEAMS
        or not all(
            isinstance(kinds, Mapping)
            and all(isinstance(k, str) and type(n) is int and n >= 0 for k, n in kinds.items())
            for kinds in value
        )
    ):
        f.fail("team_fault_kinds", f"a list of {TEAMS} objects of counts by kind, or null")
    return tuple(dict(kinds) for kinds in value)


__all__ = ["ENDS", "KIND", "SEAT_BOTS", "STARTED_AT", "VERSION", "MatchResult", "RecordError"]
