"""A hosted bot's package: a tar.gz of its files and the command that starts it.

Checked before anything is stored or run: its size, every member (plain files and
directories only, each inside the package: no absolute paths, no ``..``, no links or
devices, no name longer than a file system takes), how many members it has, how large it
unpacks and how far it inflates, and the command, whose program must be one its runtime
offers (``python3``, ``node``) or an executable file of the package. Packages are named
by the SHA-256 of their bytes, so the same files are stored once.

A package is read once, as a stream, and every limit is checked as soon as the bytes
that break it arrive: a hostile package (400,000 empty members, a gigabyte of zeros) is
refused after a bounded prefix, whatever follows. The tar reader is this module's own
(``TarInfo.frombuf`` still decodes each 512-byte header): ``tarfile`` reads a whole
extended header into memory, keeps every member it has read, and parses pax headers in
quadratic time before Python 3.11.10 (CVE-2024-6232), all before a caller sees a member.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import shlex
import shutil
import tarfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from arena.hosting.runtimes import Runtime

KiB = 1 << 10
MiB = 1 << 20
MAX_PACKAGE_BYTES = 16 * MiB
MAX_UNPACKED_BYTES = 64 * MiB
MAX_FILES = 5000
"""Files and directories, those a path implies included."""
MAX_COMMAND_CHARS = 1000
MAX_PATH_BYTES = 1024
"""A member's path, UTF-8: deep enough for node_modules, far below Linux's PATH_MAX."""
MAX_NAME_BYTES = 255
"""One component of a path: Linux's NAME_MAX."""
MAX_RATIO = 100
"""Bytes of tar one packed byte may inflate to, past ``FREE_INFLATION``: code and
node_modules pack 3 to 10 to 1, zeros 1,000 to 1 (Apache POI refuses ZIP entries past
the same 100 to 1)."""
FREE_INFLATION = 16 * MiB
"""Tar bytes allowed whatever the ratio: a package of many empty files, or with a table
of zeros, inflates past 100 to 1 and is harmless at this size."""
MAX_TAR_BYTES = MAX_UNPACKED_BYTES + 32 * MiB
"""The whole tar stream: the files, and room for the headers of ``MAX_FILES`` members."""
MAX_EXTENSION_BYTES = 8 * KiB
"""One pax extended header or GNU long name: a path of 1 KiB and a few attributes."""
MAX_EXTENSIONS = 4
"""Such headers before one member: writers put one or two there (git archive: a pax
global header, then a pax extended one; GNU tar: a long name, then a long link)."""
MAX_PAX_RECORDS = 32 * MAX_FILES
"""pax records in the whole package, so that one of tiny records parses in bounded time."""

UNREADABLE = "the package is not a readable tar.gz"
_BLOCK = tarfile.BLOCKSIZE
_DATA_CHUNK = 64 * KiB
_PACKED_CHUNK = 16 * KiB
_GZIP = 16 + zlib.MAX_WBITS
_FILES = (tarfile.REGTYPE, tarfile.AREGTYPE, tarfile.CONTTYPE)
_PAX = (tarfile.XHDTYPE, tarfile.SOLARIS_XHDTYPE, tarfile.XGLTYPE)
_GNU_NAMES = (tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK)
_PAX_KEPT = ("path", "linkpath", "size")


class InvalidPackage(ValueError):
    """The package or its command cannot be accepted; the message says why and what is."""


def digest(blob: bytes) -> str:
    return hashlib.sha256(blob).hexdigest()


@dataclass(frozen=True)
class Member:
    path: str
    executable: bool


def members(blob: bytes) -> list[Member]:
    """The files of the package, after every check on its members; InvalidPackage names
    the first that fails."""
    _check_size(blob)
    return scan(io.BytesIO(blob))


