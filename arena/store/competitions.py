"""Competitions, their phase transitions, competitors and invite codes, in Redis.

Every write that must happen once is one Lua script, run atomically by Redis: creating
a competition (refused if the name exists), recording a phase transition (only from the
phase the caller read, so two workers that both see a transition due record it once),
cancelling (only before it ended), joining (the invite's checks, a use spent, the
author created and recorded as a competitor, or nothing at all), marking a final version
(only while the competition takes submissions) and recording the final's versions,
deals and tournament (once). The final board is written once (HSETNX), never
recomputed. A join creates the author as ``arena.store.authors.AuthorStore.add`` does
(the same two hashes, the token kept as its SHA-256), so the token it returns works
wherever an author's token does; unlike ``add``, it never replaces an author who
exists.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import redis

from arena.competition.final import FinalVersion, versions_from_json, versions_json
from arena.competition.final_board import FinalBoard
from arena.competition.final_deals import DealsChoice
from arena.competition.invites import Invite
from arena.competition.phases import CANCELLED, ENDED, JOINABLE, SCHEDULED, SUBMITTING
from arena.competition.spec import CompetitionSpec
from arena.store import keys
from arena.store.packages import HostedVersion, PackageStore

_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'spec', ARGV[1], 'created_at', ARGV[2], 'phase', ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5])
return 1
"""
_ADVANCE = """
if redis.call('HGET', KEYS[1], 'phase') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'phase', ARGV[2])
redis.call('RPUSH', KEYS[2], ARGV[3])
return 1
"""
_CANCEL = """
local phase = redis.call('HGET', KEYS[1], 'phase')
if not phase then return '' end
for i = 3, #ARGV do
  if phase == ARGV[i] then return phase end
end
redis.call('HSET', KEYS[1], 'phase', ARGV[2])
redis.call('RPUSH', KEYS[2], ARGV[1])
return 'done'
"""
"""ARGV: the transition's JSON, ``cancelled``, then the phases a competition never
leaves. Returns '' for no such competition, ``done``, or the phase it had ended in."""
_JOIN = """
local invite = redis.call('HMGET', KEYS[1], 'competition', 'left', 'expires_at')
if not invite[1] or invite[1] ~= ARGV[1] then return 'unknown' end
if tonumber(invite[2]) <= 0 then return 'used up' end
if tonumber(ARGV[4]) >= tonumber(invite[3]) then return 'expired' end
local phase = redis.call('HGET', KEYS[2], 'phase') or ''
local joinable = false
for i = 6, #ARGV do
  if phase == ARGV[i] then joinable = true end
end
if not joinable then return 'phase:' .. phase end
if redis.call('HEXISTS', KEYS[4], ARGV[2]) == 1 then return 'taken' end
redis.call('HINCRBY', KEYS[1], 'left', -1)
redis.call('HSET', KEYS[4], ARGV[2], ARGV[3])
redis.call('HSET', KEYS[5], ARGV[3], ARGV[2])
redis.call('HSET', KEYS[3], ARGV[2], ARGV[5])
return 'joined'
"""
"""KEYS: the invite, the competition, its competitors, the authors and their tokens.
ARGV: the competition, the author, the token's hash, now, how they joined (JSON), then
the phases in which one may join."""
_MARK = """
local phase = redis.call('HGET', KEYS[1], 'phase')
if not phase then return '' end
if redis.call('HEXISTS', KEYS[1], 'final_versions') == 1 then return 'phase:final' end
for i = 3, #ARGV do
  if phase == ARGV[i] then
    redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
    return 'marked'
  end
end
return 'phase:' .. phase
"""
"""KEYS: the competition, its final marks. ARGV: the author, the version, then the
phases in which one may mark. A mark lands only before the final versions are picked
(the workers pick them once the final phase is recorded), so a mark accepted counts."""
_START_FINAL = """
if redis.call('HEXISTS', KEYS[1], 'final_versions') == 0 then
  redis.call('HSET', KEYS[1], 'final', ARGV[1], 'final_versions', ARGV[2],
    'final_deals', ARGV[3], 'final_deals_reason', ARGV[4])
end
return redis.call('HGET', KEYS[1], 'final')
"""

CANCELLED_NOW = "cancelled now"
MARKED = "marked"
JOINED = "joined"
TAKEN = "taken"
NOT_JOINABLE = "phase:"
"""A join's outcome starting so names the competition's phase that refused it."""


