"""Directories only the arena may touch, and files opened there without following links.

A referee that runs as root keeps sandbox state (user-id locks, socket directories) and
unpacked packages on disk. Anywhere another local user can write, a planted symbolic
link would turn the referee's own writes against a file of its choosing, and a planted
directory would be taken for a package. So every such directory is the arena's own:
created 0700, or, if it is there already, a real directory (not a link) owned by this
user that nobody else can write or read; anything else is refused with one line saying
what was found. Files in it are opened relative to it with ``O_NOFOLLOW``.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


class UnsafeDirectory(OSError):
    """A state directory another user could tamper with; the message says how."""


def private_directory(path: Path) -> Path:
    """``path`` created (with its missing parents) or checked as described above."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.mkdir(mode=0o700)
    except FileExistsError:
        pass
    found = os.lstat(path)
    if stat.S_ISLNK(found.st_mode) or not stat.S_ISDIR(found.st_mode):
        raise UnsafeDirectory(f"{path} is not a directory (a link or a file is there)")
    if found.st_uid != os.geteuid():
        raise UnsafeDirectory(
            f"{path} belongs to user {found.st_uid}, not to this user ({os.geteuid()}): "
            "remove it or choose another directory"
        )
    if found.st_mode & 0o077:
        raise UnsafeDirectory(
            f"{path} has mode {stat.S_IMODE(found.st_mode):04o}; it must be 0700 (chmod 700 {path})"
        )
    return path


def open_no_follow(directory: Path, name: str, flags: int, mode: int = 0o600) -> int:
    """A file descriptor for ``name`` in ``directory``; OSError (ELOOP) if either is a
    symbolic link."""
    folder = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        return os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=folder)
    finally:
        os.close(folder)


def state_root() -> Path:
    """Where this user's arena keeps sandbox state by default: ``/run/arena`` for root
    (a root-only tmpfs on most hosts), else a directory of the user's in the temp dir."""
    if os.geteuid() == 0 and Path("/run").is_dir():
        return Path("/run/arena")
    return Path(tempfile.gettempdir()) / f"arena-{os.geteuid()}"
