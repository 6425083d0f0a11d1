"""Validation of tournament specs: every rejection says what was wrong and what is allowed.

A validated spec is a ``TournamentPlan``, which is also what a tournament stores as its
``spec`` (``arena:t:{id}``): ``to_json`` / ``from_json`` and the versions of the stored
spec are those of every stored record (``arena.records``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from google.protobuf import json_format

from arena import limits
from arena.games import OptionError, UnknownGameError, game_names, get_game
from arena.match_rules.commitment import SALT
from arena.records import Fields, check_version, current, parse
from arena.tournament import formats
from arena.tournament.active_versions import by_author
from arena.tournament.fair_play import (
    ISOLATED,
    MAX_SEED,
    MODES,
    OPEN,
    PARTNERS,
    PARTNERS_CAVEAT,
    SEALED,
    SHARED,
    MasterSeed,
    default_partners,
    partnership_games,
)
from arena.v1 import arena_pb2

if TYPE_CHECKING:
    from arena.store.bots import RegisteredBot
    from arena.store.packages import HostedVersion

MAX_DEALS = 1000
MAX_MATCHES = 200_000
MAX_ENTRIES = 64
MAX_NAME_CHARS = 200

FORMAT_PROTO = {name: f.proto for name, f in formats.FORMATS.items()}
"""Each format's ``arena.v1.TournamentFormat`` value (``Format.proto``)."""
FORMAT_NAMES = {
    value: f.name
    for value in arena_pb2.TournamentFormat.values()
    if (f := formats.by_proto(value)) is not None
}
"""The format each ``TournamentFormat`` value names (unset: a round robin)."""
PARAMS_OF = {name: f.params_field for name, f in formats.FORMATS.items() if f.params_field}
"""The ``TournamentSpec.format_params`` field each format takes, if any."""
LADDER = "ladder"
"""The ladder's name, as specs store it (code asks the format what it needs to know:
``arena.tournament.formats``)."""


SPEC = "tournament spec"
SPEC_VERSION = 3


class InvalidSpec(ValueError):
    """The spec cannot be scheduled; the message is for the organiser."""


class TooLarge(InvalidSpec):
    """The spec is valid but over the arena's limits."""


@dataclass(frozen=True)
class HostedPackage:
    """A hosted entry's package, as the workers send it to a referee."""

    sha256: str
    runtime: str
    command: str

    @classmethod
    def of(cls, version: HostedVersion) -> HostedPackage:
        return cls(version.sha256, version.runtime, version.command)

    def to_json(self) -> dict[str, str]:
        return {"sha256": self.sha256, "runtime": self.runtime, "command": self.command}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], kind: str = "hosted package") -> HostedPackage:
        f = Fields(kind, data)
        return cls(f.text("sha256", empty=False), f.text("runtime", empty=False), f.text("command"))


@dataclass(frozen=True)
class Entry:
    """An entry as it will play: a remote bot at its address, or one version of a hosted
    bot, fixed at submission so that a version submitted later changes nothing."""

    label: str
    """What the tournament calls it: the bot's name, or ``name@version`` when hosted."""
    games: tuple[str, ...]
    address: str = ""
    hosted: HostedPackage | None = None
    author: str = ""
    """Its owner (``RegisteredBot.author``); empty for a house bot of the operator's."""

    def how_to_play(self) -> dict[str, Any]:
        """What a worker needs to seat it (its address, or its package) and to store its
        results (its author)."""
        how: dict[str, Any] = {"author": self.author} if self.author else {}
        if self.hosted is not None:
            return how | {"hosted": self.hosted.to_json()}
        return how | {"address": self.address}

    @classmethod
    def from_how(cls, label: str, how: Mapping[str, Any]) -> Entry:
        """An entry as ``how_to_play`` stored it (a ladder's lineup): its games untold."""
        kind = f"lineup entry {label!r}"
        f = Fields(kind, how)
        author = f.text("author") if "author" in how else ""
        if "hosted" in how:
            return cls(
                label, (), hosted=HostedPackage.from_json(f.mapping("hosted"), kind), author=author
            )
        return cls(label, (), address=f.text("address"), author=author)


VersionLookup = Callable[[str, "str | None"], "HostedVersion | None"]
"""A hosted bot's version by name and label (None: its newest)."""


