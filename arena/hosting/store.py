"""The packages a referee holds, unpacked once per SHA-256 and shared by every match.

A package is unpacked into a temporary directory beside the store and renamed into
place only when whole, so a match never sees half a package, and two matches that
bring the same one at once both end up with the same files (the second rename loses
and its copy is dropped). Modes are made readable by every user: a sandbox runs its
bot under a user id of its own (``arena.hosting.sandbox``), and the package is bound
read-only into it.
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from pathlib import Path

from arena.hosting.package import InvalidPackage, Member, digest, unpack


class PackageStore:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._files: dict[str, list[Member]] = {}

    def path(self, sha256: str) -> Path:
        """Where the package named ``sha256`` is (or would be) unpacked."""
        return self.directory / sha256

    def has(self, sha256: str) -> bool:
        return self.path(sha256).is_dir()

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
        unpacking = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=self.directory))
        try:
            unpack(blob, unpacking)
            _readable(unpacking)
            os.rename(unpacking, self.path(sha256))
        except OSError as error:
            if error.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                raise
            # Another match unpacked the same package first: theirs is the same files.
        finally:
            shutil.rmtree(unpacking, ignore_errors=True)

    def files(self, sha256: str) -> list[Member]:
        """The files of a package the store holds, for checking a command against them."""
        found = self._files.get(sha256)
        if found is None:
            root = self.path(sha256)
            found = [
                Member(path.relative_to(root).as_posix(), bool(path.stat().st_mode & 0o100))
                for path in sorted(root.rglob("*"))
                if path.is_file()
            ]
            self._files[sha256] = found
        return found


def _readable(root: Path) -> None:
    """Directories 0755, files 0644 (0755 if their owner could run them)."""
    root.chmod(0o755)
    for path in root.rglob("*"):
        if path.is_dir():
            path.chmod(0o755)
        else:
            path.chmod(0o755 if path.stat().st_mode & 0o100 else 0o644)
