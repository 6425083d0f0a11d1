"""Tournament formats, by name. A format is one module; adding one is adding it here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from arena.tournament.fair_play import duplicate
from arena.tournament.formats.base import Field, Format, InvalidFormat, Played, State
from arena.tournament.formats.knockout import Knockout
from arena.tournament.formats.ladder import Ladder
from arena.tournament.formats.round_robin import Gauntlet, RoundRobin
from arena.tournament.formats.sprt import Sprt
from arena.tournament.formats.swiss import Swiss

if TYPE_CHECKING:
    from arena.tournament.spec import TournamentPlan

FORMATS: dict[str, type[Format]] = {
    f.name: f for f in (RoundRobin, Gauntlet, Swiss, Knockout, Sprt, Ladder)
}
ROUND_ROBIN = RoundRobin.name


def build(
    tournament_id: str,
    spec: TournamentPlan,
    lineup: Mapping[str, Sequence[str]] | None = None,
) -> Format:
    """The format of a tournament's spec; a ladder's with its ``lineup`` as it stands
    (entry -> the games it plays)."""
    games_of = {e: x.games for e, x in spec.lineup.items()} if lineup is None else lineup
    field = Field(
        tournament_id=tournament_id,
        entries=spec.entries if lineup is None else tuple(sorted(lineup)),
        games=spec.games,
        games_of={entry: tuple(games) for entry, games in games_of.items()},
        deals=spec.deals,
        master_seed=spec.seed.value,
        paired=duplicate(spec.fair_play),
    )
    return FORMATS[spec.format](field, spec.format_params)


__all__ = ["FORMATS", "ROUND_ROBIN", "Field", "Format", "InvalidFormat", "Played", "State", "build"]