class Roster(Protocol):
    """What a ladder restricted to a competition's authors reads besides the registry
    (``competition_lineup``): the scheduler answers from Redis, tests from memory."""

    def versions(self, name: str) -> Sequence[HostedVersion]:
        """Every version of hosted bot ``name``."""

    def competitors(self, competition: str) -> Collection[str]:
        """The authors who joined ``competition``."""


@dataclass(frozen=True)
class TournamentPlan:
    entries: tuple[str, ...]
    """Entry labels, in the order given."""
    games: tuple[str, ...]
    deals: int
    move_deadline_ms: float
    max_faults: int
    seed: MasterSeed
    name: str
    lineup: Mapping[str, Entry]
    """Each entry by label."""
    time_bank_ms: float = 0.0
    fair_play: str = OPEN
    format: str = formats.ROUND_ROBIN
    format_params: Mapping[str, Any] = field(default_factory=dict)
    total: int | None = None
    """Matches the format will play, when it knows ahead (not stored with the spec: the
    tournament's ``total`` holds it)."""
    published_commitment: str = ""
    """The seed's commitment as stored when the tournament was submitted, which every
    read serves: a seed changed in the store later no longer matches it (empty until it
    is stored, and for a tournament from before commitments)."""
    broadcast_delay_ms: float = 0.0
    """How long watchers wait for each event of its matches, and for a match to be
    listed as live."""
    partners: str = SHARED
    """``isolated``: every entry that plays a partnership game is hosted."""
    max_entries_per_author: int = 0
    """As given: 0 for the default (``author_limit``)."""
    game_options: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """Each game's options as given (name -> text), for the games played with other than
    their defaults; a game not here plays its defaults. Every match of the game is played
    with them (``ScheduledMatch.options``). Stored only when some game has options, so a
    spec stored before they existed reads as every game at its defaults."""
    record_version: int = SPEC_VERSION

    def author_limit(self) -> int | None:
        """The most entries one author may have; None for no limit. Unless the spec says
        otherwise, the format's default (``Format.author_limit``): ladders and sealed
        tournaments rank authors against each other, one entry each; elsewhere, and in an
        SPRT (a version test), an author comparing their own versions is the usual case."""
        if self.max_entries_per_author:
            return self.max_entries_per_author
        return formats.get(self.format).author_limit(self.fair_play)

    def same_author(self, entries: Sequence[str], lineup: Mapping[str, Entry]) -> bool:
        """Whether the entries seated are all one author's (house bots are nobody's):
        their results are played but never rated."""
        authors = {lineup[e].author if e in lineup else "" for e in entries}
        return len(authors) == 1 and "" not in authors

    def shared_partners(self) -> list[str]:
        """The remote entries that play a partnership game: one process of theirs holds
        both seats of their team (a ladder's entries come later: checked as they join)."""
        games = set(partnership_games(self.played_games()))
        return [e.label for e in self.lineup.values() if not e.hosted and games & set(e.games)]

    def caveats(self) -> list[str]:
        """What every read of the tournament says of its results, beyond its fair-play
        mode and its seed's source, which reads show as they are."""
        shared = self.shared_partners()
        return [f"{PARTNERS_CAVEAT} ({', '.join(shared)})"] if shared else []

    def played_games(self) -> list[str]:
        """The games at least two entries play, in the order given (a ladder's entries
        come later: all of its games)."""
        if formats.get(self.format).open_lineup:
            return list(self.games)
        return [g for g in self.games if sum(g in e.games for e in self.lineup.values()) > 1]

    def commitment(self, tournament_id: str) -> str:
        """The master seed's commitment (``arena.tournament.fair_play``); empty for a
        tournament from before seeds were salted and committed to."""
        return self.seed.commitment(tournament_id) if self.seed.salt else ""

    def to_json(self, tournament_id: str) -> dict[str, Any]:
        """The stored spec; it holds the secret seed, which only reads after the end show.
        Raises ``RecordError`` (and nothing is written) if the plan is not valid."""
        check_version(SPEC, self.record_version, SPEC_VERSION)
        data = {
            "entries": list(self.entries),
            "games": list(self.games),
            "deals": self.deals,
            "move_deadline_ms": self.move_deadline_ms,
            "time_bank_ms": self.time_bank_ms,
            "max_faults": self.max_faults,
            "master_seed": self.seed.value,
            "seed_salt": self.seed.salt,
            "operator_seed": self.seed.operator,
            "seed_commitment": self.published_commitment or self.commitment(tournament_id),
            "fair_play": self.fair_play,
            "name": self.name,
            "addresses": {e: x.address for e, x in self.lineup.items() if not x.hosted},
            "hosted": {e: x.hosted.to_json() for e, x in self.lineup.items() if x.hosted},
            "games_of": {e: list(x.games) for e, x in self.lineup.items()},
            "format": self.format,
            "format_params": dict(self.format_params),
            "broadcast_delay_ms": self.broadcast_delay_ms,
            "partners": self.partners,
            "max_entries_per_author": self.max_entries_per_author,
            "authors": {e: x.author for e, x in self.lineup.items() if x.author},
            "record_version": self.record_version,
        }
        if self.game_options:
            data["game_options"] = {g: dict(o) for g, o in self.game_options.items()}
        _read_spec(data)
        return data

    @classmethod
    def from_json(cls, data: str | bytes | Mapping[str, Any]) -> TournamentPlan:
        """A stored spec as the current type; raises ``RecordError`` naming the field
        that is missing or wrong, or ``StaleRecord`` for an earlier build's spec."""
        return _read_spec(current(SPEC, parse(SPEC, data), SPEC_VERSION))


