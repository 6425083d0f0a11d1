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

Everything else that differs from one format to another is the format's to say too, as a
class attribute or method, so that no code outside this package asks which format a
tournament has: how the API and the CLI name it and its parameters (``proto``,
``params_field``, ``cli_params``), what a spec of it must give (``check_entries``,
``shared_games``, ``deals_as_needed``, ``author_limit``), what the API completes at
submission (``seeded``, ``with_seeding``), who plays (``open_lineup``, ``lineup``), how it
runs (``plays_forever``, ``suspends``, ``reveals_each_match``) and how it reads
(``title``, ``params_text``, ``progress_text``, ``shows_leaderboard``, ``standings``).
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from arena.ratings.duplicate import DuplicateResult
from arena.tournament.fair_play import SEALED, deal_seed
from arena.tournament.schedule import ScheduledMatch
from arena.v1 import arena_pb2

if TYPE_CHECKING:
    from arena.store.bots import RegisteredBot
    from arena.store.results import MatchResult
    from arena.tournament.formats.ladder_suspension import Rules
    from arena.tournament.spec import Entry, Roster, TournamentPlan, VersionLookup

State = dict[str, Any]
"""A format's memory: JSON-compatible, stored by the scheduler between calls."""


class InvalidFormat(ValueError):
    """The format's parameters do not fit the tournament; the message says what would."""


@dataclass(frozen=True)
class CliParam:
    """A flag of ``arena tournament run`` that sets one of a format's parameters (the
    parser declares the flag itself: ``arena.cli.parsers.tournament.FORMAT_FLAGS``)."""

    flag: str
    """As typed: ``--rounds``."""
    dest: str
    """Where argparse puts it: ``rounds``."""
    field: str
    """The field of the format's parameters message (``params_field``) it sets."""
    needs: str
    """What the format says when it is missing: ``--format swiss needs <needs>``."""


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
    game_options: Mapping[str, Mapping[str, str]] = dataclasses.field(default_factory=dict)
    """Each game's options as the spec gives them (``TournamentPlan.game_options``): every
    match of the game carries them (``unit_matches``); a game not here plays its defaults."""
    authors: Mapping[str, str] = dataclasses.field(default_factory=dict)
    """Each entry's author (``Entry.author``; none for a house bot). One author's entries
    meet but are never rated against each other (``TournamentPlan.same_author``)."""

    def same_author(self, a: str, b: str) -> bool:
        author = self.authors.get(a, "")
        return bool(author) and author == self.authors.get(b, "")

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
    """The two seatings of one deal between ``a`` and ``b``: ``a`` holds team 0 first,
    each with the game's options."""
    options = dict(field.game_options.get(game, {}))
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
                options=dict(options),
            )
        )
    return matches


