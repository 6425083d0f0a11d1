"""Hosted bots' packages and versions in Redis.

A package is stored once under the SHA-256 of its bytes, however many versions (or
bots) use it. A hosted bot keeps every version it was submitted with until one is
removed; versions are never replaced, and a removed version's label is not given out
again while the bot exists, so ``name@version`` names one package for good and a
tournament that fixed it at submission plays exactly that package to its end. A new
version is stored together with its package and its bot's registry entry
(``arena.store.bots.BotRegistry.publish``); removal and the deletion of packages nothing
uses any more are in ``arena.store.removal``. ``add_version`` is one of ``publish``'s
writes alone, for tools and tests.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import redis

from arena.records import Fields, check_version, current, parse
from arena.store import keys

KIND = "hosted version"
VERSION = 2
SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class HostedVersion:
    """One submitted version of a hosted bot."""

    name: str
    version: str
    runtime: str
    command: str
    sha256: str
    size: int
    author: str
    """Who submitted it: an author's name, or empty for the operator."""
    submitted_at: float
    games: tuple[str, ...]
    hello_name: str
    hello_version: str
    record_version: int = VERSION
    """The record's schema (``arena.records``); ``version`` is the bot's label."""

    @property
    def label(self) -> str:
        """``name@version``, as tournaments name it."""
        return f"{self.name}@{self.version}"

    def to_json(self) -> str:
        """The stored JSON; raises ``RecordError`` (nothing is written) if not valid."""
        check_version(KIND, self.record_version, VERSION)
        data = {**asdict(self), "games": list(self.games)}
        _read(data)
        return json.dumps(data)

    @classmethod
    def from_json(cls, text: str | bytes | Mapping[str, Any]) -> HostedVersion:
        """A stored version as the current type; raises ``RecordError`` (``StaleRecord``
        for an earlier build's)."""
        found = parse(KIND, text)
        name = f"{found.get('name', '')}@{found.get('version', '')}"
        return _read(current(KIND, found, VERSION, name))


def _read(data: Mapping[str, Any]) -> HostedVersion:
    f = Fields(KIND, data)
    sha256 = f.text("sha256")
    if not SHA256.fullmatch(sha256):
        f.fail("sha256", "64 lowercase hex digits")
    return HostedVersion(
        name=f.text("name", empty=False),
        version=f.text("version", empty=False),
        runtime=f.text("runtime", empty=False),
        command=f.text("command"),
        sha256=sha256,
        size=f.integer("size", 0),
        author=f.text("author"),
        submitted_at=f.number("submitted_at", 0),
        games=f.texts("games"),
        hello_name=f.text("hello_name"),
        hello_version=f.text("hello_version"),
        record_version=f.integer("record_version", VERSION, VERSION),
    )


class PackageStore:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client

    def blob(self, sha256: str) -> bytes | None:
        data: bytes | None = self.redis.get(keys.package(sha256))  # type: ignore[assignment]
        return data

    def missing(self, digests: Iterable[str]) -> list[str]:
        """Those of ``digests`` whose package is not stored."""
        wanted = sorted(set(digests))
        if not wanted:
            return []
        with self.redis.pipeline(transaction=False) as pipe:
            for sha256 in wanted:
                pipe.exists(keys.package(sha256))
            found = pipe.execute()
        return [sha256 for sha256, there in zip(wanted, found, strict=True) if not there]

    def label_removed(self, name: str, label: str) -> bool:
        """Whether ``name`` had a version ``label``, since removed."""
        return bool(self.redis.sismember(keys.hosted_removed(name), label))

    def add_version(self, version: HostedVersion) -> bool:
        """Record a new version; False (and nothing written) if the label exists."""
        key = keys.hosted(version.name)
        return bool(self.redis.hsetnx(key, version.version, version.to_json()))

    def versions(self, name: str) -> list[HostedVersion]:
        """Every version of ``name``, newest first."""
        raw: dict[bytes, bytes] = self.redis.hgetall(keys.hosted(name))  # type: ignore[assignment]
        found = [HostedVersion.from_json(v) for v in raw.values()]
        return sorted(found, key=lambda v: (v.submitted_at, v.version), reverse=True)

    def submitted(self, entries: Iterable[str]) -> dict[str, float]:
        """When each of ``entries`` (``name@version``) still stored was submitted: what
        orders a bot's versions on a board (``arena.ratings.versions``)."""
        names = sorted({e.partition("@")[0] for e in entries if "@" in e})
        with self.redis.pipeline(transaction=False) as pipe:
            for name in names:
                pipe.hgetall(keys.hosted(name))
            stored: list[dict[bytes, bytes]] = pipe.execute()
        return {
            f"{name}@{version.version}": version.submitted_at
            for name, raw in zip(names, stored, strict=True)
            for version in map(HostedVersion.from_json, raw.values())
        }

    def labels(self, name: str) -> list[str]:
        """Every label ``name`` has had, kept or since removed: whose ratings it has."""
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.hkeys(keys.hosted(name))
            pipe.smembers(keys.hosted_removed(name))
            kept, removed = pipe.execute()
        return sorted({bytes(label).decode() for label in [*kept, *removed]})

    def version(self, name: str, label: str | None = None) -> HostedVersion | None:
        """Version ``label`` of ``name``, or its newest when ``label`` is None."""
        if label is None:
            newest = self.versions(name)
            return newest[0] if newest else None
        text = self.redis.hget(keys.hosted(name), label)
        return None if text is None else HostedVersion.from_json(text)