def _read_spec(data: Mapping[str, Any]) -> TournamentPlan:
    f = Fields(SPEC, data)
    entries = f.texts("entries")
    addresses = f.text_map("addresses")
    hosted = {
        label: HostedPackage.from_json(package, f"{SPEC}: hosted entry {label!r}")
        for label, package in f.mapping("hosted").items()
    }
    games_of = f.mapping("games_of")
    authors = f.text_map("authors")
    lineup = {}
    for label in entries:
        if label not in addresses and label not in hosted:
            f.fail("addresses", f"an address or a hosted package for entry {label!r}")
        games = Fields(f"{SPEC}: games_of", games_of).texts(label)
        lineup[label] = Entry(
            label,
            games,
            address=addresses.get(label, ""),
            hosted=hosted.get(label),
            author=authors.get(label, ""),
        )
    salt = f.text("seed_salt")
    if salt and not SALT.fullmatch(salt):
        f.fail("seed_salt", "32 lowercase hex digits, or empty (a seed never committed to)")
    commitment = f.text("seed_commitment")
    if commitment and not _COMMITMENT.fullmatch(commitment):
        f.fail("seed_commitment", "64 lowercase hex digits, or empty (a seed never committed to)")
    games = f.texts("games")
    return TournamentPlan(
        entries=entries,
        games=games,
        deals=f.integer("deals", 0),
        move_deadline_ms=f.number("move_deadline_ms", 0),
        time_bank_ms=f.number("time_bank_ms", 0),
        max_faults=f.integer("max_faults", 0),
        seed=MasterSeed(
            f.integer("master_seed", 0, MAX_SEED), salt, operator=f.flag("operator_seed")
        ),
        name=f.text("name"),
        lineup=lineup,
        fair_play=f.text("fair_play", _MODES),
        format=f.text("format", tuple(formats.FORMATS)),
        format_params=f.mapping("format_params"),
        published_commitment=commitment,
        broadcast_delay_ms=f.number("broadcast_delay_ms", 0),
        partners=f.text("partners", (ISOLATED, SHARED)),
        max_entries_per_author=f.integer("max_entries_per_author", 0, MAX_ENTRIES),
        game_options=_stored_options(f, games),
        record_version=f.integer("record_version", SPEC_VERSION, SPEC_VERSION),
    )


def _stored_options(f: Fields, games: Sequence[str]) -> dict[str, dict[str, str]]:
    """A stored spec's game options: none when stored without (or before there were
    any); each of a game the spec plays."""
    if "game_options" not in f.data:
        return {}
    stored = f.mapping("game_options")
    found: dict[str, dict[str, str]] = {}
    for game in stored:
        if game not in games:
            f.fail("game_options", f"options of the spec's games ({', '.join(games)})")
        found[game] = Fields(f"{SPEC}: game_options", stored).text_map(game)
    return found


