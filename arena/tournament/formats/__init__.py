"""Tournament formats, by name. A format is one module; adding one is adding it here.

Code outside this package never asks which format a tournament has: it asks the format
(``get(name)``, or ``by_proto(value)`` for a message's) what it needs to know, through
the attributes and methods ``Format`` declares (``arena.tournament.formats.base``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from arena.tournament.fair_play import duplicate
from arena.tournament.formats.base import CliParam, Field, Format, InvalidFormat, Played, State
from arena.tournament.formats.knockout import Knockout
from arena.tournament.formats.ladder import Ladder
from arena.tournament.formats.round_robin import Gauntlet, RoundRobin
from arena.tournament.formats.sprt import Sprt
from arena.tournament.formats.swiss import Swiss
from arena.v1 import arena_pb2

if TYPE_CHECKING:
    from arena.tournament.spec import TournamentPlan

FORMATS: dict[str, type[Format]] = {
    f.name: f for f in (RoundRobin, Gauntlet, Swiss, Knockout, Sprt, Ladder)
}
ROUND_ROBIN = RoundRobin.name
"""The format of a spec that names none."""
_BY_PROTO: dict[arena_pb2.TournamentFormat.ValueType, type[Format]] = {
    f.proto: f for f in FORMATS.values()
} | {arena_pb2.FORMAT_UNSPECIFIED: RoundRobin}


def get(name: str) -> type[Format]:
    """The format a stored spec names (``TournamentPlan.format``); KeyError if none is."""
    return FORMATS[name]


def by_proto(value: arena_pb2.TournamentFormat.ValueType) -> type[Format] | None:
    """The format an ``arena.v1.TournamentFormat`` value names (unset: a round robin);
    None for a value this arena does not know."""
    return _BY_PROTO.get(value)


def build(
    tournament_id: str,
    spec: TournamentPlan,
    lineup: Mapping[str, Sequence[str]] | None = None,
    authors: Mapping[str, str] | None = None,
) -> Format:
    """The format of a tournament's spec; a ladder's with its ``lineup`` as it stands
    (entry -> the games it plays) and their ``authors``."""
    games_of = {e: x.games for e, x in spec.lineup.items()} if lineup is None else lineup
    if authors is None:
        authors = {e: x.author for e, x in spec.lineup.items() if x.author}
    field = Field(
        tournament_id=tournament_id,
        entries=spec.entries if lineup is None else tuple(sorted(lineup)),
        games=spec.games,
        games_of={entry: tuple(games) for entry, games in games_of.items()},
        deals=spec.deals,
        master_seed=spec.seed.value,
        paired=duplicate(spec.fair_play),
        game_options=spec.game_options,
        authors=authors,
    )
    return FORMATS[spec.format](field, spec.format_params)


__all__ = [
    "FORMATS",
    "ROUND_ROBIN",
    "CliParam",
    "Field",
    "Format",
    "InvalidFormat",
    "Played",
    "State",
    "build",
    "by_proto",
    "get",
]
