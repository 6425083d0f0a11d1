"""``arena store migrate``: the one baseline for data earlier builds stored.

Readers read only today's shapes and refuse an older one, naming the command
(``arena.records.StaleRecord``); every step from an earlier shape to today's is here.
``migrate`` walks the store once, upgrades what is old and writes it back, and returns
what it read and upgraded by kind. It is idempotent: a record already of today's shape
is left as it is, so a second run upgrades nothing. A record is rewritten only if it is
still the one read (a compare-and-set), and the order index only gains ids, so nothing
is lost or counted twice; the result counter (``results:version``) is not touched.

Run it with the workers and the API stopped: they would refuse the old records it has
not reached yet, and a running scheduler would write tallies while it walks them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import MISSING, dataclass, fields
from typing import Any

import redis

from arena.fair_play_terms import SEALED, TRUSTED
from arena.ratings.board import BOARD_KEYS, MIN_PAIRS, ROW_KEYS, Row
from arena.records import VERSION_KEY, RecordError, parse, stored_version
from arena.store import keys
from arena.store.bots import KIND as BOT
from arena.store.bots import RegisteredBot
from arena.store.packages import KIND as HOSTED
from arena.store.packages import HostedVersion
from arena.store.results import KIND as RESULT
from arena.store.results import MatchResult
from arena.tournament import formats
from arena.tournament.fair_play import ISOLATED, SHARED
from arena.tournament.spec import SPEC, TournamentPlan

Step = Callable[[dict[str, Any]], None]
"""Takes a record of one version to the next, in place."""

_COMPARE_AND_HSET = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
  return 1
end
return 0
"""
_COMPARE_AND_SET = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2])
  return 1