def checked_options(game: str, options: Mapping[str, str]) -> dict[str, str]:
    """``options`` of ``game`` as given, sorted by name, once the game accepts them
    (``GameInfo.resolve_options``); else ``OptionError`` saying what is allowed. A
    tournament's and a competition's game options are checked by this one function."""
    get_game(game).info.resolve_options(dict(options))
    return dict(sorted(options.items()))


def _game_options(
    given: Mapping[str, arena_pb2.GameOptions], games: Sequence[str]
) -> dict[str, dict[str, str]]:
    """``TournamentSpec.game_options``, checked: options of games the tournament plays,
    each accepted by its game; games given no options left out."""
    found: dict[str, dict[str, str]] = {}
    for game in sorted(given):
        if game not in games:
            raise InvalidSpec(
                f"game_options names {game!r}, which this tournament does not play; give "
                f"options for its games: {', '.join(games)}"
            )
        try:
            options = checked_options(game, given[game].options)
        except OptionError as error:
            raise InvalidSpec(str(error)) from None
        if options:
            found[game] = options
    return found


_MODES = tuple(sorted(set(MODES.values())))
_COMMITMENT = re.compile(r"[0-9a-f]{64}")


def plan(
    spec: arena_pb2.TournamentSpec,
    registered: Mapping[str, RegisteredBot],
    version_of: VersionLookup,
) -> TournamentPlan:
    """Validate ``spec`` against the registry, fixing each hosted entry's version."""
    format_name, params = _format(spec)
    kind = formats.get(format_name)
    try:
        kind.check_entries(spec.entries, spec.games)
    except formats.InvalidFormat as error:
        raise InvalidSpec(str(error)) from None
    if len(spec.entries) > MAX_ENTRIES:
        raise TooLarge(f"at most {MAX_ENTRIES} entries, got {len(spec.entries)}")
    lineup = [_entry(e, registered, version_of) for e in spec.entries]
    entries = tuple(e.label for e in lineup)
    repeated = sorted({e for e in entries if entries.count(e) > 1})
    if repeated:
        raise InvalidSpec(f"each entry may appear once; repeated: {', '.join(repeated)}")
    games = tuple(spec.games) or _default_games(kind, lineup)
    if len(set(games)) != len(games):
        twice = sorted({g for g in games if games.count(g) > 1})
        raise InvalidSpec(f"each game may be listed once; repeated: {', '.join(twice)}")
    for game in games:
        try:
            get_game(game)
        except UnknownGameError as error:
            raise InvalidSpec(str(error)) from None
    deals = spec.deals or (1 if kind.deals_as_needed else 0)
    if not 1 <= deals <= MAX_DEALS:
        raise InvalidSpec(f"deals must be 1..{MAX_DEALS} per pairing and game, got {spec.deals}")
    try:
        deadline_ms = 1000 * limits.move_deadline_s(
            spec.move_deadline if spec.HasField("move_deadline") else None
        )
        time_bank_ms = 1000 * limits.time_bank_s(
            spec.time_bank if spec.HasField("time_bank") else None
        )
        delay_ms = 1000 * limits.broadcast_delay_s(
            spec.broadcast_delay if spec.HasField("broadcast_delay") else None
        )
        limits.max_faults(spec.max_faults)
    except limits.LimitError as error:
        raise InvalidSpec(str(error)) from None
    if len(spec.name) > MAX_NAME_CHARS:
        raise InvalidSpec(f"name is {len(spec.name)} characters; at most {MAX_NAME_CHARS}")
    mode = _fair_play(spec.fair_play, entries, {e.label for e in lineup if e.hosted})
    partners = _partners(spec.partners, mode)
    if not 0 <= spec.max_entries_per_author <= MAX_ENTRIES:
        raise InvalidSpec(
            f"max_entries_per_author must be 1 to {MAX_ENTRIES}, or 0 for the default (1 in a "
            f"ladder or a sealed tournament, else no limit), got {spec.max_entries_per_author}"
        )
    options = _game_options(spec.game_options, games)
    seed = MasterSeed.given(spec.master_seed) if spec.HasField("master_seed") else MasterSeed.draw()
    planned = TournamentPlan(
        entries=entries,
        games=games,
        deals=deals,
        move_deadline_ms=deadline_ms,
        time_bank_ms=time_bank_ms,
        max_faults=spec.max_faults,
        seed=seed,
        name=spec.name,
        fair_play=mode,
        lineup={e.label: e for e in lineup},
        format=format_name,
        format_params=params,
        broadcast_delay_ms=delay_ms,
        partners=partners,
        max_entries_per_author=spec.max_entries_per_author,
        game_options=options,
    )
    _check_authors(planned)
    shared = planned.shared_partners()
    if partners == ISOLATED and shared:
        raise InvalidSpec(
            "PARTNERS_ISOLATED seats each partner in a sandbox of its own, so every entry "
            f"that plays a partnership game ({', '.join(partnership_games(games))}) must be "
            f"a hosted bot; remote: {', '.join(shared)}. Use PARTNERS_SHARED (every read "
            f"then says {PARTNERS_CAVEAT!r}), or leave those games out"
        )
    try:
        total = formats.build("check", planned).total()
    except formats.InvalidFormat as error:
        raise InvalidSpec(str(error)) from None
    if total == 0:
        raise InvalidSpec("no two entries play a common game among: " + ", ".join(games))
    if total is not None and total > MAX_MATCHES:
        raise TooLarge(
            f"{total} matches is over the limit of {MAX_MATCHES}: use fewer deals or entries"
        )
    return replace(planned, total=total)


