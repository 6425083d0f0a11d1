"""Tournament formats, by name. A format is one module; adding one is adding it here."""

from __future__ import annotations

from arena.tournament.formats.base import Field, Format, InvalidFormat, Played, State
from arena.tournament.formats.round_robin import Gauntlet, RoundRobin

FORMATS: dict[str, type[Format]] = {f.name: f for f in (RoundRobin, Gauntlet)}

__all__ = ["FORMATS", "Field", "Format", "InvalidFormat", "Played", "State"]
