"""One control group per sandbox: limits on the whole box, not on each of its processes.

Per-process limits let an author multiply them: 64 processes of 2 GiB each. A cgroup
holds every process of one sandbox, so its memory (swap included), its process count
and its CPU share are the box's, whatever it forks, and the cgroup can be frozen while
the bot waits for its turn.

Both cgroup versions are supported: v2 (a unified hierarchy with the memory, pids and
cpu controllers) and v1 (memory, pids, cpu and freezer each mounted on its own, as on
hosts that keep the legacy layout). Boxes go under ``arena-sandboxes`` in the cgroup of
the process that makes them (v1) or at the top of the hierarchy it sees (v2, where a
cgroup that holds processes cannot hand controllers down), so a host's own limits on
the referee still hold over its bots. Each box is named after the process that made
it, so that a referee starting up can remove the boxes of one that was killed
(``sweep``) without touching those of a neighbour that still runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import secrets
import signal
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

PARENT = "arena-sandboxes"
BOX = "box"
"""How a box's name begins: ``box-<pid of its maker>-<random>``."""
V1_CONTROLLERS = ("memory", "pids", "cpu", "freezer")
V2_CONTROLLERS = ("memory", "pids", "cpu")
CPU_PERIOD_US = 10_000
"""The CPU quota's period: a box over its share waits out the rest of a period, so a
short one keeps a burst (every thread of a bot woken at once) from stalling a move."""
REMOVE_TRIES = 50
"""Tries, 20 ms apart, to remove a box whose processes are still being torn down."""


class CgroupUnavailable(RuntimeError):
    """No cgroup hierarchy this process can put sandboxes in; the message says why."""


@dataclass(frozen=True)
class Hierarchy:
    """Where this process makes its boxes: one parent directory per v1 controller, or
    one for v2 (under the key ``""``)."""

    version: int
    parents: tuple[tuple[str, Path], ...]

    def new_box(self, memory_bytes: int, processes: int, cpus: float) -> Box:
        """A new, empty box with these limits; OSError if the kernel refuses one."""
        name = f"{BOX}-{os.getpid()}-{secrets.token_hex(6)}"
        box = Box(self.version, tuple((c, parent / name) for c, parent in self.parents))
        try:
            for path in box.paths:
                path.mkdir()
            box.limit(memory_bytes, processes, cpus)
        except BaseException:
            box.remove_now()
            raise
        return box

    def sweep(self) -> list[str]:
        """Remove the boxes of processes that no longer run, killing what is left in
        them; the names removed."""
        removed = set()
        for controller, parent in self.parents:
            with contextlib.suppress(OSError):
                for entry in parent.iterdir():
                    if left_behind(entry.name, BOX):
                        Box(self.version, ((controller, entry),)).kill_all()
                        with contextlib.suppress(OSError):
                            entry.rmdir()
                            removed.add(entry.name)
        return sorted(removed)


@dataclass(frozen=True)
class Box:
    """One sandbox's cgroup: a directory per v1 controller, or one for v2 (``""``)."""

    version: int
    parts: tuple[tuple[str, Path], ...]
    """(controller, directory) pairs."""

    @property
    def paths(self) -> tuple[Path, ...]:
        return tuple(path for _, path in self.parts)

    @property
    def procs_files(self) -> list[str]:
        """Where a process writes its PID to join the box (all of them, for v1)."""
        return [str(path / "cgroup.procs") for path in self.paths]

    def limit(self, memory_bytes: int, processes: int, cpus: float) -> None:
        quota = max(1000, int(cpus * CPU_PERIOD_US))
        if self.version == 2:
            (path,) = self.paths
            _write(path / "memory.max", memory_bytes)
            _write(path / "memory.swap.max", 0, missing_ok=True)  # no swap beyond memory
            _write(path / "pids.max", processes)
            _write(path / "cpu.max", f"{quota} {CPU_PERIOD_US}")
            return
        for controller, path in self.parts:
            if controller == "memory":
                _write(path / "memory.limit_in_bytes", memory_bytes)
                # memory and swap together: no more than memory alone (where swap is counted)
                _write(path / "memory.memsw.limit_in_bytes", memory_bytes, missing_ok=True)
            elif controller == "pids":
                _write(path / "pids.max", processes)
            elif controller == "cpu":
                _write(path / "cpu.cfs_period_us", CPU_PERIOD_US)
                _write(path / "cpu.cfs_quota_us", quota)

    def freezer(self) -> Freezer:
        """The box's freezer, held open until closed."""
        return Freezer(self._file("freezer", "cgroup.freeze", "freezer.state"), self.version)

    def freeze(self) -> None:
        """Stop every process of the box where it stands until ``thaw``."""
        with contextlib.closing(self.freezer()) as freezer:
            freezer.freeze()

    def thaw(self) -> None:
        with contextlib.closing(self.freezer()) as freezer:
            freezer.thaw()

    def oom_kills(self) -> int:
        """How many processes the kernel killed for the box's memory limit."""
        with contextlib.suppress(OSError):
            counts = self._file("memory", "memory.events", "memory.oom_control")
            for line in counts.read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        return 0

    def kill_all(self) -> None:
        """SIGKILL every process in the box (frozen first, so none forks meanwhile)."""
        with contextlib.suppress(OSError):
            self.freeze()
        for path in self.paths:
            with contextlib.suppress(OSError):
                for pid in (path / "cgroup.procs").read_text().split():
                    with contextlib.suppress(ProcessLookupError, ValueError):
                        os.kill(int(pid), signal.SIGKILL)
        with contextlib.suppress(OSError):
            self.thaw()  # a frozen process cannot die

    async def remove(self) -> None:
        """Remove the box once its processes are gone (killing any that are not)."""
        for attempt in range(REMOVE_TRIES):
            if self.remove_now():
                return
            if attempt == 5:
                self.kill_all()
            await asyncio.sleep(0.02)

    def remove_now(self) -> bool:
        """Remove what can be removed now; whether all of it is gone."""
        gone = True
        for path in self.paths:
            try:
                path.rmdir()
            except FileNotFoundError:
                pass
            except OSError as error:
                if error.errno != errno.EBUSY:
                    raise
                gone = False
        return gone

    def _file(self, controller: str, v2_name: str, v1_name: str) -> Path:
        """A control file of the box: ``v2_name`` in its one directory, or ``v1_name``
        in the directory of the v1 ``controller``."""
        if self.version == 2:
            return self.parts[0][1] / v2_name
        for name, path in self.parts:
            if name == controller:
                return path / v1_name
        # a box of one controller's directory only, as a sweep finds them
        raise OSError(errno.ENOTSUP, f"the box has no {controller} controller")