class Format(ABC):
    """A tournament format. Subclasses are registered in ``arena.tournament.formats``."""

    name: ClassVar[str]
    """As the API, the CLI and stored specs spell it: ``round-robin``, ``swiss``..."""
    proto: ClassVar[arena_pb2.TournamentFormat.ValueType]
    """Its ``arena.v1.TournamentFormat`` value."""
    title: ClassVar[str]
    """Its name in a page's prose: ``Round robin``, ``Swiss``..."""
    params_field: ClassVar[str | None] = None
    """The ``TournamentSpec.format_params`` field of its parameters; None: it takes none."""
    internal_params: ClassVar[frozenset[str]] = frozenset()
    """Parameters the arena fills in itself (a knockout's ``seeding``: ``with_seeding``),
    stored with the organiser's but never read from or shown as theirs."""
    cli_params: ClassVar[tuple[CliParam, ...]] = ()
    """The flags of ``arena tournament run`` that set its parameters, every one needed."""
    decides_early: ClassVar[bool] = False
    """It may decide while matches are out (an SPRT), and those then play for nothing:
    the scheduler hands it out no more than the workers can play at once."""
    deals_as_needed: ClassVar[bool] = False
    """It deals as many deals as it needs: a spec may leave ``deals`` unset (1)."""
    shared_games: ClassVar[bool] = False
    """Every entry plays every game: its games default to the ones all the entries play."""
    seeded: ClassVar[bool] = False
    """Its entries are seeded by the arena's ratings when it is submitted (``with_seeding``)."""
    open_lineup: ClassVar[bool] = False
    """Its entries are not given but taken afresh from the registry at every step of its
    scheduler (``lineup``); the workers seat them as the scheduler last saw them."""
    plays_forever: ClassVar[bool] = False
    """It never decides (it runs until cancelled), so its results count in the arena's
    ratings as they come, not once it has finished."""
    suspends: ClassVar[bool] = False
    """It stops pairing an entry that only forfeits or faults, until the entry answers
    Hello again (``ladder_suspension``): the scheduler counts each result against the
    entries (``suspend``) and pairs again those whose Hello answered (``resume``), and the
    watchdog says Hello to those it holds."""
    shows_leaderboard: ClassVar[bool] = True
    """Its ranking is the tournament's leaderboard; False for a format whose standings
    rank the entries their own way (Swiss, knockout, SPRT)."""

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

    def suspend(
        self, state: State, played: Sequence[MatchResult], rules: Rules, now: float
    ) -> State:
        """The state once ``played`` (new results, in the order they were stored) count
        against the entries' latest matches, for a format that ``suspends``."""
        return state

    def resume(self, state: State, answered: Collection[str]) -> State:
        """The state without the suspensions of entries that left it, and with those of
        ``answered`` (whose Hello answered) paired again."""
        return state

    # What a spec of the format must be, and what the arena completes.

    @classmethod
    def check_entries(cls, entries: Sequence[str], games: Sequence[str]) -> None:
        """Raises InvalidFormat when a spec's ``entries`` (as given, before they are
        looked up) and ``games`` cannot make a tournament of this format."""
        if len(entries) < 2:
            raise InvalidFormat(f"a tournament needs at least 2 entries, got {len(entries)}")

    @classmethod
    def author_limit(cls, fair_play: str) -> int | None:
        """The most entries one author may have when the spec sets no limit; None for no
        limit. A sealed tournament ranks authors against each other: one entry each."""
        return 1 if fair_play == SEALED else None

    @classmethod
    def with_seeding(
        cls,
        params: Mapping[str, Any],
        entries: Sequence[str],
        games: Sequence[str],
        boards: Mapping[str, Mapping[str, Any]],
    ) -> dict[str, Any]:
        """Its parameters once the arena's ratings (``boards``, the stored boards by game,
        ``""`` for all games) have seeded ``entries``; asked only if it is ``seeded``."""
        return dict(params)

    @classmethod
    def lineup(
        cls,
        spec: TournamentPlan,
        registered: Sequence[RegisteredBot],
        version_of: VersionLookup,
        roster: Roster | None = None,
    ) -> list[Entry]:
        """Who plays now: the spec's entries, fixed at submission; a format with an
        ``open_lineup`` takes them from the ``registered`` bots (and, where its
        parameters name a competition, the ``roster``'s versions and competitors)."""
        return [spec.lineup[e] for e in spec.entries]

    @classmethod
    def reveals_each_match(cls, fair_play: str) -> bool:
        """Whether, while it runs, it publishes each match's deal once that match has
        ended (``arena.api.common``): only where no deal is ever dealt again."""
        return False

    # How it reads (``arena.v1.Tournament``, as the CLI and the web site have it).

    @classmethod
    def params_text(cls, t: arena_pb2.Tournament) -> str:
        """The format with its parameters, in a line: ``Swiss, 5 rounds``."""
        return cls.title

    @classmethod
    def progress_text(cls, t: arena_pb2.Tournament) -> str:
        """The format, and where it stands in a few words: ``swiss, round 2 of 5``."""
        return cls.name
