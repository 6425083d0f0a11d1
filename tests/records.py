"""Stored records for tests: a match result or a tournament's spec with every field the
test does not care about filled in, as valid as the arena's own (``arena.records``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.store.results import VERSION, MatchResult
from arena.tournament.fair_play import OPEN, MasterSeed
from arena.tournament.formats import ROUND_ROBIN
from arena.tournament.spec import Entry, HostedPackage, TournamentPlan

RESULT_DEFAULTS: dict[str, Any] = {
    "tournament_id": "",
    "deal": 0,
    "seed": 0,
    "winner_team": None,
    "end": "completed",
    "forfeit_team": None,
    "team_faults": [0, 0],
    "team_fault_kinds": [{}, {}],
    "decisions": 0,
    "duration_ms": 0.0,
    "replay_id": "",
    "referee": "",
    "finished_at": 0.0,
    "deal_key": "",
    "paired": True,
    "deal_commitment": "",
    "deal_salt": "",
    "referee_match_id": "",
    "fair_play": OPEN,
    "operator_seed": False,
}
SALT = "5" * 32


def result(**fields: Any) -> MatchResult:
    """A result of the current version from ``fields`` as they are stored (lists for
    tuples), the rest defaulted; ``pair_key`` defaults to the match id (rated alone)."""
    data = {**RESULT_DEFAULTS, **fields, "record_version": VERSION}
    data.setdefault("pair_key", data["match_id"])
    return MatchResult.from_json(data)


def spec(
    entries: Sequence[str] = ("a", "b"),
    games: Sequence[str] = ("seep",),
    hosted: Mapping[str, str] = {},
    **fields: Any,
) -> TournamentPlan:
    """A round robin of ``entries``, remote at a made-up address unless ``hosted`` gives
    the SHA-256 of their package."""
    lineup = {
        e: (
            Entry(e, tuple(games), hosted=HostedPackage(hosted[e], "python3.11", "python3 bot.py"))
            if e in hosted
            else Entry(e, tuple(games), address="127.0.0.1:1")
        )
        for e in entries
    }
    return TournamentPlan(
        **{
            "entries": tuple(entries),
            "games": tuple(games),
            "deals": 1,
            "move_deadline_ms": 1000.0,
            "max_faults": 3,
            "seed": MasterSeed(1, SALT, operator=True),
            "name": "",
            "lineup": lineup,
            "format": ROUND_ROBIN,
            **fields,
        }
    )