class Freezer:
    """A box's freezer file, open: the referee freezes one box and thaws another at
    every decision of a match, and a write to an open file is a fifth of the cost of
    opening it each time (``bench.hosted_match``)."""

    def __init__(self, path: Path, version: int) -> None:
        self._fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
        self._values = (b"1", b"0") if version == 2 else (b"FROZEN", b"THAWED")

    def freeze(self) -> None:
        os.write(self._fd, self._values[0])

    def thaw(self) -> None:
        os.write(self._fd, self._values[1])

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def _write(path: Path, value: object, *, missing_ok: bool = False) -> None:
    try:
        path.write_text(str(value))
    except FileNotFoundError:
        if not missing_ok:
            raise


def left_behind(name: str, kind: str) -> bool:
    """Whether ``name`` is one of ``kind``'s, ``<kind>-<pid>-<random>``, made by a
    process that no longer runs: what a starting referee may remove."""
    parts = name.split("-", 2)
    return len(parts) == 3 and parts[0] == kind and parts[1].isdigit() and not alive(int(parts[1]))


def alive(pid: int) -> bool:
    """Whether a process ``pid`` runs (or is a zombie not yet reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def parse(
    mountinfo: str, self_cgroup: str, controllers_at: Callable[[Path], str] | None = None
) -> tuple[int, dict[str, Path]]:
    """Where this process's cgroups are, per controller: (2, {"": path}) when a v2
    hierarchy has every controller a box needs, else (1, {controller: path}) when v1
    has them all; CgroupUnavailable saying what is missing otherwise.

    ``mountinfo`` and ``self_cgroup`` are the texts of /proc/self/mountinfo and
    /proc/self/cgroup; ``controllers_at`` reads a v2 mount's cgroup.controllers."""
    controllers_at = controllers_at or _controllers_at
    own = {}
    for line in self_cgroup.splitlines():
        number, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if number != "0" else [""]:
            own[controller] = path
    v1: dict[str, Path] = {}
    v2: Path | None = None
    for line in mountinfo.splitlines():
        fields = line.split()
        dash = fields.index("-")
        root, point, fstype, options = fields[3], fields[4], fields[dash + 1], fields[-1]
        if fstype == "cgroup2" and "" in own:
            with contextlib.suppress(OSError):
                if set(V2_CONTROLLERS) <= set(controllers_at(Path(point)).split()):
                    v2 = Path(point)
        elif fstype == "cgroup":
            for controller in set(options.split(",")) & set(V1_CONTROLLERS):
                if controller in own:
                    inside = os.path.relpath(own[controller], root)
                    v1[controller] = Path(point) / inside if inside != "." else Path(point)
    if v2 is not None:
        return 2, {"": v2}
    missing = [c for c in V1_CONTROLLERS if c not in v1]
    if not missing:
        return 1, v1
    raise CgroupUnavailable(
        "no cgroup v2 hierarchy with the memory, pids and cpu controllers, and no v1 "
        f"hierarchy for {', '.join(missing)}"
    )


@cache
def hierarchy() -> Hierarchy:
    """This process's place for boxes, made ready once; CgroupUnavailable if there is
    none it can use (not root, no such controllers, or the kernel said no)."""
    if os.geteuid() != 0:
        raise CgroupUnavailable("only root can make a cgroup for each sandbox here")
    try:
        version, where = parse(
            Path("/proc/self/mountinfo").read_text(), Path("/proc/self/cgroup").read_text()
        )
        if version == 2:
            top = where[""]
            _enable(top)
            (top / PARENT).mkdir(exist_ok=True)
            _enable(top / PARENT)
            return Hierarchy(2, (("", top / PARENT),))
        parents = []
        for controller, path in sorted(where.items()):
            (path / PARENT).mkdir(exist_ok=True)
            parents.append((controller, path / PARENT))
        return Hierarchy(1, tuple(parents))
    except OSError as error:
        raise CgroupUnavailable(f"cannot make sandbox cgroups: {error}") from None


def why_not() -> CgroupUnavailable | None:
    """Why this process cannot give sandboxes a cgroup, or None if it can."""
    try:
        hierarchy()
    except CgroupUnavailable as error:
        return error
    return None


def _controllers_at(mount: Path) -> str:
    return (mount / "cgroup.controllers").read_text()


def _enable(path: Path) -> None:
    wanted = set(V2_CONTROLLERS) - set((path / "cgroup.subtree_control").read_text().split())
    if wanted:
        (path / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in sorted(wanted)))