def unpack(blob: bytes, into: Path) -> list[Member]:
    """Unpack the package into the empty directory ``into``, checking it as ``members``
    does on the way, and return its files; on InvalidPackage (or any error) ``into`` is
    left empty again."""
    _check_size(blob)
    try:
        return scan(io.BytesIO(blob), into)
    except BaseException:
        for child in into.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
        raise


def scan(packed: BinaryIO, into: Path | None = None) -> list[Member]:
    """The files of the package read from ``packed``, each checked as its header arrives
    and written under ``into`` if given. Reading stops at the first limit broken, so a
    refusal costs at most a bounded prefix of ``packed``."""
    tar = _TarStream(packed)
    tree = _Tree()
    found: list[Member] = []
    total = 0
    while (entry := tar.next()) is not None:
        tree.count()
        path = _checked_path(entry.name)
        if entry.type == tarfile.DIRTYPE:
            for made in tree.directory(path):
                if into is not None:
                    os.mkdir(into / made, 0o755)
            continue
        if entry.type not in _FILES:
            raise InvalidPackage(
                f"{entry.name!r} is a {_kind(entry)}; "
                "a package holds plain files and directories only"
            )
        if not path:
            raise InvalidPackage(
                f"{entry.name!r} would land outside the package: use relative paths without '..'"
            )
        total += entry.size
        if total > MAX_UNPACKED_BYTES:
            raise InvalidPackage(f"the package unpacks to more than {MAX_UNPACKED_BYTES:,} bytes")
        parents = tree.file(path)
        executable = bool(entry.mode & 0o100)
        if into is None:
            for _ in tar.data(entry):
                pass
        else:
            for made in parents:
                os.mkdir(into / made, 0o755)
            _write(into / path, tar.data(entry), executable)
        found.append(Member(path, executable))
    return found


def _check_size(blob: bytes) -> None:
    if len(blob) > MAX_PACKAGE_BYTES:
        raise InvalidPackage(
            f"the package is {len(blob):,} bytes; at most {MAX_PACKAGE_BYTES:,} are allowed"
        )


def _write(target: Path, chunks: Iterator[bytes], executable: bool) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    with open(os.open(target, flags, 0o600), "wb") as out:
        for chunk in chunks:
            out.write(chunk)
        os.fchmod(out.fileno(), 0o755 if executable else 0o644)


def _checked_path(name: str) -> str:
    """``name`` as a path inside the package ("" for the package's own directory)."""
    encoded = name.encode("utf-8", "surrogateescape")
    shown = name if len(name) <= 60 else name[:60] + "..."
    if b"\0" in encoded:
        raise InvalidPackage(f"{shown!r} holds a NUL byte, which no file name may")
    if len(encoded) > MAX_PATH_BYTES:
        raise InvalidPackage(
            f"the path {shown!r} is {len(encoded):,} bytes long; "
            f"at most {MAX_PATH_BYTES:,} are allowed"
        )
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts:
        raise InvalidPackage(
            f"{name!r} would land outside the package: use relative paths without '..'"
        )
    for part in path.parts:
        size = len(part.encode("utf-8", "surrogateescape"))
        if size > MAX_NAME_BYTES:
            raise InvalidPackage(
                f"{shown!r} has a name of {size:,} bytes; "
                f"at most {MAX_NAME_BYTES} are allowed for each name in a path"
            )
    return path.as_posix() if path.parts else ""


def _too_many() -> InvalidPackage:
    return InvalidPackage(
        f"the package has more than {MAX_FILES:,} entries (files and directories, those "
        f"its paths imply included); at most {MAX_FILES:,} are allowed"
    )


