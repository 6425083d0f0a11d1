"""One digest over every result of a finished tournament and its match record.

Published when the tournament finishes and checked by ``arena tournament verify``: a
result or record changed in the store afterwards (a score, a fault, one decision) no
longer hashes to it. Each match is one line of JSON, in match id order, naming what the
result says and the SHA-256 of its record's bytes (``MatchLog`` serialized
deterministically, as the referee handed it over); the digest is the SHA-256 of the
lines. Both sides compute it: the worker from what it stored, a reader from what
``ListResults`` with ``with_logs`` gives.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from arena.tournament.progress import result_end_name
from arena.v1 import arena_pb2, referee_pb2

if TYPE_CHECKING:  # the store builds on tournaments; a digest only reads a result's fields
    from arena.store.results import MatchResult


def results_digest(lines: Iterable[str]) -> str:
    digest = hashlib.sha256()
    for line in sorted(lines):  # each line starts with its match id
        digest.update(line.encode("utf-8") + b"\n")
    return digest.hexdigest()


def _line(
    match_id: str,
    end: str,
    scores: Sequence[int],
    winner_team: int | None,
    forfeit_team: int | None,
    team_faults: Sequence[int],
    decisions: int,
    seed: int,
    deal_commitment: str,
    record: bytes | None,
) -> str:
    sha = hashlib.sha256(record).hexdigest() if record is not None else ""
    fields = [match_id, end, list(scores), winner_team, forfeit_team, list(team_faults)]
    fields += [decisions, str(seed), deal_commitment, sha]
    return json.dumps(fields, separators=(",", ":"))


def stored_line(result: MatchResult, record: bytes | None) -> str:
    """A stored result's line, with its record's bytes as stored."""
    return _line(
        result.match_id,
        result.end,
        result.scores,
        result.winner_team,
        result.forfeit_team,
        result.team_faults,
        result.decisions,
        result.seed,
        result.deal_commitment,
        record,
    )


def read_line(record: arena_pb2.MatchRecord) -> str:
    """The line of a result as ``ListResults`` (``with_logs``) gives it."""
    log: referee_pb2.MatchLog | None = record.log if record.HasField("log") else None
    return _line(
        record.match_id,
        result_end_name(record.end),
        record.scores,
        record.winner_team if record.HasField("winner_team") else None,
        record.forfeit_team if record.HasField("forfeit_team") else None,
        record.team_faults,
        record.decisions,
        record.seed,
        record.deal_commitment,
        None if log is None else log.SerializeToString(deterministic=True),
    )
