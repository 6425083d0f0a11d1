"""A competition's spec: what the operator asks for, checked once, and stored as a
typed, versioned record (``arena.records``).

The checks are the tournaments' where a competition has the same thing: names as bot
names, fair-play modes and partners by ``arena.tournament.fair_play``'s names, deals
within ``arena.tournament.spec.MAX_DEALS``, deadlines, time banks and faults by
``arena.limits``. Every refusal says what is allowed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from google.protobuf import duration_pb2, timestamp_pb2

from arena import limits
from arena.competition.phases import Timeline
from arena.games import OptionError, UnknownGameError, game_name, game_names
from arena.records import Fields, RecordError, check_version, current, parse
from arena.tournament.fair_play import MODES, PARTNERS, SEALED, default_partners
from arena.tournament.leagues import LEAGUES, PROMOTION_LOS, PROMOTION_PAIRS, League, Leagues
from arena.tournament.spec import MAX_DEALS, checked_options
from arena.v1 import arena_pb2

KIND = "competition"
VERSION = 1
MAX_DESCRIPTION_CHARS = 20_000
"""A description is Markdown for a page, not a place to store files."""
OPENS_GRACE_S = 60.0
"""How far in the past a timeline may open: a spec written a moment ago, sent now."""
MAX_AHEAD_S = 10 * 366 * 86400.0
"""How far ahead a timeline may end: ten years."""
DAILY_SUBMISSIONS = (5, 1, 1000)
"""The default, least and most versions an author may submit a day."""
ACTIVE_VERSIONS = (1, 1, 20)
"""The default, least and most versions of an author that play at once."""
FINAL_DEALS = (50, 1, MAX_DEALS)
"""The default, least and most of the most deals per pairing and game in the final
(the budget its number of deals is chosen within: ``arena.competition.final_deals``)."""
FINAL_LOS = 0.95
"""The default likelihood of superiority the final separates adjacent ranks at; a rule
must be above 0.5 (a coin toss separates nothing) and below 1 (no number of deals
reaches certainty)."""
_FAIR_PLAY_NAMES = "FAIR_PLAY_OPEN (the default), FAIR_PLAY_SEALED or FAIR_PLAY_TRUSTED"
_PARTNERS_NAMES = "PARTNERS_SHARED, PARTNERS_ISOLATED or unset (isolated when sealed, else shared)"


class InvalidCompetition(ValueError):
    """A spec that does not fit; the message says what is allowed."""


@dataclass(frozen=True)
class Rules:
    """How the competition is played (``arena_pb2.CompetitionRules``, defaults applied)."""

    fair_play: str
    partners: str
    daily_submissions: int
    active_versions: int
    final_deals: int
    """The most deals per pairing and game in the final."""
    final_los: float
    """The LOS the final's deals are chosen to separate adjacent ranks at, and under
    which its board reports them tied."""
    move_deadline_ms: float
    time_bank_ms: float
    max_faults: int
    leagues: Leagues | None = None
    """The open ladder's leagues (``arena.tournament.leagues``); None: no leagues."""


@dataclass(frozen=True)
class CompetitionSpec:
    name: str
    description: str
    games: tuple[tuple[str, dict[str, str]], ...]
    """Each game's canonical name and its options as given (checked by the engine)."""
    timeline: Timeline
    rules: Rules
    record_version: int = field(default=VERSION)

    def game_options(self) -> dict[str, dict[str, str]]:
        """The options of each game given some, as a tournament's spec takes them
        (``TournamentPlan.game_options``): the open ladder and the final play them."""
        return {game: dict(options) for game, options in self.games if options}

    def to_json(self) -> str:
        """The stored JSON; raises ``RecordError`` (nothing is written) if not valid."""
        check_version(KIND, self.record_version, VERSION)
        data = {**asdict(self), "games": [{"game": g, "options": o} for g, o in self.games]}
        _read(data)
        return json.dumps(data)

    @classmethod
    def from_json(cls, text: str | bytes | Mapping[str, Any]) -> CompetitionSpec:
        """A stored spec as the current type; raises ``RecordError``."""
        found = parse(KIND, text)
        return _read(current(KIND, found, VERSION, str(found.get("name", ""))))


def _read(data: Mapping[str, Any]) -> CompetitionSpec:
    f = Fields(KIND, data)
    games = data.get("games")
    if not isinstance(games, list):
        f.fail("games", "a list of games")
    read = []
    for entry in games:
        g = Fields(f"{KIND} game", entry if isinstance(entry, Mapping) else {})
        read.append((g.text("game", empty=False), g.text_map("options")))
    t = Fields(f"{KIND} timeline", f.mapping("timeline"))
    r = Fields(f"{KIND} rules", f.mapping("rules"))
    return CompetitionSpec(
        name=f.text("name", empty=False),
        description=f.text("description"),
        games=tuple(read),
        timeline=Timeline(
            t.number("opens_at", 0),
            t.number("submissions_close_at", 0),
            t.number("final_ends_at", 0),
        ),
        rules=Rules(
            fair_play=r.text("fair_play", sorted(set(MODES.values()))),
            partners=r.text("partners", sorted(set(PARTNERS.values()))),
            daily_submissions=r.integer("daily_submissions", 1, DAILY_SUBMISSIONS[2]),
            active_versions=r.integer("active_versions", 1, ACTIVE_VERSIONS[2]),
            final_deals=r.integer("final_deals", 1, FINAL_DEALS[2]),
            final_los=_stored_los(r),
            move_deadline_ms=r.number("move_deadline_ms", 0),
            time_bank_ms=r.number("time_bank_ms", 0),
            max_faults=r.integer("max_faults", 0, limits.MAX_FAULTS_LIMIT),
            leagues=_stored_leagues(r),
        ),
        record_version=f.integer("record_version", VERSION, VERSION),
    )