def _check_authors(planned: TournamentPlan) -> None:
    limit = planned.author_limit()
    if limit is None:
        return
    over = {
        author: labels
        for author, labels in _by_author(planned.lineup.values()).items()
        if len(labels) > limit
    }
    if over:
        listed = "; ".join(f"{a}: {', '.join(labels)}" for a, labels in sorted(over.items()))
        raise InvalidSpec(
            f"at most {limit} {'entry' if limit == 1 else 'entries'} per author in this "
            f"tournament (max_entries_per_author); over it: {listed}. Enter fewer of their "
            "bots, or raise max_entries_per_author (house bots, with no author, do not count)"
        )


def _by_author(entries: Iterable[Entry]) -> dict[str, list[str]]:
    """Each author's entries' labels, in order; house bots (no author) left out."""
    found: dict[str, list[str]] = {}
    for entry in entries:
        if entry.author:
            found.setdefault(entry.author, []).append(entry.label)
    return found


def ladder_lineup(
    spec: TournamentPlan, registered: Sequence[RegisteredBot], version_of: VersionLookup
) -> list[Entry]:
    """Who plays a ladder now: every registered bot that plays one of its games (a
    hosted bot as its newest version), only hosted ones if the ladder is sealed, and if
    its partners are isolated, no remote bot that would play a partnership game."""
    games = set(spec.games)
    lineup = []
    limit = spec.author_limit()
    taken: dict[str, int] = {}
    # An author over the limit plays the bots registered (or submitted to) last.
    for bot in sorted(registered, key=lambda b: -b.registered_at):
        if bot.author and limit is not None and taken.get(bot.author, 0) >= limit:
            continue
        if bot.hosted:
            version = version_of(bot.name, None)
            entry = None if version is None else hosted_entry(version, bot.author)
        elif spec.fair_play != SEALED:
            entry = Entry(bot.name, bot.games, address=bot.address, author=bot.author)
            if spec.partners == ISOLATED and partnership_games(set(spec.games) & set(bot.games)):
                entry = None  # its one process would hold both seats of its team
        else:
            entry = None
        if entry is not None and games & set(entry.games):
            lineup.append(entry)
            if bot.author:
                taken[bot.author] = taken.get(bot.author, 0) + 1
    return sorted(lineup, key=lambda e: e.label)[:MAX_ENTRIES]


def competition_lineup(
    spec: TournamentPlan, registered: Sequence[RegisteredBot], roster: Roster, competition: str
) -> list[Entry]:
    """Who plays a competition's ladder now: each competitor's active versions
    (``arena.tournament.active_versions``: their newest ``max_entries_per_author``
    versions, across their hosted bots, that play one of its games), each as
    ``name@version``. Remote bots and authors who did not join take no part."""
    authors = set(roster.competitors(competition))
    mine = by_author(
        registered, roster.versions, authors, spec.max_entries_per_author or 1, spec.games
    )
    lineup = [
        hosted_entry(version, author) for author, versions in mine.items() for version in versions
    ]
    return sorted(lineup, key=lambda e: e.label)[:MAX_ENTRIES]


