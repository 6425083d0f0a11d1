"""Validation of tournament specs: every rejection says what was wrong and what is allowed.

A validated spec is a ``TournamentPlan``, which is also what a tournament stores as its
``spec`` (``arena:t:{id}``): ``to_json`` / ``from_json`` and the versions of the stored
spec are those of every stored record (``arena.records``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from google.protobuf import json_format

from arena import limits
from arena.games import UnknownGameError, game_names, get_game
from arena.records import Fields, check_version, parse, upgrade
from arena.referee.commitment import SALT
from arena.tournament import formats
from arena.tournament.fair_play import MAX_SEED, MODES, OPEN, SEALED, TRUSTED, MasterSeed
from arena.v1 import arena_pb2

if TYPE_CHECKING:
    from arena.store.bots import RegisteredBot
    from arena.store.packages import HostedVersion

MAX_DEALS = 1000
MAX_MATCHES = 200_000
MAX_ENTRIES = 64
MAX_NAME_CHARS = 200

FORMAT_NAMES = {
    arena_pb2.FORMAT_UNSPECIFIED: formats.ROUND_ROBIN,
    arena_pb2.FORMAT_ROUND_ROBIN: formats.ROUND_ROBIN,
    arena_pb2.FORMAT_GAUNTLET: "gauntlet",
    arena_pb2.FORMAT_SWISS: "swiss",
    arena_pb2.FORMAT_KNOCKOUT: "knockout",
    arena_pb2.FORMAT_SPRT: "sprt",
    arena_pb2.FORMAT_LADDER: "ladder",
}
FORMAT_PROTO = {name: value for value, name in FORMAT_NAMES.items() if value}
PARAMS_OF = {"gauntlet": "gauntlet", "swiss": "swiss", "sprt": "sprt"}
"""The ``TournamentSpec.format_params`` field each format takes, if any."""
LADDER = "ladder"
DEALS_AS_NEEDED = frozenset({"sprt", LADDER})
"""Formats that deal as many deals as they need: ``deals`` may be left unset."""
SHARED_GAMES = frozenset({"swiss", "knockout", "sprt"})
"""Formats in which every entry plays every game: their games default to the ones all
the entries play."""


SPEC = "tournament spec"
SPEC_VERSION = 2


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

    def how_to_play(self) -> dict[str, Any]:
        """What a worker needs to seat it: its address, or its package."""
        if self.hosted is not None:
            return {"hosted": self.hosted.to_json()}
        return {"address": self.address}

    @classmethod
    def from_how(cls, label: str, how: Mapping[str, Any]) -> Entry:
        """An entry as ``how_to_play`` stored it (a ladder's lineup): its games untold."""
        kind = f"lineup entry {label!r}"
        if "hosted" in how:
            return cls(
                label, (), hosted=HostedPackage.from_json(Fields(kind, how).mapping("hosted"), kind)
            )
        return cls(label, (), address=Fields(kind, how).text("address"))


VersionLookup = Callable[[str, "str | None"], "HostedVersion | None"]
"""A hosted bot's version by name and label (None: its newest)."""


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
    record_version: int = SPEC_VERSION

    def played_games(self) -> list[str]:
        """The games at least two entries play, in the order given (a ladder's entries
        come later: all of its games)."""
        if self.format == LADDER:
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
            "record_version": self.record_version,
        }
        _read_spec(data)
        return data

    @classmethod
    def from_json(cls, data: str | bytes | Mapping[str, Any]) -> TournamentPlan:
        """A stored spec, of any version, as the current type; raises ``RecordError``
        naming the field that is missing or wrong."""
        return _read_spec(upgrade(SPEC, parse(SPEC, data), _SPEC_UPGRADES))


def _spec_v2(data: dict[str, Any]) -> None:
    """Version 1: specs stored before these fields were kept. Tournaments from before
    fair play shared every pair's deal (trusted) and played the operator's seed, unsalted
    and uncommitted; before formats, a round robin of every entry in every game."""
    data.setdefault("time_bank_ms", 0.0)
    data.setdefault("seed_salt", "")
    data.setdefault("operator_seed", True)
    data.setdefault("seed_commitment", "")
    data.setdefault("fair_play", TRUSTED)
    data.setdefault("hosted", {})
    if "games_of" not in data and isinstance(data.get("entries"), list):
        data["games_of"] = {e: data.get("games") for e in data["entries"]}
    data.setdefault("format", formats.ROUND_ROBIN)
    data.setdefault("format_params", {})


_SPEC_UPGRADES = (_spec_v2,)


def _read_spec(data: Mapping[str, Any]) -> TournamentPlan:
    f = Fields(SPEC, data)
    entries = f.texts("entries")
    addresses = f.text_map("addresses")
    hosted = {
        label: HostedPackage.from_json(package, f"{SPEC}: hosted entry {label!r}")
        for label, package in f.mapping("hosted").items()
    }
    games_of = f.mapping("games_of")
    lineup = {}
    for label in entries:
        if label not in addresses and label not in hosted:
            f.fail("addresses", f"an address or a hosted package for entry {label!r}")
        games = Fields(f"{SPEC}: games_of", games_of).texts(label)
        lineup[label] = Entry(
            label, games, address=addresses.get(label, ""), hosted=hosted.get(label)
        )
    salt = f.text("seed_salt")
    if salt and not SALT.fullmatch(salt):
        f.fail("seed_salt", "32 lowercase hex digits, or empty (a seed never committed to)")
    commitment = f.text("seed_commitment")
    if commitment and not _COMMITMENT.fullmatch(commitment):
        f.fail("seed_commitment", "64 lowercase hex digits, or empty (a seed never committed to)")
    return TournamentPlan(
        entries=entries,
        games=f.texts("games"),
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
        record_version=f.integer("record_version", SPEC_VERSION, SPEC_VERSION),
    )