class _Tree:
    """The paths a package has made so far, so that each is made once and counted."""

    def __init__(self) -> None:
        self.directories = {""}
        self.files: set[str] = set()
        self.entries = 0

    def count(self) -> None:
        self.entries += 1
        if self.entries > MAX_FILES:
            raise _too_many()

    def directory(self, path: str) -> list[str]:
        """The directories to make for ``path``, outermost first."""
        if path in self.files:
            raise InvalidPackage(f"{path!r} is both a file and a directory in the package")
        if path in self.directories:
            return []
        made = [*self._parents(path), path]
        self._add(made)
        return made

    def file(self, path: str) -> list[str]:
        """The directories to make before the file ``path``, outermost first."""
        if path in self.files:
            raise InvalidPackage(f"{path!r} is in the package twice: keep one")
        if path in self.directories:
            raise InvalidPackage(f"{path!r} is both a file and a directory in the package")
        made = self._parents(path)
        self._add(made)
        self.files.add(path)
        return made

    def _parents(self, path: str) -> list[str]:
        missing = []
        parent = path.rpartition("/")[0]
        while parent not in self.directories:
            if parent in self.files:
                raise InvalidPackage(f"{parent!r} is both a file and a directory in the package")
            missing.append(parent)
            parent = parent.rpartition("/")[0]
        return missing[::-1]

    def _add(self, directories: list[str]) -> None:
        self.directories.update(directories)
        if len(self.directories) - 1 + len(self.files) >= MAX_FILES + 1:
            raise _too_many()


@dataclass(frozen=True)
class _Entry:
    name: str
    type: bytes
    size: int
    mode: int
    linkname: str


class _TarStream:
    """The members of a tar stream, one at a time, each header checked before anything
    it announces is read."""

    def __init__(self, packed: BinaryIO) -> None:
        self.stream = _Inflated(packed)
        self.records = 0
        self.started = False

    def next(self) -> _Entry | None:
        """The next member, or None at the end of the archive."""
        long_name = long_link = None
        pax: dict[str, str] = {}
        for _ in range(MAX_EXTENSIONS + 1):
            block = self.stream.read(_BLOCK)
            if not block and self.started and not (pax or long_name or long_link):
                return None  # no end-of-archive blocks: tar itself takes that
            if len(block) < _BLOCK:
                raise InvalidPackage(f"{UNREADABLE}: it ends {_where(self.started)}")
            self.started = True
            if not block.strip(b"\0"):
                return None  # the end-of-archive block; what follows is never read
            try:
                header = tarfile.TarInfo.frombuf(block, "utf-8", "surrogateescape")
            except tarfile.HeaderError as error:
                raise InvalidPackage(f"{UNREADABLE}: {error}") from None
            if header.size < 0:
                raise InvalidPackage(f"{UNREADABLE}: a header gives a negative size")
            if header.type not in _PAX and header.type not in _GNU_NAMES:
                return _Entry(
                    pax.get("path", long_name or header.name),
                    header.type,
                    _pax_size(pax["size"]) if "size" in pax else header.size,
                    header.mode,
                    pax.get("linkpath", long_link or header.linkname),
                )
            if header.size > MAX_EXTENSION_BYTES:
                raise InvalidPackage(
                    f"an extended header (pax or GNU long name) holds {header.size:,} bytes; "
                    f"at most {MAX_EXTENSION_BYTES:,} are allowed"
                )
            data = self._exactly(_blocks(header.size), "inside an extended header")
            data = data[: header.size]
            if header.type == tarfile.GNUTYPE_LONGNAME:
                long_name = _text(data.split(b"\0", 1)[0])
            elif header.type == tarfile.GNUTYPE_LONGLINK:
                long_link = _text(data.split(b"\0", 1)[0])
            else:
                pax.update(self._pax(data, scope=header.type))
        raise InvalidPackage(
            f"a member has more than {MAX_EXTENSIONS} extended headers (pax or GNU long "
            f"name) before it; at most {MAX_EXTENSIONS} are allowed"
        )

    def data(self, entry: _Entry) -> Iterator[bytes]:
        """The member's bytes, as they arrive; the stream is then at the next header."""
        left = entry.size
        while left:
            chunk = self.stream.read(min(left, _DATA_CHUNK))
            if not chunk:
                raise InvalidPackage(f"{UNREADABLE}: it ends inside {entry.name!r}")
            left -= len(chunk)
            yield chunk
        self._exactly(_blocks(entry.size) - entry.size, f"inside {entry.name!r}")

    def _exactly(self, size: int, where: str) -> bytes:
        data = self.stream.read(size)
        if len(data) < size:
            raise InvalidPackage(f"{UNREADABLE}: it ends {where}")
        return data

    def _pax(self, data: bytes, scope: bytes) -> dict[str, str]:
        """The records of a pax header that matter here ("LENGTH KEY=VALUE\\n" each)."""
        kept: dict[str, str] = {}
        position = 0
        while position < len(data) and data[position]:
            self.records += 1
            if self.records > MAX_PAX_RECORDS:
                raise InvalidPackage(
                    f"the package's pax headers hold more than {MAX_PAX_RECORDS:,} records; "
                    f"at most {MAX_PAX_RECORDS:,} are allowed"
                )
            space = data.find(b" ", position, position + 8)
            digits = data[position:space]
            end = position + int(digits) if space > 0 and digits.isdigit() else -1
            if not space < end <= len(data) or data[end - 1] != ord("\n"):
                raise InvalidPackage(f"{UNREADABLE}: a pax header is malformed")
            key, equals, value = data[space + 1 : end - 1].partition(b"=")
            if not key or not equals:
                raise InvalidPackage(f"{UNREADABLE}: a pax header is malformed")
            keyword = _text(key)
            if keyword.startswith("GNU.sparse."):
                raise InvalidPackage(
                    "the package holds a sparse file; a package holds plain files and "
                    "directories only"
                )
            if keyword in _PAX_KEPT:
                if scope == tarfile.XGLTYPE:
                    raise InvalidPackage(
                        f"a pax global header sets {keyword!r} for every member; "
                        "set it in each member's own header"
                    )
                kept[keyword] = _text(value)
            position = end
        return kept


