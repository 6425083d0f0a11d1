"""``arena replay import``: records for results stored before the arena kept them.

Such a result's decisions exist only in the replay file the referee that played it wrote
(``{replay_id}.json`` in its ``--replay-dir``). Each file found for a result without a
record must verify on the engine, and the record made from it must re-run to the stored
result (``arena.replay.match_log``). Every file is checked before anything is written,
and a record is only ever added beside a result that has none: an import that fails
changes nothing, and one run again adds what is still missing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.replay.match_log import encode, log_from_replay, rerun_as_stored
from arena.replay.verify import ReplayMismatch
from arena.store.results import MatchResult
from arena.store.tournaments import TournamentStore


class ImportFailed(ValueError):
    """A replay file that cannot be imported, named with why; nothing was stored."""


@dataclass
class Imported:
    stored: int = 0
    """Records stored."""
    kept: int = 0
    """Results that already had their record."""
    missing: list[str] = field(default_factory=list)
    """Match ids of results without a record whose replay file is not in the directory."""

    def summary(self, directory: Path) -> str:
        line = (
            f"{self.stored} records imported from {directory}; "
            f"{self.kept} results already had theirs"
        )
        if self.missing:
            line += f"; {len(self.missing)} still without one (no replay file here)"
        return line


def import_replays(store: TournamentStore, directory: Path) -> Imported:
    if not directory.is_dir():
        raise ImportFailed(f"{directory} is not a directory")
    report = Imported()
    planned: dict[str, dict[str, bytes]] = {}
    for tournament_id in store.ids():
        results = store.results(tournament_id)
        logs = store.match_logs(tournament_id, [r.match_id for r in results])
        for result, stored in zip(results, logs, strict=True):
            if stored is not None:
                report.kept += 1
                continue
            path = directory / f"{result.replay_id}.json"
            if not result.replay_id or not path.is_file():
                report.missing.append(result.match_id)
                continue
            planned.setdefault(tournament_id, {})[result.match_id] = _record(path, result)
    for tournament_id, records in planned.items():
        report.stored += store.import_match_logs(tournament_id, records)
    return report


def outcome(result: MatchResult) -> dict[str, Any]:
    """What a stored result says of how its match went, as ``Replayed.difference`` asks."""
    return {
        "deal_commitment": result.deal_commitment,
        "end": result.end,
        "scores": result.scores,
        "winner_team": result.winner_team,
        "forfeit_team": result.forfeit_team,
        "decisions": result.decisions,
        "team_faults": result.team_faults,
        "team_fault_kinds": result.team_fault_kinds,
    }


def _record(path: Path, result: MatchResult) -> bytes:
    """The record of ``result`` made from its replay file, checked both ways."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ImportFailed(f"{path}: cannot be read as JSON ({error})") from None
    try:
        log = log_from_replay(document)
        if result.referee_match_id and log.match_id != result.referee_match_id:
            raise ImportFailed(
                f"{path}: is the replay of referee match {log.match_id!r}, but the result of "
                f"{result.match_id} is of {result.referee_match_id!r}"
            )
        # A result from before commitments has none to compare with.
        said = outcome(result)
        _, different = rerun_as_stored(
            log,
            lambda rerun: rerun.difference(
                **said | {"deal_commitment": result.deal_commitment or rerun.deal_commitment}
            ),
        )
    except ReplayMismatch as error:
        raise ImportFailed(f"{path}: does not verify: {error}") from None
    if different is not None:
        raise ImportFailed(f"{path}: not the replay of {result.match_id}: {different}")
    return encode(log)
