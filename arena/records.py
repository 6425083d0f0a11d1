"""What every stored record shares: a schema version, the refusal of older versions,
and validation that names the field.

Each record kind (a match result: ``arena.store.results.MatchResult``; a tournament's
spec: ``arena.tournament.spec.TournamentPlan``; a registered bot:
``arena.store.bots.RegisteredBot``; a hosted bot's version:
``arena.store.packages.HostedVersion``) is a frozen dataclass with ``to_json``, which
validates the record before anything is written, and ``from_json``, which reads only
the current version. A record carries its schema version under ``record_version`` (not
``version``: a bot's record already has a ``version``, the one its Hello gave); one an
earlier build stored (none: version 1) is refused, naming ``MIGRATE``, which upgrades
it in the store (``arena.store.migrate``): readers hold no upgrade paths.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

VERSION_KEY = "record_version"

MIGRATE = "arena store migrate"
"""The command that brings records an earlier build stored to the current versions."""


class RecordError(ValueError):
    """A record read from the store, or about to be written to it, is not valid: the
    message names the kind of record and the field."""


def parse(kind: str, data: str | bytes | Mapping[str, Any]) -> dict[str, Any]:
    """A record's JSON object, from its text or already decoded."""
    if isinstance(data, str | bytes):
        try:
            data = json.loads(data)
        except ValueError as error:
            raise RecordError(f"{kind}: not JSON: {error}") from None
    if not isinstance(data, Mapping):
        raise RecordError(f"{kind}: expected a JSON object, got {type(data).__name__}")
    return dict(data)


class StaleRecord(RecordError):
    """A record an earlier build stored, which readers no longer read: ``MIGRATE``
    upgrades it."""


def stale(what: str, shape: str) -> StaleRecord:
    """The refusal of ``what``, stored by an earlier build in an older ``shape``, naming
    the command that upgrades it."""
    return StaleRecord(f"{what} was stored by an earlier build ({shape}); run `{MIGRATE}`")


def stored_version(data: Mapping[str, Any]) -> object:
    """The version a stored record says it is: one with none is version 1."""
    return data.get(VERSION_KEY, 1)


def current(kind: str, data: dict[str, Any], version: int, name: str = "") -> dict[str, Any]:
    """``data`` if it is of the current ``version``. An older record is refused (the
    migration upgrades it: ``MIGRATE``), and one from a newer arena than this one rather
    than read wrong. ``name`` says which record it is, where the record knows."""
    found = stored_version(data)
    if type(found) is not int or not 1 <= found <= version:
        raise RecordError(
            f"{kind}: field {VERSION_KEY!r}: expected a version from 1 to {version} "
            f"(this arena's), got {found!r}"
        )
    if found < version:
        raise stale(f"{kind} {name!r}" if name else kind, f"version {found}")
    return data


def check_version(kind: str, version: int, current: int) -> None:
    """A record in memory is always of the current version: ``from_json`` read only that."""
    if version != current:
        raise RecordError(f"{kind}: field {VERSION_KEY!r}: expected {current}, got {version!r}")


class Fields:
    """Typed reads of one record's JSON object, each failing with the field's name."""

    def __init__(self, kind: str, data: Mapping[str, Any]) -> None:
        self.kind = kind
        self.data = data

    def fail(self, key: str, expected: str) -> NoReturn:
        if key not in self.data:
            raise RecordError(f"{self.kind}: field {key!r} is missing")
        raise RecordError(
            f"{self.kind}: field {key!r}: expected {expected}, got {self.data[key]!r}"
        )

    def text(self, key: str, allowed: Sequence[str] = (), empty: bool = True) -> str:
        value = self.data.get(key)
        if not isinstance(value, str) or (allowed and value not in allowed):
            self.fail(key, f"one of {', '.join(allowed)}" if allowed else "a string")
        if not empty and not value:
            self.fail(key, "a non-empty string")
        return value

    def optional_text(self, key: str, allowed: Sequence[str] = ()) -> str | None:
        return None if self.data.get(key, "") is None else self.text(key, allowed)

    def integer(self, key: str, low: int | None = None, high: int | None = None) -> int:
        value = self.data.get(key)
        if type(value) is not int or not _within(value, low, high):
            self.fail(key, "an integer" + _range(low, high))
        return value

    def optional_integer(self, key: str, low: int, high: int) -> int | None:
        if self.data.get(key, 0) is None:
            return None
        return self.integer(key, low, high)

    def number(self, key: str, low: float | None = None) -> float:
        value = self.data.get(key)
        if type(value) not in (int, float) or not _within(float(value), low, None):  # type: ignore[arg-type]
            self.fail(key, "a number" + _range(low, None))
        return float(value)  # type: ignore[arg-type]

    def optional_number(self, key: str, low: float | None = None) -> float | None:
        return None if self.data.get(key, 0) is None else self.number(key, low)

    def flag(self, key: str) -> bool:
        value = self.data.get(key)
        if type(value) is not bool:
            self.fail(key, "true or false")
        return value

    def optional_flag(self, key: str) -> bool | None:
        return None if self.data.get(key, False) is None else self.flag(key)

    def texts(self, key: str, length: int | None = None) -> tuple[str, ...]:
        value = self.data.get(key)
        if (
            not isinstance(value, list | tuple)
            or not all(isinstance(v, str) for v in value)
            or (length is not None and len(value) != length)
        ):
            self.fail(key, "a list of strings" + _length(length))
        return tuple(value)

    def integers(
        self, key: str, length: int | None = None, low: int | None = None
    ) -> tuple[int, ...]:
        value = self.data.get(key)
        if (
            not isinstance(value, list | tuple)
            or not all(type(v) is int and _within(v, low, None) for v in value)
            or (length is not None and len(value) != length)
        ):
            self.fail(key, "a list of integers" + _range(low, None) + _length(length))
        return tuple(value)

    def mapping(self, key: str) -> dict[str, Any]:
        value = self.data.get(key)
        if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
            self.fail(key, "an object")
        return dict(value)

    def text_map(self, key: str) -> dict[str, str]:
        value = self.mapping(key)
        if not all(isinstance(v, str) for v in value.values()):
            self.fail(key, "an object of strings")
        return value


def _within(value: float, low: float | None, high: float | None) -> bool:
    return (low is None or value >= low) and (high is None or value <= high)


def _range(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f" from {low} to {high}"
    if low is not None:
        return f" of at least {low}"
    return ""


def _length(length: int | None) -> str:
    return "" if length is None else f" ({length} of them)"