def _blocks(size: int) -> int:
    """``size`` rounded up to whole tar blocks, as the archive stores it."""
    return size + (-size % _BLOCK)


def _pax_size(value: str) -> int:
    if not value.isascii() or not value.isdigit():
        raise InvalidPackage(f"{UNREADABLE}: a pax header gives the size {value[:30]!r}")
    return int(value)


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _where(started: bool) -> str:
    return "inside a header" if started else "before its first header (is it empty?)"


class _Inflated:
    """The tar inside the gzip stream ``packed``, inflated no further than the limits
    allow: ``MAX_TAR_BYTES`` in all, and ``MAX_RATIO`` bytes per packed byte read so far
    past ``FREE_INFLATION``. Padding at the end never counts: what follows the
    end-of-archive block is never read."""

    def __init__(self, packed: BinaryIO) -> None:
        self._packed = packed
        self._zlib = zlib.decompressobj(wbits=_GZIP)
        self._input = b""
        self._members = 0
        self._inside = False
        self.packed = 0
        self.inflated = 0

    def read(self, size: int) -> bytes:
        """``size`` bytes, fewer only where the stream ends."""
        out = bytearray()
        while len(out) < size:
            if not self._input:
                self._input = self._take()
                if not self._input:
                    if self._inside:
                        raise InvalidPackage(f"{UNREADABLE}: its gzip stream is cut short")
                    break
            if not self._inside and self._members:
                self._input = self._input.lstrip(b"\0")  # gzip allows zeros between members
                if not self._input:
                    continue
            self._inside = True
            try:
                chunk = self._zlib.decompress(self._input, size - len(out))
            except zlib.error as error:
                raise InvalidPackage(f"{UNREADABLE}: {error}") from None
            self._input = self._zlib.unconsumed_tail
            if self._zlib.eof:  # one gzip member ends; another may follow
                self._input = self._zlib.unused_data
                self._zlib = zlib.decompressobj(wbits=_GZIP)
                self._members += 1
                self._inside = False
            out += chunk
            self._count(len(chunk))
        return bytes(out)

    def _take(self) -> bytes:
        data = self._packed.read(_PACKED_CHUNK)
        self.packed += len(data)
        if self.packed > MAX_PACKAGE_BYTES:
            raise InvalidPackage(
                f"the package is more than {MAX_PACKAGE_BYTES:,} bytes; "
                f"at most {MAX_PACKAGE_BYTES:,} are allowed"
            )
        return data

    def _count(self, size: int) -> None:
        self.inflated += size
        if self.inflated > MAX_TAR_BYTES:
            raise InvalidPackage(
                f"the package's tar is more than {MAX_TAR_BYTES:,} bytes; at most "
                f"{MAX_TAR_BYTES:,} ({MAX_UNPACKED_BYTES:,} of files and the rest headers) "
                "are allowed"
            )
        if self.inflated > FREE_INFLATION + MAX_RATIO * self.packed:
            raise InvalidPackage(
                f"the package inflates more than {MAX_RATIO} to 1: {self.packed:,} packed "
                f"bytes gave over {self.inflated:,}; past its first {FREE_INFLATION:,} "
                f"bytes, at most {MAX_RATIO} per packed byte are allowed"
            )