end
return 0
"""


# Versioned records: steps[n - 1] takes version n to n + 1; no version is version 1.


def _result_v2(data: dict[str, Any]) -> None:
    """Version 1: the keys added before versions were kept may be missing; they get what
    readers assumed of them (no time, no fault kinds, no deal commitment, rated as a
    duplicate half, fair play and the seed's source not recorded)."""
    data.setdefault("finished_at", None)
    data.setdefault("team_fault_kinds", None)
    data.setdefault("deal_key", "")
    data.setdefault("paired", True)
    data.setdefault("deal_commitment", "")
    data.setdefault("deal_salt", "")
    data.setdefault("referee_match_id", "")
    data.setdefault("fair_play", None)
    data.setdefault("operator_seed", None)


def _bot_v2(data: dict[str, Any]) -> None:
    """Version 1: bots registered before hosted bots and their authors."""
    data.setdefault("hosted", False)
    data.setdefault("author", "")


def _hosted_v2(data: dict[str, Any]) -> None:
    """Version 1 had every field there is; only the record's version is new."""


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


def _spec_v3(data: dict[str, Any]) -> None:
    """Version 2: specs stored before broadcast delays and the partners setting; a sealed
    tournament's partners were isolated already (every entry hosted)."""
    data.setdefault("broadcast_delay_ms", 0.0)
    data.setdefault("partners", ISOLATED if data.get("fair_play") == SEALED else SHARED)
    data.setdefault("max_entries_per_author", 0)
    data.setdefault("authors", {})


@dataclass(frozen=True)
class Versioned:
    """A record kind with a schema version: its upgrade steps and its current reader."""

    kind: str
    steps: Sequence[Step]
    read: Callable[[dict[str, Any]], object]

    @property
    def version(self) -> int:
        return len(self.steps) + 1


RESULTS = Versioned(RESULT, (_result_v2,), MatchResult.from_json)
BOTS = Versioned(BOT, (_bot_v2,), RegisteredBot.from_json)
HOSTED_VERSIONS = Versioned(HOSTED, (_hosted_v2,), HostedVersion.from_json)
SPECS = Versioned(SPEC, (_spec_v2, _spec_v3), TournamentPlan.from_json)


def upgrade(record: Versioned, data: dict[str, Any]) -> bool:
    """Bring ``data`` to ``record``'s current version in place, checked by its reader;
    False if it was current already. One from a newer arena is refused."""
    version = stored_version(data)
    if type(version) is not int or not 1 <= version <= record.version:
        raise RecordError(
            f"{record.kind}: field {VERSION_KEY!r}: expected a version from 1 to "
            f"{record.version} (this arena's), got {version!r}"
        )
    if version == record.version:
        return False
    for step in record.steps[version - 1 :]:
        step(data)
    data[VERSION_KEY] = record.version
    record.read(data)
    return True


# Unversioned JSON: ratings tallies and stored boards, upgraded key by key.


def upgrade_tally(tally: dict[str, Any]) -> bool:
    """A game's tally (``arena.ratings.leaderboard``): ``shared`` was added later."""
    if "shared" in tally:
        return False
    tally["shared"] = {}
    return True


def upgrade_tallies(by_game: dict[str, Any]) -> bool:
    """A tournament's tallies by game (or the merged sum's)."""
    return any([upgrade_tally(tally) for tally in by_game.values()])


def upgrade_board(board: dict[str, Any]) -> bool:
    """A stored leaderboard: the keys added later get what readers assumed of them (no
    caveats, no covariance, today's ``MIN_PAIRS``, and the ranking rule 1 a board with no
    rule was made under); rows get their fields' defaults."""
    assumed = {"caveats": [], "covariance": {}, "min_pairs": MIN_PAIRS, "rule": 1}
    added = {k: v for k, v in assumed.items() if k not in board}
    board.update(added)
    changed = bool(added)
    for row in board.get("rows", []):
        for key, default in _ROW_DEFAULTS.items():
            if key not in row:
                row[key] = default()
                changed = True
    missing = [k for k in BOARD_KEYS if k not in board] or [
        k for row in board.get("rows", []) for k in ROW_KEYS if k not in row
    ]
    if missing:
        raise RecordError(f"leaderboard: field {missing[0]!r} is missing (no upgrade adds it)")
    return changed


def _default(field_default: Any, factory: Any) -> Callable[[], Any]:
    return factory if factory is not MISSING else lambda: field_default


_ROW_DEFAULTS = {
    f.name: _default(f.default, f.default_factory)
    for f in fields(Row)
    if f.default is not MISSING or f.default_factory is not MISSING
}


# The walk over a store.


@dataclass
class Count:
    """One kind of stored data: how many were read, how many upgraded."""

    kind: str
    read: int = 0
    upgraded: int = 0

    def line(self, dry_run: bool) -> str:
        verb = "to upgrade" if dry_run else "upgraded"
        return f"{self.kind}: {self.read} read, {self.upgraded} {verb}"


class Migration:
    """One walk over a store; ``dry_run`` counts what would change and writes nothing."""

    def __init__(self, client: redis.Redis, dry_run: bool = False) -> None:
        self.redis = client
        self.dry_run = dry_run
        self._hset = client.register_script(_COMPARE_AND_HSET)
        self._set = client.register_script(_COMPARE_AND_SET)

    def run(self) -> list[Count]:
        ids = self._tournaments()
        return [
            self._versioned_hash("registered bots", BOTS, [keys.bots()]),
            self._versioned_hash("hosted versions", HOSTED_VERSIONS, list(self._hosted())),
            self._specs(ids),
            self._versioned_hash("match results", RESULTS, [keys.results(i) for i in ids]),
            self._order_index(ids),
            self._tallies(),
            self._boards(ids),
        ]

    def _tournaments(self) -> list[str]:
        raw: list[bytes] = self.redis.zrange(keys.tournaments(), 0, -1)  # type: ignore[assignment]
        return [i.decode() for i in raw]

    def _hosted(self) -> Iterator[str]:
        """Every hosted bot's versions hash (its removed labels' set shares the prefix)."""
        for key in sorted(self.redis.scan_iter(match=keys.pattern("hosted:"), count=1000)):
            if self.redis.type(key) == b"hash":
                yield key.decode()

    def _versioned_hash(self, name: str, record: Versioned, held_in: list[str]) -> Count:
        count = Count(name)
        for key in held_in:
            raw: dict[bytes, bytes] = self.redis.hgetall(key)  # type: ignore[assignment]
            for field_name, text in sorted(raw.items()):
                count.read += 1
                data = parse(record.kind, text)
                try:
                    changed = upgrade(record, data)
                except RecordError as error:
                    raise RecordError(f"{key} {field_name.decode()!r}: {error}") from None
                if changed:
                    count.upgraded += self._put_field(key, field_name, text, data)
        return count

    def _specs(self, ids: list[str]) -> Count:
        count = Count("tournament specs")
        for tournament_id in ids:
            key = keys.tournament(tournament_id)
            text = self.redis.hget(key, "spec")
            if text is None:
                continue
            count.read += 1
            data = parse(SPEC, text)
            if upgrade(SPECS, data):
                count.upgraded += self._put_field(key, b"spec", text, data)  # type: ignore[arg-type]
        return count

    def _order_index(self, ids: list[str]) -> Count:
        """The index pages read results by (``arena.store.tournaments``): a tournament
        whose results an earlier build stored without it gets every id, once."""
        count = Count("tournaments' order index")
        for tournament_id in ids:
            count.read += 1
            order, results = keys.order(tournament_id), keys.results(tournament_id)
            if self.redis.zcard(order) >= self.redis.hlen(results):
                continue
            count.upgraded += 1
            if not self.dry_run:
                match_ids: list[bytes] = self.redis.hkeys(results)  # type: ignore[assignment]
                for start in range(0, len(match_ids), 1000):
                    self.redis.zadd(order, dict.fromkeys(match_ids[start : start + 1000], 0))
        return count

    def _tallies(self) -> Count:
        count = Count("ratings tallies")
        raw: dict[bytes, bytes] = self.redis.hgetall(keys.tallies())  # type: ignore[assignment]
        for tournament_id, text in sorted(raw.items()):
            count.read += 1
            data = json.loads(text)
            if upgrade_tallies(data):
                count.upgraded += self._put_field(keys.tallies(), tournament_id, text, data)
        summed = self.redis.get(keys.tally_sum())
        if summed is not None:
            count.read += 1
            data = json.loads(summed)
            if upgrade_tallies(data["tallies"]):
                count.upgraded += self._put(keys.tally_sum(), summed, data)  # type: ignore[arg-type]
        return count

    def _boards(self, ids: list[str]) -> Count:
        """The arena-wide boards by game, and each finished tournament's board."""
        count = Count("leaderboards")
        stored = self.redis.get(keys.ratings())
        if stored is not None:
            boards = json.loads(stored)
            count.read += len(boards)
            upgraded = sum([_board(keys.ratings(), board) for board in boards.values()])
            if upgraded:
                count.upgraded += upgraded * self._put(keys.ratings(), stored, boards)  # type: ignore[arg-type]
        for tournament_id in ids:
            key = keys.leaderboard(tournament_id)
            text = self.redis.get(key)
            if text is None:
                continue
            count.read += 1
            board = json.loads(text)
            if _board(key, board):
                count.upgraded += self._put(key, text, board)  # type: ignore[arg-type]
        return count

    def _put_field(self, key: str, field_name: bytes, was: bytes, data: Mapping[str, Any]) -> int:
        """Write ``data`` over ``was`` in a hash; 1 if written (or, dry, if it would be)."""
        if self.dry_run:
            return 1
        return int(self._hset(keys=[key], args=[field_name, was, json.dumps(data)]))

    def _put(self, key: str, was: bytes, data: Mapping[str, Any]) -> int:
        if self.dry_run:
            return 1
        return int(self._set(keys=[key], args=[was, json.dumps(data)]))


def _board(key: str, board: dict[str, Any]) -> bool:
    try:
        return upgrade_board(board)
    except RecordError as error:
        raise RecordError(f"{key}: {error}") from None


def migrate(client: redis.Redis, dry_run: bool = False) -> list[Count]:
    """Upgrade everything earlier builds stored in ``client``'s database to today's
    shapes (with ``dry_run``, only count it). Raises ``RecordError`` naming the first
    record no upgrade makes valid; what was upgraded before it stays so, and a run once
    it is mended carries on from there."""
    return Migration(client, dry_run).run()