@dataclass(frozen=True)
class Transition:
    """A phase entered: when it was due and when it was recorded."""

    phase: str
    due_at: float
    recorded_at: float

    def to_json(self) -> str:
        return json.dumps(
            {"phase": self.phase, "due_at": self.due_at, "recorded_at": self.recorded_at}
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> Transition:
        data = json.loads(text)
        return cls(str(data["phase"]), float(data["due_at"]), float(data["recorded_at"]))


@dataclass(frozen=True)
class CompetitionRecord:
    spec: CompetitionSpec
    phase: str
    created_at: float
    transitions: tuple[Transition, ...]
    competitors: tuple[str, ...]
    ladder: str = ""
    """The tournament id of its ladder, once the workers started it as it opened."""
    final: str = ""
    """The tournament id of its final round robin, once the workers started it ('' when
    fewer than two versions could meet)."""
    final_versions: tuple[FinalVersion, ...] | None = None
    """Each competitor's final version, picked as the final began; None before."""
    final_commitment: str = ""
    """The final's seed commitment, as published when it was stored."""
    final_board: FinalBoard | None = None
    """The final board, frozen once when the final ended."""
    final_deals: int = 0
    """Deals per pairing and game of the final, chosen with its versions; 0 before, when
    no final is played, or recorded before they were chosen (the rules' then)."""
    final_deals_reason: str = ""
    """Why that many (``arena.competition.final_deals.DealsChoice.reason``)."""

    @property
    def name(self) -> str:
        return self.spec.name


class CompetitionStore:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._create = client.register_script(_CREATE)
        self._advance = client.register_script(_ADVANCE)
        self._cancel = client.register_script(_CANCEL)
        self._join = client.register_script(_JOIN)
        self._mark = client.register_script(_MARK)
        self._start_final = client.register_script(_START_FINAL)

    def create(self, spec: CompetitionSpec, created_at: float) -> bool:
        """Store a new competition, ``scheduled``; False (nothing written) if its name
        is taken."""
        keys_ = [keys.competition(spec.name), keys.competitions()]
        argv: list[str | int] = [
            spec.to_json(),
            repr(created_at),
            SCHEDULED,
            int(created_at * 1000),
            spec.name,
        ]
        return bool(self._create(keys=keys_, args=argv))

    def get(self, name: str) -> CompetitionRecord | None:
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.hgetall(keys.competition(name))
            pipe.lrange(keys.competition_phases(name), 0, -1)
            pipe.hkeys(keys.competitors(name))
            fields, phases, competitors = pipe.execute()
        if not fields:
            return None
        return CompetitionRecord(
            spec=CompetitionSpec.from_json(fields[b"spec"]),
            phase=fields[b"phase"].decode(),
            created_at=float(fields[b"created_at"]),
            transitions=tuple(Transition.from_json(t) for t in phases),
            competitors=tuple(sorted(bytes(c).decode() for c in competitors)),
            ladder=fields.get(b"ladder", b"").decode(),
            final=fields.get(b"final", b"").decode(),
            final_versions=(
                versions_from_json(fields[b"final_versions"])
                if b"final_versions" in fields
                else None
            ),
            final_commitment=fields.get(b"final_commitment", b"").decode(),
            final_board=(
                FinalBoard.from_json(fields[b"final_board"]) if b"final_board" in fields else None
            ),
            final_deals=int(fields.get(b"final_deals", b"0")),
            final_deals_reason=fields.get(b"final_deals_reason", b"").decode(),
        )

    def competitors(self, name: str) -> list[str]:
        """The authors who joined ``name``."""
        found: list[bytes] = self.redis.hkeys(keys.competitors(name))  # type: ignore[assignment]
        return sorted(bytes(c).decode() for c in found)

    def of_author(self, author: str) -> CompetitionRecord | None:
        """The competition ``author`` joined, if any: joining creates the author (it
        never takes an existing name), so an author is a competitor of one at most."""
        for name in self.names():
            if self.redis.hexists(keys.competitors(name), author):
                return self.get(name)
        return None

    def set_ladder(self, name: str, tournament_id: str) -> str:
        """Record the competition's ladder unless it has one; the one recorded."""
        self.redis.hsetnx(keys.competition(name), "ladder", tournament_id)
        found = self.redis.hget(keys.competition(name), "ladder")
        return tournament_id if found is None else bytes(found).decode()  # type: ignore[arg-type]

    def mark(self, name: str, author: str, version: str) -> str:
        """Record ``version`` as ``author``'s final version while the stored phase takes
        submissions and no final version is picked yet: ``MARKED``, ``NOT_JOINABLE``
        followed by the phase that refused it, or '' for no such competition."""
        keys_ = [keys.competition(name), keys.final_marks(name)]
        found = self._mark(keys=keys_, args=[author, version, *sorted(SUBMITTING)])
        return bytes(found).decode()

    def marks(self, name: str) -> dict[str, str]:
        """Each author's marked version."""
        raw: dict[bytes, bytes] = self.redis.hgetall(keys.final_marks(name))  # type: ignore[assignment]
        return {a.decode(): v.decode() for a, v in raw.items()}

    def start_final(
        self,
        name: str,
        tournament_id: str,
        versions: Sequence[FinalVersion],
        deals: DealsChoice | None = None,
    ) -> str:
        """Record the final's tournament id, versions and deals (None: no final is
        played) unless they are recorded; the tournament id recorded (the first
        caller's)."""
        argv: list[str | int] = [
            tournament_id,
            versions_json(versions),
            deals.deals if deals else 0,
            deals.reason if deals else "",
        ]
        found = self._start_final(keys=[keys.competition(name)], args=argv)
        return bytes(found).decode()

    def set_final_commitment(self, name: str, commitment: str) -> None:
        """The final's seed commitment, as its tournament published it; written once."""
        self.redis.hsetnx(keys.competition(name), "final_commitment", commitment)

    def freeze(self, name: str, board: FinalBoard) -> bool:
        """Store the final board unless one is stored: True for the call that did."""
        return bool(self.redis.hsetnx(keys.competition(name), "final_board", board.to_json()))

    def names(self) -> list[str]:
        """Every competition's name, newest first."""
        found: list[Any] = self.redis.zrevrange(keys.competitions(), 0, -1)
        return [bytes(n).decode() for n in found]

    def all(self) -> list[CompetitionRecord]:
        """Every competition, newest first."""
        found = (self.get(name) for name in self.names())
        return [r for r in found if r is not None]

    def advance(self, name: str, stored: str, transition: Transition) -> bool:
        """Record ``transition`` if the competition's phase is still ``stored``: True for
        the one caller that recorded it."""
        keys_ = [keys.competition(name), keys.competition_phases(name)]
        return bool(
            self._advance(keys=keys_, args=[stored, transition.phase, transition.to_json()])
        )

    def cancel(self, name: str, at: float) -> str | None:
        """Cancel the competition unless it has ended: ``CANCELLED_NOW`` if this call
        did, the phase it had ended in if it had, None if there is no such competition."""
        transition = Transition(CANCELLED, at, at)
        others = sorted(ENDED)
        keys_ = [keys.competition(name), keys.competition_phases(name)]
        found = bytes(self._cancel(keys=keys_, args=[transition.to_json(), CANCELLED, *others]))
        return None if not found else CANCELLED_NOW if found == b"done" else found.decode()

    def add_invites(self, competition: str, hashes: Sequence[str], invite: Invite) -> None:
        """Store one invite record under each code's hash, all at once."""
        with self.redis.pipeline(transaction=True) as pipe:
            for code_hash in hashes:
                pipe.hset(
                    keys.invite(code_hash),
                    mapping={
                        "competition": competition,
                        "uses": invite.uses,
                        "left": invite.left,
                        "expires_at": repr(invite.expires_at),
                        "created_at": repr(invite.created_at),
                    },
                )
            pipe.execute()

    def invite(self, code_hash: str) -> Invite | None:
        fields: dict[bytes, bytes] = self.redis.hgetall(keys.invite(code_hash))  # type: ignore[assignment]
        if not fields:
            return None
        return Invite(
            competition=fields[b"competition"].decode(),
            uses=int(fields[b"uses"]),
            left=int(fields[b"left"]),
            expires_at=float(fields[b"expires_at"]),
            created_at=float(fields[b"created_at"]),
        )

    def join(
        self, code_hash: str, competition: str, author: str, author_token_hash: str, now: float
    ) -> str:
        """Spend one use of the invite, create ``author`` with the token whose hash is
        given and record them as a competitor, all or nothing: ``JOINED``, or why not
        (``invites.UNKNOWN``, ``USED_UP``, ``EXPIRED``, ``TAKEN``, or ``NOT_JOINABLE``
        followed by the competition's phase)."""
        joined = json.dumps({"joined_at": now, "invite": code_hash[:12]})
        keys_ = [
            keys.invite(code_hash),
            keys.competition(competition),
            keys.competitors(competition),
            keys.authors(),
            keys.author_tokens(),
        ]
        argv = [competition, author, author_token_hash, repr(now), joined, *sorted(JOINABLE)]
        return bytes(self._join(keys=keys_, args=argv)).decode()


class RedisRoster:
    """A competition's competitors and their bots' versions as stored, for its ladder's
    lineup (``arena.tournament.spec.Roster``)."""

    def __init__(self, client: redis.Redis) -> None:
        self.packages = PackageStore(client)
        self.competitions = CompetitionStore(client)

    def versions(self, name: str) -> list[HostedVersion]:
        return self.packages.versions(name)

    def competitors(self, competition: str) -> list[str]:
        return self.competitions.competitors(competition)
