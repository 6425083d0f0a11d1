"""A tournament's format and standings as the API shows them (``arena.v1``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from google.protobuf import json_format

from arena.tournament import formats
from arena.v1 import arena_pb2

if TYPE_CHECKING:
    from arena.store import TournamentRecord


def spec_format(spec: arena_pb2.TournamentSpec, name: str, params: Mapping[str, Any]) -> None:
    """Set ``spec.format`` and its parameters from a stored spec's (less those the arena
    filled in itself, such as a knockout's seeding, which its standings show)."""
    kind = formats.get(name)
    spec.format = kind.proto
    if kind.params_field:
        given = {k: v for k, v in params.items() if k not in kind.internal_params}
        json_format.ParseDict(given, getattr(spec, kind.params_field))


def standings(record: TournamentRecord) -> arena_pb2.Standings | None:
    """The format's standings, once its scheduler has started; None for formats whose
    standings are the leaderboard itself."""
    cls = formats.get(record.spec.format)
    if cls.standings is formats.Format.standings or not record.scheduler:
        return None
    shown = formats.build(record.id, record.spec).standings(record.scheduler["format"])
    return json_format.ParseDict(shown, arena_pb2.Standings())