def check(message: arena_pb2.CompetitionSpec, now: float) -> CompetitionSpec:
    """The spec ``message`` asks for, checked at ``now``; ``InvalidCompetition`` saying
    what is allowed if it does not fit."""
    if not limits.BOT_NAME.match(message.name):
        raise InvalidCompetition(
            f"bad competition name {message.name!r}: use 1 to 40 letters, digits, '-', '_' or '.'"
        )
    if len(message.description) > MAX_DESCRIPTION_CHARS:
        raise InvalidCompetition(
            f"description is {len(message.description)} characters; at most "
            f"{MAX_DESCRIPTION_CHARS:,}"
        )
    spec = CompetitionSpec(
        name=message.name,
        description=message.description,
        games=_games(message.games),
        timeline=_timeline(message.timeline if message.HasField("timeline") else None, now),
        rules=_rules(message.rules),
    )
    try:
        spec.to_json()
    except RecordError as error:  # a value no check above caught: still say so
        raise InvalidCompetition(str(error)) from None
    return spec


def _games(
    games: Any,
) -> tuple[tuple[str, dict[str, str]], ...]:
    if not games:
        return tuple((name, {}) for name in game_names())
    found: list[tuple[str, dict[str, str]]] = []
    for choice in games:
        try:
            name = game_name(choice.game)
            options = checked_options(name, choice.options)
        except (UnknownGameError, OptionError) as error:
            raise InvalidCompetition(str(error)) from None
        if name in (g for g, _ in found):
            raise InvalidCompetition(f"each game may be listed once; repeated: {name}")
        found.append((name, options))
    return tuple(found)


def seconds(value: timestamp_pb2.Timestamp) -> float:
    """A timestamp as ``time.time()`` gives it."""
    return value.seconds + value.nanos / 1e9


def _timeline(message: arena_pb2.CompetitionTimeline | None, now: float) -> Timeline:
    names: tuple[Literal["opens_at", "submissions_close_at", "final_ends_at"], ...] = (
        "opens_at",
        "submissions_close_at",
        "final_ends_at",
    )
    missing = [n for n in names if message is None or not message.HasField(n)]
    if message is None or missing:
        raise InvalidCompetition(
            f"the timeline needs {', '.join(names)} (UTC), strictly increasing; missing: "
            f"{', '.join(missing)}"
        )
    times = [seconds(getattr(message, n)) for n in names]
    for i in (1, 2):
        if times[i] <= times[i - 1]:
            raise InvalidCompetition(
                f"the timeline must be strictly increasing: {names[i]} ({_utc(times[i])}) is "
                f"not after {names[i - 1]} ({_utc(times[i - 1])})"
            )
    if times[0] < now - OPENS_GRACE_S:
        raise InvalidCompetition(
            f"opens_at ({_utc(times[0])}) is in the past: it may be at most "
            f"{OPENS_GRACE_S:g} s before now ({_utc(now)})"
        )
    if times[2] > now + MAX_AHEAD_S:
        raise InvalidCompetition(
            f"final_ends_at ({_utc(times[2])}) is more than ten years ahead; the timeline "
            "must end before then"
        )
    return Timeline(*times)


def _utc(when: float) -> str:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromNanoseconds(int(when * 1e9))
    return stamp.ToJsonString()


def _rules(message: arena_pb2.CompetitionRules) -> Rules:
    mode: str | None = MODES.get(message.fair_play)
    if mode is None:
        raise InvalidCompetition(
            f"unknown fair_play {message.fair_play}; allowed: {_FAIR_PLAY_NAMES}"
        )
    if message.partners == arena_pb2.PARTNERS_UNSPECIFIED:
        partners = default_partners(mode)
    else:
        given: str | None = PARTNERS.get(message.partners)
        if given is None:
            raise InvalidCompetition(
                f"unknown partners {message.partners}; allowed: {_PARTNERS_NAMES}"
            )
        partners = given
    try:
        deadline_ms = 1000 * limits.move_deadline_s(
            message.move_deadline if message.HasField("move_deadline") else None
        )
        bank_ms = 1000 * limits.time_bank_s(
            message.time_bank if message.HasField("time_bank") else None
        )
        limits.max_faults(message.max_faults)
    except limits.LimitError as error:
        raise InvalidCompetition(str(error)) from None
    return Rules(
        fair_play=mode,
        partners=partners,
        daily_submissions=_count("daily_submissions", message.daily_submissions, DAILY_SUBMISSIONS),
        active_versions=_count("active_versions", message.active_versions, ACTIVE_VERSIONS),
        final_deals=_count("final_deals", message.final_deals, FINAL_DEALS),
        final_los=_los("final_los", message.final_los),
        move_deadline_ms=deadline_ms,
        time_bank_ms=bank_ms,
        max_faults=message.max_faults,
        leagues=_leagues(message, mode),
    )


