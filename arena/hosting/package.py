"""A hosted bot's package: a tar.gz of its files and the command that starts it.

Checked before anything is stored or run: its size, every member (plain files and
directories only, each inside the package: no absolute paths, no ``..``, no links or
devices), the total unpacked size and the command, whose program must be one its
runtime offers (``python3``, ``node``) or an executable file of the package. Packages
are named by the SHA-256 of their bytes, so the same files are stored once.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import shlex
import tarfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from arena.hosting.runtimes import Runtime

MiB = 1 << 20
MAX_PACKAGE_BYTES = 16 * MiB
MAX_UNPACKED_BYTES = 64 * MiB
MAX_FILES = 5000
MAX_COMMAND_CHARS = 1000


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
    if len(blob) > MAX_PACKAGE_BYTES:
        raise InvalidPackage(
            f"the package is {len(blob):,} bytes; at most {MAX_PACKAGE_BYTES:,} are allowed"
        )
    try:
        with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as archive:
            infos = archive.getmembers()
    except (tarfile.TarError, EOFError, OSError) as error:
        raise InvalidPackage(f"the package is not a readable tar.gz: {error}") from None
    if len(infos) > MAX_FILES:
        raise InvalidPackage(f"the package has {len(infos)} entries; at most {MAX_FILES}")
    found, total = [], 0
    for info in infos:
        name = PurePosixPath(info.name)
        if name.is_absolute() or ".." in name.parts or not name.parts:
            raise InvalidPackage(
                f"{info.name!r} would land outside the package: use relative paths without '..'"
            )
        if not (info.isfile() or info.isdir()):
            raise InvalidPackage(
                f"{info.name!r} is a {_kind(info)}; "
                "a package holds plain files and directories only"
            )
        total += info.size
        if total > MAX_UNPACKED_BYTES:
            raise InvalidPackage(f"the package unpacks to more than {MAX_UNPACKED_BYTES:,} bytes")
        if info.isfile():
            found.append(Member(str(name), bool(info.mode & 0o100)))
    return found


def unpack(blob: bytes, into: Path) -> None:
    """Unpack a package that ``members`` accepted into the empty directory ``into``."""
    members(blob)
    with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as archive:
        archive.extractall(into, filter="data")  # the same rules again, by the library


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


def _kind(info: tarfile.TarInfo) -> str:
    if info.issym():
        return f"symbolic link (to {info.linkname!r})"
    if info.islnk():
        return f"hard link (to {info.linkname!r})"
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