def command_argv(command: str, runtime: Runtime, files: list[Member]) -> list[str]:
    """The command as words, once it is known to start something the package has."""
    if len(command) > MAX_COMMAND_CHARS:
        raise InvalidPackage(f"the command is longer than {MAX_COMMAND_CHARS} characters")
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise InvalidPackage(f"the command does not parse: {error}") from None
    if not argv:
        raise InvalidPackage("the command is empty: give the one that starts the bot")
    by_path = {PurePosixPath(m.path).as_posix(): m for m in files}
    programs = ", ".join(word for word, _ in runtime.programs)
    if runtime.program(argv[0]) is not None:
        script = next((a for a in argv[1:] if not a.startswith("-")), None)
        if script is not None and _clean(script) not in by_path:
            raise InvalidPackage(f"the command runs {script!r}, which is not in the package")
        return argv
    member = by_path.get(_clean(argv[0]))
    if member is None:
        also = f" or one of {programs}" if programs else ""
        raise InvalidPackage(
            f"the command starts {argv[0]!r}, which is not in the package; "
            f"start a file of the package{also}"
        )
    if not member.executable:
        raise InvalidPackage(f"{argv[0]!r} is not executable: set its mode (chmod +x)")
    return argv


def _clean(path: str) -> str:
    return PurePosixPath(path.removeprefix("./")).as_posix()


def _kind(entry: _Entry) -> str:
    if entry.type == tarfile.SYMTYPE:
        return f"symbolic link (to {entry.linkname!r})"
    if entry.type == tarfile.LNKTYPE:
        return f"hard link (to {entry.linkname!r})"
    if entry.type == tarfile.GNUTYPE_SPARSE:
        return "sparse file"
    return "device or special file"


def pack(directory: Path) -> bytes:
    """``directory`` as a package: a tar.gz of its files and directories, the same bytes
    (and so the same SHA-256) for the same files wherever and whenever it is packed.
    Links are refused rather than followed: a package holds plain files only."""
    buffer = io.BytesIO()
    # mtime 0 in the gzip header too, so that only the files decide the digest.
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as zipped,
        tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as archive,
    ):
        for path in sorted(directory.rglob("*")):
            name = path.relative_to(directory).as_posix()
            if path.is_symlink():
                raise InvalidPackage(f"{name!r} is a symbolic link; pack the file it points to")
            info = archive.gettarinfo(str(path), arcname=name)
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            if path.is_file():
                with path.open("rb") as data:
                    archive.addfile(info, data)
            else:
                archive.addfile(info)
    return buffer.getvalue()
