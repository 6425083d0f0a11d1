"""What a tournament format is: a pure function of its spec and the results so far.

A format says which matches to play next and whether the tournament is decided. It
holds no Celery or Redis code: the scheduler (``workers.scheduler``) keeps the format's
state, feeds it the results as they are stored (``absorb``), asks it for at most a
window's worth of matches (``next``), and finishes the tournament once it is decided
and every match it handed out has a result. Everything a format remembers lives in its
state, a JSON object the scheduler stores, so any worker can take over from any other.

Match ids and deal keys follow one convention for every format (``unit_matches``):
``<tournament>-<unit>-<a|b>``, the two seatings of one unit, whose deal key is
``<unit>`` when the seatings share a deal (a duplicate pair) and ``<unit>-<a|b>``
otherwise. ``arena.tournament.verify`` checks seeds against exactly that.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from arena.ratings.duplicate import DuplicateResult
from arena.tournament.fair_play import deal_seed
from arena.tournament.schedule import ScheduledMatch

State = dict[str, Any]
"""A format's memory: JSON-compatible, stored by the scheduler between calls."""


class InvalidFormat(ValueError):
    """The format's parameters do not fit the tournament; the message says what would."""


@dataclass(frozen=True)
class Field:
    """What every format schedules from: the entries and how their matches are dealt."""

    tournament_id: str
    entries: tuple[str, ...]
    """Entry labels, in the order given (a seeded format's seeding order)."""
    games: tuple[str, ...]
    games_of: Mapping[str, tuple[str, ...]]
    """The games each entry plays; a pairing plays only the games both play."""
    deals: int
    """Deals per pairing and game, each played in both seatings."""
    master_seed: int
    paired: bool
    """Both seatings of a deal share its cards and are rated as one unit."""

    def common_games(self, a: str, b: str) -> tuple[str, ...]:
        return tuple(g for g in self.games if g in self.games_of[a] and g in self.games_of[b])


@dataclass(frozen=True)
class Played:
    """One stored result as a format sees it."""

    match_id: str
    unit: DuplicateResult | None
    """None for a match that cannot be rated (no contest)."""


def unit_matches(
    field: Field, unit: str, game: str, a: str, b: str, deal: int
) -> list[ScheduledMatch]:
    """The two seatings of one deal between ``a`` and ``b``: ``a`` holds team 0 first."""
    matches = []
    for half, seating in (("a", (a, b)), ("b", (b, a))):
        match_id = f"{field.tournament_id}-{unit}-{half}"
        key = unit if field.paired else f"{unit}-{half}"
        matches.append(
            ScheduledMatch(
                match_id=match_id,
                game=game,
                entries=seating,
                deal=deal,
                seed=deal_seed(field.master_seed, key),
                pair_key=f"{field.tournament_id}-{unit}" if field.paired else match_id,
                deal_key=key,
                paired=field.paired,
            )
        )
    return matches


class Format(ABC):
    """A tournament format. Subclasses are registered in ``arena.tournament.formats``."""

    name: ClassVar[str]
    """As the API, the CLI and stored specs spell it: ``round-robin``, ``swiss``..."""
    decides_early: ClassVar[bool] = False
    """It may decide while matches are out (an SPRT), and those then play for nothing:
    the scheduler hands it out no more than the workers can play at once."""

    def __init__(self, field: Field, params: Mapping[str, Any]) -> None:
        """Raises InvalidFormat when ``params`` do not fit ``field``."""
        self.field = field
        self.params = dict(params)

    @abstractmethod
    def total(self) -> int | None:
        """Matches the tournament will play, when known ahead (None: it decides as it goes)."""

    @abstractmethod
    def start(self) -> State:
        """The state before any match was handed out."""

    @abstractmethod
    def next(self, state: State, room: int) -> tuple[State, list[ScheduledMatch]]:
        """At most ``room`` matches to hand out now, and the state that remembers them.
        None (an empty list) while the format waits for results."""

    def absorb(self, state: State, played: Sequence[Played]) -> State:
        """The state once ``played`` (new results, each seen once) are known."""
        return state

    @abstractmethod
    def decided(self, state: State) -> bool:
        """No match will ever be handed out again (those out may still be playing)."""

    def standings(self, state: State) -> dict[str, Any]:
        """What the format shows beyond the ratings, in ``arena.v1.Standings``' JSON form."""
        return {}
