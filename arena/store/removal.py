"""Removing hosted bots and their versions, and deleting the packages nothing plays.

A package's bytes stay in Redis while a version of any bot uses them or a running
tournament plays them, and no longer. Removal deletes the registry entry and version
records in one transaction, which also notes their packages in
``arena:packages:removed``; a sweep then deletes each noted package that no version uses
and no running tournament plays, and forgets it. A package some running tournament
still plays stays noted (deferred, not refused: a ladder never ends, so refusing would
keep a bot in a ladder for good) and goes at a later sweep, once that tournament has
finished or been cancelled. The API sweeps after every removal and cancellation and
every minute (``arena.api.service``), so a tournament that the workers finish frees its
packages within a minute.

What a running tournament plays:

- one of fixed entries (every format but the ladder): the packages its spec fixed, until
  it finishes or is cancelled (the workers skip the matches of a cancelled one);
- a ladder: the packages of its matches handed out without a result yet, seated as its
  lineup says. It takes its entries from the registry afresh at every scheduler step, so
  a removed version hands out no more matches once it is gone. A ladder whose step is
  under way (its scheduling lock held) may have read the registry before the removal:
  the sweep waits for the step, and if it takes too long, deletes nothing this time.

Races, closed by optimistic transactions (WATCH): a version published meanwhile writes
``arena:bots``, a tournament created meanwhile ``arena:tournaments``, a ladder step
begun meanwhile takes its lock; each makes the sweep look again. A tournament being
submitted fixed its versions before it is stored: the API checks after storing it that
their packages are still there (``PackageStore.missing``), and cancels it otherwise.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

import redis
from redis.client import Pipeline

from arena.store import keys
from arena.store.bots import RegisteredBot
from arena.store.packages import HostedVersion, PackageStore
from arena.store.tournaments import RUNNING, TournamentRecord, TournamentStore
from arena.store.transaction import watching
from arena.tournament import formats

STEP_WAITS_S = (0.05, 0.1, 0.2, 0.4, 0.8)
"""How long a sweep waits, try after try, for a ladder's step to end, or a write to settle."""


class Gone(enum.Enum):
    """Why a removal did nothing."""

    CHANGED = "changed"
    """The registry entry is no longer the one the caller's decision was made on."""
    NO_VERSION = "no version"
    """The bot has no version with that label."""


