"""A tournament's format and standings as the API shows them (``arena.v1``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from google.protobuf import json_format

from arena.tournament import formats
from arena.tournament.spec import FORMAT_PROTO, PARAMS_OF
from arena.v1 import arena_pb2

if TYPE_CHECKING:
    from arena.store import TournamentRecord

INTERNAL_PARAMS = frozenset({"seeding"})
"""Parameters the arena fills in itself (a knockout's seeding, shown in its bracket)."""


def spec_format(spec: arena_pb2.TournamentSpec, name: str, params: Mapping[str, Any]) -> None:
    """Set ``spec.format`` and its parameters from a stored spec's."""
    spec.format = FORMAT_PROTO[name]
    if name in PARAMS_OF:
        given = {k: v for k, v in params.items() if k not in INTERNAL_PARAMS}
        json_format.ParseDict(given, getattr(spec, PARAMS_OF[name]))


def standings(record: TournamentRecord) -> arena_pb2.Standings | None:
    """The format's standings, once its scheduler has started; None for formats whose
    standings are the leaderboard itself."""
    cls = formats.FORMATS[record.spec.format]
    if cls.standings is formats.Format.standings or not record.scheduler:
        return None
    shown = formats.build(record.id, record.spec).standings(record.scheduler["format"])
    return json_format.ParseDict(shown, arena_pb2.Standings())