_MODES = tuple(sorted(set(MODES.values())))
_COMMITMENT = re.compile(r"[0-9a-f]{64}")


def plan(
    spec: arena_pb2.TournamentSpec,
    registered: Mapping[str, RegisteredBot],
    version_of: VersionLookup,
) -> TournamentPlan:
    """Validate ``spec`` against the registry, fixing each hosted entry's version."""
    format_name, params = _format(spec)
    if format_name == LADDER:
        if spec.entries:
            raise InvalidSpec(
                "a ladder's entries are every registered bot that plays one of its games, "
                "joining as they register: leave entries empty"
            )
        if not spec.games:
            raise InvalidSpec(
                f"a ladder plays the games it names: give one or more of {', '.join(game_names())}"
            )
    elif len(spec.entries) < 2:
        raise InvalidSpec(f"a tournament needs at least 2 entries, got {len(spec.entries)}")
    if len(spec.entries) > MAX_ENTRIES:
        raise TooLarge(f"at most {MAX_ENTRIES} entries, got {len(spec.entries)}")
    lineup = [_entry(e, registered, version_of) for e in spec.entries]
    entries = tuple(e.label for e in lineup)
    repeated = sorted({e for e in entries if entries.count(e) > 1})
    if repeated:
        raise InvalidSpec(f"each entry may appear once; repeated: {', '.join(repeated)}")
    games = tuple(spec.games) or _default_games(format_name, lineup)
    if len(set(games)) != len(games):
        twice = sorted({g for g in games if games.count(g) > 1})
        raise InvalidSpec(f"each game may be listed once; repeated: {', '.join(twice)}")
    for game in games:
        try:
            get_game(game)
        except UnknownGameError as error:
            raise InvalidSpec(str(error)) from None
    deals = spec.deals or (1 if format_name in DEALS_AS_NEEDED else 0)
    if not 1 <= deals <= MAX_DEALS:
        raise InvalidSpec(f"deals must be 1..{MAX_DEALS} per pairing and game, got {spec.deals}")
    try:
        deadline_ms = 1000 * limits.move_deadline_s(
            spec.move_deadline if spec.HasField("move_deadline") else None
        )
        time_bank_ms = 1000 * limits.time_bank_s(
            spec.time_bank if spec.HasField("time_bank") else None
        )
        limits.max_faults(spec.max_faults)
    except limits.LimitError as error:
        raise InvalidSpec(str(error)) from None
    if len(spec.name) > MAX_NAME_CHARS:
        raise InvalidSpec(f"name is {len(spec.name)} characters; at most {MAX_NAME_CHARS}")
    mode = _fair_play(spec.fair_play, entries, {e.label for e in lineup if e.hosted})
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


def ladder_lineup(
    spec: TournamentPlan, registered: Sequence[RegisteredBot], version_of: VersionLookup
) -> list[Entry]:
    """Who plays a ladder now: every registered bot that plays one of its games (a
    hosted bot as its newest version), only hosted ones if the ladder is sealed."""
    games = set(spec.games)
    lineup = []
    for bot in registered:
        if bot.hosted:
            version = version_of(bot.name, None)
            entry = None if version is None else _hosted_entry(version)
        elif spec.fair_play != SEALED:
            entry = Entry(bot.name, bot.games, address=bot.address)
        else:
            entry = None
        if entry is not None and games & set(entry.games):
            lineup.append(entry)
    return sorted(lineup, key=lambda e: e.label)[:MAX_ENTRIES]


def _format(spec: arena_pb2.TournamentSpec) -> tuple[str, dict[str, Any]]:
    """The format's name and its parameters, which must be its own."""
    name = FORMAT_NAMES.get(spec.format)
    if name is None:
        allowed = ", ".join(arena_pb2.TournamentFormat.Name(v) for v in FORMAT_PROTO.values())
        raise InvalidSpec(f"unknown format {spec.format}; allowed: {allowed}")
    given = spec.WhichOneof("format_params")
    if given is not None and given != PARAMS_OF.get(name):
        takes = f"its parameters are {PARAMS_OF[name]}" if name in PARAMS_OF else "it has none"
        raise InvalidSpec(f"{given} parameters do not fit a {name} tournament: {takes}")
    if given is None:
        return name, {}
    return name, json_format.MessageToDict(
        getattr(spec, given),
        preserving_proto_field_name=True,
        always_print_fields_with_no_presence=True,
    )


def _default_games(format_name: str, lineup: Sequence[Entry]) -> tuple[str, ...]:
    if format_name not in SHARED_GAMES:
        return tuple(game_names())
    shared = tuple(g for g in game_names() if all(g in e.games for e in lineup))
    if not shared:
        raise InvalidSpec(
            f"in a {format_name} tournament every entry plays every game, and these entries "
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
        return Entry(name, bot.games, address=bot.address)
    version = version_of(name, label if at else None)
    if version is None:
        raise InvalidSpec(
            f"hosted bot {name!r} has no version {label!r}; `arena bot versions {name}` "
            "lists them (enter just the name for the newest)"
        )
    return _hosted_entry(version)


def _hosted_entry(version: HostedVersion) -> Entry:
    return Entry(version.label, version.games, hosted=HostedPackage.of(version))


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
