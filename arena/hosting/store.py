"""The packages a referee holds, unpacked once per SHA-256 and shared by every match.

A package is unpacked into a temporary directory beside the store and renamed into
place only when whole, so a match never sees half a package, and two matches that
bring the same one at once both end up with the same files. Modes are made readable by
every user: a sandbox runs its bot under a user id of its own (``arena.hosting.sandbox``),
and the package is bound read-only into it.

A store trusts only what it unpacked itself from bytes whose digest it checked: a
directory already at ``<directory>/<sha256>`` when the store starts (a killed referee's,
or one planted there for the referee to run) is never taken for the package. It is not
swept away at start either, since the directory may be shared: the processes of
``referee serve --processes N`` share it, and on Kubernetes so do the replicas, whose
bots' pods mount ``<sha256>`` by name (``arena.hosting.kubernetes``), so another
referee's copy may be in use. When the package's bytes arrive, the store unpacks them
and compares: a copy that holds exactly the same files (byte for byte, mode for mode,
nothing more, all this user's) is kept, so a sibling's running bots keep their files;
any other is moved aside and deleted, and the store's own copy takes its place.
Temporary directories older than ``STALE_S`` (a killed referee's) are deleted at start.
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
import stat
import tempfile
import time
from pathlib import Path

from arena.hosting.package import InvalidPackage, Member, digest, unpack

STALE_S = 3600.0
"""How old a temporary directory of a store is when no live store can be writing it."""
_TEMPORARY = (".unpacking-", ".stale-")
_CLASHES = (errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR, errno.EISDIR)
_PLACING_TRIES = 3
Listing = dict[str, tuple[str, int, int]]
"""A directory's entries, by path under it: kind, mode and size."""


class PackageStore:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._files: dict[str, list[Member]] = {}
        """The packages this store holds, unpacked or checked by it, and their files."""
        self._made: set[str] = set()
        """Those it unpacked into place itself, which only it deletes."""
        _sweep_temporaries(directory)

    def path(self, sha256: str) -> Path:
        """Where the package named ``sha256`` is (or would be) unpacked."""
        return self.directory / sha256

    def has(self, sha256: str) -> bool:
        """Whether this store unpacked (or checked) the package and it is still there:
        never for a directory it found."""
        return sha256 in self._files and self.path(sha256).is_dir()

    def add(self, blob: bytes, sha256: str) -> None:
        """Keep ``blob``, which must hash to ``sha256`` and pass the package checks;
        InvalidPackage says what is wrong. Slow for a large package: call it in a thread."""
        actual = digest(blob)
        if actual != sha256:
            raise InvalidPackage(
                f"its SHA-256 is {actual}, not the package_sha256 given ({sha256}): "
                "send the bytes the digest names"
            )
        if self.has(sha256):
            return
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        unpacking = Path(tempfile.mkdtemp(prefix=_TEMPORARY[0], dir=self.directory))
        try:
            files = unpack(blob, unpacking)
            _readable(unpacking)
            made = self._place(unpacking, sha256)
        finally:
            shutil.rmtree(unpacking, ignore_errors=True)
        self._files[sha256] = files
        if made:
            self._made.add(sha256)

    def files(self, sha256: str) -> list[Member]:
        """The files of a package the store holds (``has``), for checking a command."""
        return self._files[sha256]

    def remove(self, sha256: str) -> None:
        """Forget the package, and delete it if this store unpacked it (a bot that failed
        its check leaves nothing behind). A copy it only checked may be another
        referee's, in use: that one stays."""
        self._files.pop(sha256, None)
        if sha256 in self._made:
            self._made.discard(sha256)
            _discard(self.path(sha256), self.directory)

    def _place(self, unpacked: Path, sha256: str) -> bool:
        """Rename ``unpacked`` to the package's place; True if it went there, False if an
        identical copy was there already (this store's, from another thread, or another
        referee's) and was kept."""
        target = self.path(sha256)
        for _ in range(_PLACING_TRIES):
            try:
                os.rename(unpacked, target)
                return True
            except OSError as error:
                if error.errno not in _CLASHES:
                    raise
            if sha256 in self._files or _same_files(unpacked, target):
                return False
            _discard(target, self.directory)  # not the package: planted, or half-removed
        raise OSError(
            errno.EEXIST, f"cannot place package {sha256}: something keeps taking its place"
        )


def _readable(root: Path) -> None:
    """Directories 0755, files 0644 (0755 if their owner could run them)."""
    root.chmod(0o755)
    for path in root.rglob("*"):
        if path.is_dir():
            path.chmod(0o755)
        else:
            path.chmod(0o755 if path.stat().st_mode & 0o100 else 0o644)


def _discard(path: Path, directory: Path) -> None:
    """Move ``path`` aside at once (so that nothing finds it at its name any more), then
    delete it."""
    stale = directory / f"{_TEMPORARY[1]}{secrets.token_hex(8)}"
    try:
        os.rename(path, stale)
    except FileNotFoundError:
        return
    if stale.is_dir() and not stale.is_symlink():
        shutil.rmtree(stale, ignore_errors=True)
    else:
        stale.unlink(missing_ok=True)


def _sweep_temporaries(directory: Path) -> None:
    """Delete the temporary directories that killed stores left: those older than any
    unpacking takes, so that no live store (of this or another process) loses one."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return  # not made yet
    cutoff = time.time() - STALE_S
    for entry in entries:
        if not entry.name.startswith(_TEMPORARY):
            continue
        try:
            if entry.stat(follow_symlinks=False).st_mtime < cutoff:
                _discard(Path(entry.path), directory)
        except OSError:
            continue  # another store took it first


def _same_files(ours: Path, found: Path) -> bool:
    """Whether ``found`` holds exactly what ``ours`` does: the same directories and files,
    the same modes and bytes, nothing more, and all of it this user's, so that no one else
    can change it later."""
    try:
        expected = _listing(ours, limit=None)
        listed = _listing(found, limit=len(expected) if expected is not None else 0)
        if expected is None or listed != expected:
            return False
        return all(
            _same_bytes(ours / path, found / path)
            for path, (kind, _, _) in expected.items()
            if kind == "file"
        )
    except OSError:
        return False


def _listing(root: Path, limit: int | None) -> Listing | None:
    """Every entry under ``root`` ("" for ``root`` itself) as (kind, mode, size); None if
    one is neither a plain file nor a directory, not this user's, or there are more than
    ``limit``."""
    user = os.geteuid()
    found: Listing = {}
    pending = [""]
    while pending:
        relative = pending.pop()
        info = os.lstat(root / relative)
        if info.st_uid != user:
            return None
        mode = stat.S_IMODE(info.st_mode)
        if stat.S_ISREG(info.st_mode):
            found[relative] = ("file", mode, info.st_size)
        elif stat.S_ISDIR(info.st_mode):
            found[relative] = ("directory", mode, 0)
            with os.scandir(root / relative) as entries:
                for entry in entries:
                    pending.append(f"{relative}/{entry.name}" if relative else entry.name)
                    if limit is not None and len(found) + len(pending) > limit:
                        return None
        else:
            return None
    return found


def _same_bytes(ours: Path, found: Path) -> bool:
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    with open(ours, "rb") as a, open(os.open(found, flags), "rb") as b:
        while True:
            chunk = a.read(1 << 20)
            if chunk != b.read(1 << 20):
                return False
            if not chunk:
                return True