def _count(name: str, value: int, bounds: tuple[int, int, int]) -> int:
    default, low, high = bounds
    if value == 0:
        return default
    if not low <= value <= high:
        raise InvalidCompetition(f"{name} must be {low} to {high:,} (0 for {default}), got {value}")
    return value


def _los(name: str, value: float) -> float:
    if value == 0:
        return FINAL_LOS
    if not 0.5 < value < 1:  # NaN fails too
        raise InvalidCompetition(
            f"{name} must be above 0.5 and below 1, such as 0.95 (0 for {FINAL_LOS:g}), "
            f"got {value:g}"
        )
    return value


def _stored_los(rules: Fields) -> float:
    """A stored spec's ``final_los``: one stored before the rule existed has none, and
    its final was meant to report ties at the default."""
    if "final_los" not in rules.data:
        return FINAL_LOS
    value = rules.number("final_los", 0.5)
    if not 0.5 < value < 1:
        rules.fail("final_los", "a number above 0.5 and below 1")
    return value


def duration(ms: float) -> duration_pb2.Duration:
    """Milliseconds on the wire."""
    value = duration_pb2.Duration()
    value.FromNanoseconds(int(ms * 1e6))
    return value


def _leagues(message: arena_pb2.CompetitionRules, mode: str) -> Leagues | None:
    """The rules' leagues: promotion is judged in sealed duplicate pairs, so they need
    sealed play; 2 to 8, names unique, every league but the last with a boss."""
    given = [(x.name, x.boss) for x in message.leagues]
    if not given:
        if message.promotion_los or message.promotion_pairs:
            raise InvalidCompetition("promotion_los and promotion_pairs need leagues: list them")
        return None
    low, high = LEAGUES
    if mode != SEALED:
        raise InvalidCompetition(
            "leagues need fair_play = FAIR_PLAY_SEALED: a version moves up by beating its "
            "league's boss in duplicate pairs, which only sealed play makes fair"
        )
    if not low <= len(given) <= high:
        raise InvalidCompetition(
            f"give {low} to {high} leagues, lowest first, each with a boss but the last "
            f"(the top), got {len(given)}"
        )
    for i, (name, boss) in enumerate(given):
        if not limits.BOT_NAME.match(name):
            raise InvalidCompetition(
                f"bad league name {name!r}: use 1 to 40 letters, digits, '-', '_' or '.'"
            )
        top = i == len(given) - 1
        if top and boss:
            raise InvalidCompetition(
                f"the top league ({name}) has no boss: nobody moves past it; leave its boss out"
            )
        if not top and not _BOSS.match(boss):
            raise InvalidCompetition(
                f"league {name!r} needs a boss, a hosted bot's version as 'name@version' "
                f"(sealed play seats only hosted bots), got {boss!r}"
            )
    names = [name for name, _ in given]
    bosses = [boss for _, boss in given if boss]
    for what, found in (("league name", names), ("boss", bosses)):
        twice = sorted({x for x in found if found.count(x) > 1})
        if twice:
            listed = ", ".join(twice)
            raise InvalidCompetition(f"each {what} may be listed once; repeated: {listed}")
    los, least_los, most_los = PROMOTION_LOS
    promotion_los = message.promotion_los or los
    if not least_los < promotion_los <= most_los:  # NaN fails too
        raise InvalidCompetition(
            f"promotion_los must be above {least_los:g} (a coin toss) and at most "
            f"{most_los:g} (0 for {los:g}), got {message.promotion_los:g}"
        )
    pairs = _count("promotion_pairs", message.promotion_pairs, PROMOTION_PAIRS)
    return Leagues(tuple(League(n, b) for n, b in given), promotion_los, pairs)


_BOSS = re.compile(r"^[A-Za-z0-9_.-]{1,40}@[A-Za-z0-9_.-]{1,40}\Z")


def _stored_leagues(rules: Fields) -> Leagues | None:
    """A stored spec's leagues: None when stored without (or before there were any)."""
    data = rules.data.get("leagues")
    if data is None:
        return None
    if not isinstance(data, Mapping) or not isinstance(data.get("leagues"), list | tuple):
        rules.fail("leagues", "the leagues, lowest first, and what moves a version up")
    f = Fields(f"{KIND} leagues", data)
    listed = []
    for entry in data["leagues"]:
        x = Fields(f"{KIND} league", entry if isinstance(entry, Mapping) else {})
        listed.append(League(x.text("name", empty=False), x.text("boss")))
    return Leagues(
        tuple(listed),
        f.number("promotion_los", PROMOTION_LOS[1]),
        f.integer("promotion_pairs", PROMOTION_PAIRS[1], PROMOTION_PAIRS[2]),
    )
