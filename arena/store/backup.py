"""A copy of an arena's Redis database in one file, and its return into an empty one.

Each key is copied with Redis's own ``DUMP`` (its value in Redis's serialisation, with a
checksum) and its time to live, so any type comes back as it was, on a Redis of the same
or a newer version, local or remote: no access to the server's files is needed. Keys are
read one after another, so a copy of a running arena is consistent key by key but not
across keys: stop the workers and the API first for a copy of one instant (or take a
snapshot with ``redis-cli --rdb``: deploy/README.md, *Backup and restore*).

A restore goes only into a database with no keys, checks the whole file before writing
anything, and removes what it wrote if a key is refused half way: the target ends either
whole or as empty as it was.
"""

from __future__ import annotations

import json
import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import redis

MAGIC = b"card-arena backup\n"
VERSION = 1
_LENGTH = struct.Struct(">I")
_TTL = struct.Struct(">q")


class BackupError(ValueError):
    """A file that is not a whole backup, or a target that cannot take one."""


@dataclass(frozen=True)
class Entry:
    key: bytes
    ttl_ms: int
    """Milliseconds left to live; 0 for a key that does not expire."""
    value: bytes
    """``DUMP``'s serialisation."""


def backup(client: redis.Redis, path: Path) -> int:
    """Copy every key of ``client``'s database into ``path`` (written whole, then moved
    into place); how many keys."""
    partial = path.with_name(f".{path.name}.partial")
    count = 0
    with partial.open("wb") as out:
        out.write(MAGIC)
        _write(out, json.dumps({"version": VERSION}).encode())
        for key in client.scan_iter(count=1000):
            value: bytes | None = client.dump(key)
            if value is None:  # gone since the scan listed it
                continue
            ttl: int = client.pttl(key)
            _write(out, key)
            out.write(_TTL.pack(max(ttl, 0)))
            _write(out, value)
            count += 1
        _write(out, b"")  # the end: an empty key, which Redis has not
        out.flush()
        os.fsync(out.fileno())
    os.replace(partial, path)
    return count


def entries(path: Path) -> list[Entry]:
    """Every key of a backup file; BackupError if it is not one, or not whole."""
    try:
        with path.open("rb") as source:
            if source.read(len(MAGIC)) != MAGIC:
                raise BackupError(f"{path} is not a card-arena backup")
            header = json.loads(_read(source))
            if header.get("version") != VERSION:
                raise BackupError(
                    f"{path} is a backup of format {header.get('version')}; this arena "
                    f"reads format {VERSION}"
                )
            return list(_entries(source))
    except BackupError:
        raise
    except (struct.error, ValueError, EOFError) as error:
        raise BackupError(f"{path} is cut short or damaged ({error})") from None


def restore(client: redis.Redis, path: Path) -> int:
    """Put a backup's keys into ``client``'s database, which must hold none; how many.
    Nothing is written unless the whole file reads; a key Redis refuses (a dump of a
    newer Redis, say) undoes what was written."""
    found = entries(path)
    held = client.dbsize()
    if held:
        raise BackupError(
            f"the target database holds {held} keys: restore into an empty one (a fresh "
            "Redis, or another database number), so that nothing stored is overwritten"
        )
    written: list[bytes] = []
    try:
        for entry in found:
            client.restore(entry.key, entry.ttl_ms, entry.value)
            written.append(entry.key)
    except redis.ResponseError as error:
        for start in range(0, len(written), 1000):
            client.delete(*written[start : start + 1000])
        raise BackupError(
            f"Redis refused key {found[len(written)].key!r} ({error}); nothing was kept"
        ) from None
    return len(written)


def _entries(source: BinaryIO) -> Iterator[Entry]:
    while key := _read(source):
        ttl = _TTL.unpack(_exactly(source, _TTL.size))[0]
        yield Entry(key, ttl, _read(source))


def _write(out: BinaryIO, data: bytes) -> None:
    out.write(_LENGTH.pack(len(data)))
    out.write(data)


def _read(source: BinaryIO) -> bytes:
    return _exactly(source, _LENGTH.unpack(_exactly(source, _LENGTH.size))[0])


def _exactly(source: BinaryIO, size: int) -> bytes:
    data = source.read(size)
    if len(data) != size:
        raise EOFError(f"expected {size} bytes, found {len(data)}")
    return data