@dataclass(frozen=True)
class Swept:
    """What a sweep did with the noted packages."""

    freed: Mapping[str, int] = field(default_factory=dict)
    """Digest -> bytes deleted."""
    kept: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Digest -> the running tournaments that still play it, or may: ladders whose step
    the sweep could not wait out (a later sweep looks again)."""


@dataclass(frozen=True)
class Removed:
    """What a removal did."""

    versions: tuple[HostedVersion, ...]
    bot_removed: bool
    freed_bytes: int = 0
    kept_bytes: int = 0
    kept_for: tuple[str, ...] = ()


def _versions_if_unchanged(pipe: Pipeline, seen: RegisteredBot) -> list[HostedVersion] | None:
    """The versions of the bot ``seen``, or None where it is no longer what the caller saw."""
    if _parse(pipe.hget(keys.bots(), seen.name)) != seen:
        return None
    return _versions(pipe.hgetall(keys.hosted(seen.name)))


def _watched(seen: RegisteredBot) -> list[str]:
    """What a removal reads: the registry (any bot's change makes it look again) and the
    bot's versions."""
    return [keys.bots(), keys.hosted(seen.name)]


class Removal:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self.tournaments = TournamentStore(client)

    def remove_bot(self, seen: RegisteredBot) -> Removed | Gone:
        """Remove the bot ``seen`` (as the caller decided on it) with its versions, then
        sweep their packages."""
        name = seen.name

        def body(pipe: Pipeline) -> tuple[HostedVersion, ...] | None:
            versions = _versions_if_unchanged(pipe, seen)
            if versions is None:
                return None
            pipe.multi()
            pipe.hdel(keys.bots(), name)
            pipe.delete(keys.hosted(name), keys.hosted_removed(name))
            if versions:
                pipe.sadd(keys.removed_packages(), *{v.sha256 for v in versions})
            return tuple(versions)

        removed = watching(self.redis, _watched(seen), body)
        return Gone.CHANGED if removed is None else self._released(removed, bot_removed=True)

    def remove_version(self, seen: RegisteredBot, label: str) -> Removed | Gone:
        """Remove version ``label`` of the hosted bot ``seen``, then sweep its package.
        The entry takes what its newest remaining version said at its Hello; the last
        version goes with the bot."""
        name = seen.name

        def body(pipe: Pipeline) -> tuple[HostedVersion, bool] | Gone:
            versions = _versions_if_unchanged(pipe, seen)
            if versions is None:
                return Gone.CHANGED
            removed = next((v for v in versions if v.version == label), None)
            if removed is None:
                return Gone.NO_VERSION
            rest = [v for v in versions if v.version != label]
            pipe.multi()
            if rest:
                newest = max(rest, key=lambda v: (v.submitted_at, v.version))
                entry = replace(
                    seen,
                    games=newest.games,
                    hello_name=newest.hello_name,
                    version=newest.hello_version,
                    registered_at=newest.submitted_at,
                )
                pipe.hdel(keys.hosted(name), label)
                pipe.sadd(keys.hosted_removed(name), label)
                # The entry changes too: that tells sweeps to look again.
                pipe.hset(keys.bots(), name, entry.to_json())
            else:
                pipe.hdel(keys.bots(), name)
                pipe.delete(keys.hosted(name), keys.hosted_removed(name))
            pipe.sadd(keys.removed_packages(), removed.sha256)
            return removed, not rest

        outcome = watching(self.redis, _watched(seen), body)
        if isinstance(outcome, Gone):
            return outcome
        removed, last = outcome
        return self._released((removed,), bot_removed=last)

    def _released(self, versions: tuple[HostedVersion, ...], bot_removed: bool) -> Removed:
        """Sweep, and say what became of the removed versions' packages: whichever sweep
        deleted one (the API's own may run meanwhile), it is freed."""
        swept = self.sweep()
        sizes = {v.sha256: v.size for v in versions}
        gone = set(PackageStore(self.redis).missing(sizes))
        kept = {d: swept.kept[d] for d in sizes if d in swept.kept and d not in gone}
        return Removed(
            versions,
            bot_removed,
            freed_bytes=sum(sizes[d] for d in gone),
            kept_bytes=sum(sizes[d] for d in kept),
            kept_for=tuple(sorted({t for found in kept.values() for t in found})),
        )

    def note_unused(self) -> int:
        """Note every stored package no version uses, for the next sweep: those of bots
        removed before removal deleted packages. Returns how many."""
        stored = {
            key.decode().removeprefix(keys.package(""))
            for key in self.redis.scan_iter(match=keys.package("*"), count=1000)
        }
        unused = stored - self._used()
        if unused:
            self.redis.sadd(keys.removed_packages(), *unused)
        return len(unused)

    def sweep(self) -> Swept:
        """Delete the noted packages that no version uses and no running tournament plays,
        and forget those a version uses again; keep the others noted."""
        for wait in (*STEP_WAITS_S, None):
            with self.redis.pipeline() as pipe:
                try:
                    pipe.watch(keys.bots(), keys.tournaments(), keys.removed_packages())  # type: ignore[no-untyped-call]
                    noted = {d.decode() for d in pipe.smembers(keys.removed_packages())}  # type: ignore[union-attr]
                    if not noted:
                        return Swept()
                    running = self._running()
                    ladders = [r.id for r in running if formats.get(r.spec.format).open_lineup]
                    # Watched before the schedules are read: a step that starts later
                    # makes this transaction fail, one under way is waited for.
                    locks = [keys.scheduling(t) for t in ladders]
                    if locks:
                        pipe.watch(*locks)  # type: ignore[no-untyped-call]
                    stepping = [t for t, k in zip(ladders, locks, strict=True) if pipe.exists(k)]
                    unused = noted - self._used()
                    if stepping:
                        if wait is None:
                            return Swept(kept={d: tuple(stepping) for d in unused})
                        pipe.reset()
                        time.sleep(wait)
                        continue
                    playing = self._played(running)
                    free = sorted(unused - playing.keys())
                    sizes = [int(pipe.strlen(keys.package(d))) for d in free]
                    pipe.multi()
                    if free:
                        pipe.delete(*(keys.package(d) for d in free))
                    if noted - unused or free:
                        pipe.srem(keys.removed_packages(), *free, *(noted - unused))
                    pipe.execute()
                    return Swept(
                        freed=dict(zip(free, sizes, strict=True)),
                        kept={d: tuple(sorted(playing[d])) for d in unused & playing.keys()},
                    )
                except redis.WatchError:
                    if wait is not None:
                        time.sleep(wait)
        return Swept()

    def _used(self) -> set[str]:
        """Digests of every hosted bot's versions."""
        raw: dict[bytes, bytes] = self.redis.hgetall(keys.bots())  # type: ignore[assignment]
        hosted = [b.name for b in map(RegisteredBot.from_json, raw.values()) if b.hosted]
        with self.redis.pipeline(transaction=False) as pipe:
            for name in hosted:
                pipe.hgetall(keys.hosted(name))
            found = pipe.execute()
        return {v.sha256 for versions in found for v in _versions(versions)}

    def _running(self) -> list[TournamentRecord]:
        states = self.tournaments.states()
        found = (self.tournaments.get(t) for t, state in states.items() if state == RUNNING)
        return [r for r in found if r is not None and r.state == RUNNING]

    def _played(self, running: Iterable[TournamentRecord]) -> dict[str, set[str]]:
        """Digest -> the ``running`` tournaments that play it."""
        playing: dict[str, set[str]] = {}
        for record in running:
            lineup = dict(record.spec.lineup)
            if formats.get(record.spec.format).open_lineup:
                lineup.update(self.tournaments.lineup(record.id))
                unplayed = self.tournaments.unplayed_ids(record.id)
                matches = (self.tournaments.scheduled(record.id, m) for m in unplayed)
                labels = {e for match in matches if match is not None for e in match.entries}
            else:
                labels = set(lineup)
            for label in labels:
                entry = lineup.get(label)
                if entry is not None and entry.hosted is not None:
                    playing.setdefault(entry.hosted.sha256, set()).add(record.id)
        return playing


def _parse(text: object) -> RegisteredBot | None:
    return None if text is None else RegisteredBot.from_json(text)  # type: ignore[arg-type]


def _versions(raw: object) -> list[HostedVersion]:
    found: Mapping[bytes, bytes] = raw  # type: ignore[assignment]
    return [HostedVersion.from_json(v) for v in found.values()]
