"""Every format the API names is one the scheduler can build, and back."""

from __future__ import annotations

from arena.tournament.formats import FORMATS
from arena.tournament.spec import FORMAT_NAMES, FORMAT_PROTO, PARAMS_OF
from arena.v1 import arena_pb2


def test_every_format_of_the_proto_is_registered_and_round_trips() -> None:
    values = set(arena_pb2.TournamentFormat.values()) - {arena_pb2.FORMAT_UNSPECIFIED}
    assert values <= set(FORMAT_NAMES)
    assert set(FORMAT_NAMES.values()) == set(FORMATS)
    assert all(FORMAT_NAMES[FORMAT_PROTO[name]] == name for name in FORMATS)
    oneof = arena_pb2.TournamentSpec.DESCRIPTOR.oneofs_by_name["format_params"]
    assert set(PARAMS_OF.values()) == {field.name for field in oneof.fields}