def _format(spec: arena_pb2.TournamentSpec) -> tuple[str, dict[str, Any]]:
    """The format's name and its parameters, which must be its own."""
    name = FORMAT_NAMES.get(spec.format)
    if name is None:
        allowed = ", ".join(arena_pb2.TournamentFormat.Name(v) for v in FORMAT_PROTO.values())
        raise InvalidSpec(f"unknown format {spec.format}; allowed: {allowed}")
    takes = formats.get(name).params_field
    given = spec.WhichOneof("format_params")
    if given is not None and given != takes:
        what = f"its parameters are {takes}" if takes else "it has none"
        raise InvalidSpec(f"{given} parameters do not fit a {name} tournament: {what}")
    if given is None:
        return name, {}
    return name, json_format.MessageToDict(
        getattr(spec, given),
        preserving_proto_field_name=True,
        always_print_fields_with_no_presence=True,
    )


def _default_games(kind: type[formats.Format], lineup: Sequence[Entry]) -> tuple[str, ...]:
    if not kind.shared_games:
        return tuple(game_names())
    shared = tuple(g for g in game_names() if all(g in e.games for e in lineup))
    if not shared:
        raise InvalidSpec(
            f"in a {kind.name} tournament every entry plays every game, and these entries "
            "have no game in common: "
            + "; ".join(f"{e.label} plays {', '.join(e.games)}" for e in lineup)
        )
    return shared


def _entry(given: str, registered: Mapping[str, RegisteredBot], version_of: VersionLookup) -> Entry:
    """The entry ``given`` names: ``name``, or ``name@version`` for a hosted bot."""
    name, at, label = given.partition("@")
    bot = registered.get(name)
    if bot is None:
        known = ", ".join(sorted(registered)) or "none"
        raise InvalidSpec(f"unknown bot {name!r}: register it first (registered bots: {known})")
    if not bot.hosted:
        if at:
            raise InvalidSpec(
                f"{given!r}: {name} is a remote bot, which has no versions; enter it as {name!r}"
            )
        return Entry(name, bot.games, address=bot.address, author=bot.author)
    version = version_of(name, label if at else None)
    if version is None:
        raise InvalidSpec(
            f"hosted bot {name!r} has no version {label!r}; `arena bot versions {name}` "
            "lists them (enter just the name for the newest)"
        )
    return hosted_entry(version, bot.author)


def hosted_entry(version: HostedVersion, author: str) -> Entry:
    """A hosted version as an entry, fixed to that version's package."""
    return Entry(version.label, version.games, hosted=HostedPackage.of(version), author=author)


def _partners(value: int, mode: str) -> str:
    if value == arena_pb2.PARTNERS_UNSPECIFIED:
        return default_partners(mode)
    partners: str | None = PARTNERS.get(value)  # type: ignore[call-overload]
    if partners is None:
        raise InvalidSpec(
            f"unknown partners {value}; allowed: PARTNERS_SHARED (a remote entry's one "
            "process plays both seats of its team, and reads say so), PARTNERS_ISOLATED "
            "(hosted entries only, each seat its own sandbox) or unset (isolated when "
            "sealed, else shared)"
        )
    return partners


def _fair_play(value: int, entries: Sequence[str], hosted: set[str]) -> str:
    mode: str | None = MODES.get(value)  # type: ignore[call-overload]
    if mode is None:
        raise InvalidSpec(
            f"unknown fair_play {value}; allowed: FAIR_PLAY_OPEN (the default, for remote "
            "bots), FAIR_PLAY_SEALED (duplicate pairs, every entry hosted) or "
            "FAIR_PLAY_TRUSTED (duplicate pairs between entries the operator vouches for)"
        )
    remote = [e for e in entries if e not in hosted]
    if mode == SEALED and remote:
        raise InvalidSpec(
            "FAIR_PLAY_SEALED plays duplicate pairs, so every entry must be a hosted bot "
            f"that cannot remember one half in the other; not hosted: {', '.join(remote)}. "
            "Use FAIR_PLAY_OPEN for remote bots, or FAIR_PLAY_TRUSTED if you vouch for them"
        )
    return mode
