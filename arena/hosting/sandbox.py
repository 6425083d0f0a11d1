"""One hosted bot in a bubblewrap sandbox: a box of its own, no network, no memory.

Each sandbox is fresh: new mount, PID, network, IPC, UTS and cgroup namespaces and, as
root too, a user namespace of its own; a read-only view of its runtime
(``arena.hosting.runtimes``), ``/usr`` and the bot's files at ``/bot``; a private tmpfs
at ``/tmp`` that goes with it; and one writable directory, ``/run/arena``, where the bot
listens on a Unix socket (``$ARENA_BOT_ADDRESS``), the only way in or out (a tmpfs of
256 KiB and 16 files when the arena runs as root). The loopback interface of its own
network namespace reaches nothing. Neither ``/proc`` nor ``/sys`` is there: both show
host-wide figures that move when any process works (load, CPU ticks, open files, inodes,
entropy) and host paths (``/proc/self/mountinfo``), so two boxes could talk through them;
the runtimes need neither.

Run as root, bubblewrap sets the box up as root and then starts, under a host user id
of the box's own from ``UIDS`` (leased host-wide, ``uid_locks``) with no capabilities, a
second bubblewrap that makes the user namespace, forbids any further one, installs the
seccomp filter (``arena.hosting.seccomp``) and starts the bot. Nothing keyed by user id
(keyrings, IPC, locks) is shared with another box or outlives it. Run as another user,
one unprivileged bubblewrap does all of it in its own user namespace.

Limits: a cgroup per box (``arena.hosting.cgroups``) holds all its processes to one
memory limit (swap included), one process count and one CPU share, and can freeze it;
kernel resource limits per process add CPU seconds, address space, open files and file
size. Without a usable cgroup hierarchy (not root, or no such controllers) a sandbox
starts only when the operator said ``unsafe_no_cgroups``, for a laptop.

What the bot writes to stdout and stderr is kept up to ``Limits.log_bytes``; the rest
is read and dropped, so a bot that floods its output neither blocks nor fills a disk.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypeVar

from arena.bots.sdk import HOSTED_ADDRESS_ENV
from arena.hosting import cgroups, seccomp
from arena.hosting.private import open_no_follow, private_directory, state_root
from arena.hosting.runtimes import Runtime

SOCKET = "/run/arena/bot.sock"
DRAIN_S = 2.0
"""How long a killed sandbox's output may take to end: only a process that outlived its
sandbox could hold it open longer, and nothing waits on it for ever."""
UIDS = range(61000, 62000)
"""User ids for sandboxes; no account on the host should use them."""


def uid_locks() -> Path:
    """The one directory of this host whose lock files hand out ``UIDS``, whatever state
    directory a sandbox keeps its files in: two referees on different state directories
    that leased from their own would start boxes under one user id, and the kernel's
    per-user limits (processes: bubblewrap then fails with EAGAIN) and keys would join
    them."""
    return state_root() / "uids"


MiB = 1 << 20
T = TypeVar("T")


class Uncontained(OSError):
    """This host cannot hold a sandbox in a cgroup and the operator did not allow
    sandboxes without one: the host's fault, never the bot's."""


class SandboxError(RuntimeError):
    """A sandbox that could not start or serve; the message ends with the bot's output.

    ``reason`` is the message without that output: what the arena can say about the
    sandbox to anyone, where the bot's own words go to its author only."""

    def __init__(self, reason: str, tail: str = "") -> None:
        super().__init__(reason + tail)
        self.reason = reason


@dataclass(frozen=True)
class Limits:
    """What one sandboxed bot may use. ``box_memory_bytes``, ``processes`` and ``cpus``
    hold for the whole box (its cgroup); the others for each of its processes."""

    cpu_s: int = 300
    """CPU seconds per process."""
    memory_bytes: int = 2048 * MiB
    """Address space per process (RLIMIT_AS): Node.js reserves about 1 GiB up front."""
    box_memory_bytes: int = 1024 * MiB
    """Memory of all the box's processes and its /tmp together, swap included."""
    cpus: float = 1.0
    """The box's share of CPU time, in cores."""
    processes: int = 64
    """Threads count: a gRPC server runs a dozen."""
    open_files: int = 256
    file_bytes: int = 16 * MiB
    """The largest file it may write (in its tmpfs)."""
    tmp_bytes: int = 64 * MiB
    log_bytes: int = 256 * 1024
    start_s: float = 20.0
    """How long it may take to listen."""


def bwrap() -> str:
    """The bubblewrap executable; SandboxError when it is missing."""
    found = shutil.which("bwrap")
    if found is None:
        raise SandboxError("bubblewrap (bwrap) is not installed: run `make` (Debian's bubblewrap)")
    return found


def default_root() -> Path:
    """Where sandboxes keep their state unless told otherwise: shared by every referee
    of this user on the host, which the user-id locks need."""
    return state_root() / "sandboxes"


MAX_SOCKET_PATH = 107
"""Bytes of a unix socket's path (``sun_path`` less its terminating zero)."""


def _check_socket_fits(root: Path) -> None:
    """Refuse a state directory so deep that a bot's socket under it could not be bound:
    the bot would start and never be reached, and the error would name neither."""
    longest = root / f"sandbox-{os.getpid()}-{'x' * 8}" / "run" / "bot.sock"
    size = len(os.fsencode(longest))
    if size > MAX_SOCKET_PATH:
        raise SandboxError(
            f"sandbox state directory {root} is too deep: a bot's socket under it takes "
            f"{size} bytes and a unix socket's path at most {MAX_SOCKET_PATH}; use a "
            "shorter directory"
        )


class _UidLease:
    """A sandbox user id, held through a lock file so that no two sandboxes on this host
    share one, whichever process started them. The lock files live in a directory of
    root's alone and are opened without following links."""

    def __init__(self, directory: Path) -> None:
        private_directory(directory)
        for uid in UIDS:
            try:
                handle = open_no_follow(directory, f"{uid}.lock", os.O_RDWR | os.O_CREAT)
            except OSError:  # a link or worse where its lock should be: not that one
                continue
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(handle)
                continue
            self.uid, self._handle = uid, handle
            return
        raise SandboxError(f"all {len(UIDS)} sandbox user ids are in use on this host")

    def release(self) -> None:
        os.close(self._handle)


@dataclass
class Sandbox:
    """A started sandbox. ``address`` is what the referee dials; ``close`` ends it."""

    process: asyncio.subprocess.Process
    address: str
    workdir: Path
    log_path: Path
    _drain: asyncio.Task[None]
    _uid: _UidLease | None
    _info: int
    """The read end of bubblewrap's --info-fd, which names the sandbox's first process."""
    box: cgroups.Box | None = None
    """The box's cgroup (None only where the operator allowed sandboxes without one)."""
    _first: int | None = None
    _freezer: cgroups.Freezer | None = None

    @classmethod
    async def start(
        cls,
        package: Path,
        runtime: Runtime,
        command: Sequence[str],
        log_path: Path,
        limits: Limits | None = None,
        root: Path | None = None,
        *,
        unsafe_no_cgroups: bool = False,
    ) -> Sandbox:
        """Start ``command`` (a word of ``runtime.programs`` or a file of ``package``,
        then its arguments) and wait until it listens; SandboxError if it does not,
        Uncontained if this host cannot give it a cgroup and that was not allowed."""
        limits = limits or Limits()
        root = private_directory(root or default_root())
        _check_socket_fits(root)
        uid = _UidLease(uid_locks()) if os.geteuid() == 0 else None
        workdir = Path(tempfile.mkdtemp(prefix=f"sandbox-{os.getpid()}-", dir=root))
        info, info_w = os.pipe()
        os.set_blocking(info, False)
        rules, rules_w = os.pipe()
        box: cgroups.Box | None = None
        try:
            os.write(rules_w, seccomp.compiled())  # far less than a pipe holds
            os.close(rules_w)
            box = _new_box(limits, unsafe_no_cgroups)
            sockets = workdir / "run"
            sockets.mkdir()
            if uid is not None:  # a mount cut short would finish after the undoing
                await _to_the_end(_small_tmpfs(sockets, uid.uid))
            plan = _Plan(package, runtime, command, sockets, limits, rules, info_w)
            argv = _argv(plan, uid.uid if uid else None, box)
            log_path.parent.mkdir(parents=True, exist_ok=True)
            process = await _spawn(argv, (info_w, rules), info)
        except BaseException:
            await _to_the_end(_undo(workdir, uid, info, box))
            raise
        finally:
            os.close(info_w)
            os.close(rules)
        assert process.stdout is not None
        drain = asyncio.create_task(_keep(process.stdout, log_path.open("wb"), limits.log_bytes))
        address = f"unix:{sockets / 'bot.sock'}"
        sandbox = cls(process, address, workdir, log_path, drain, uid, info, box)
        try:
            sandbox._freezer = box.freezer() if box else None
            await sandbox._listening(sockets / "bot.sock", limits.start_s)
        except BaseException:
            await _to_the_end(sandbox.close())
            raise
        return sandbox

    async def _listening(self, socket: Path, timeout_s: float) -> None:
        """Until the bot accepts a connection: its socket's file appears as it binds, a
        moment before it listens, and a connection in between is refused (seen on a
        loaded host)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while not await _accepts(socket):
            if self.process.returncode is not None:
                await self._drain
                raise SandboxError(f"the bot exited with {self.describe_exit()}", self.tail())
            if loop.time() > deadline:
                raise SandboxError(f"the bot did not listen within {timeout_s:g} s", self.tail())
            await asyncio.sleep(0.02)

    def describe_exit(self) -> str:
        """How the process ended, in words (a resource limit names itself)."""
        code = self.process.returncode
        if code is None:
            return "nothing yet: it runs"
        if self.box is not None and self.box.oom_kills():
            return f"{exit_words(code)}; a process of it was killed at the box's memory limit"
        return exit_words(code)

    def tail(self, lines: int = 20) -> str:
        """The last lines the bot wrote, as a suffix for a message (empty if none)."""
        return log_tail(self.log_path, lines)

    def running(self) -> bool:
        """Whether its process has not ended yet."""
        return self.process.returncode is None

    def freeze(self) -> None:
        """Stop every process of the box where it stands (its cgroup's freezer) until
        ``thaw``: a seat computes only while it is asked to act. Nothing without a
        cgroup, or once the box is gone."""
        if self._freezer is not None and self.process.returncode is None:
            with contextlib.suppress(OSError):
                self._freezer.freeze()

    def thaw(self) -> None:
        if self._freezer is not None:
            with contextlib.suppress(OSError):
                self._freezer.thaw()

    def kill(self) -> None:
        """Kill the sandbox now, and with it every process in it; ``stop`` waits for that."""
        self.thaw()  # a frozen process takes no signal, not even SIGKILL, under cgroup v1
        if self.process.returncode is None:
            self._first = _kill(self.process.pid, self._info, self._first)

    async def stop(self) -> None:
        """Kill every process of the sandbox and wait until all they wrote is in the log."""
        self.kill()
        try:
            await asyncio.wait_for(asyncio.shield(self.process.wait()), DRAIN_S)
        except TimeoutError:  # bubblewrap did not end once its box had: end it
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            await self.process.wait()
        done, _ = await asyncio.wait({self._drain}, timeout=DRAIN_S)
        if not done:  # a process outlived its sandbox; the log is whole enough
            self._drain.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._drain

    async def close(self) -> None:
        """Kill every process of the sandbox and remove its files and its cgroup."""
        await self.stop()
        if self._freezer is not None:
            self._freezer.close()
            self._freezer = None
        if self.box is not None:
            await self.box.remove()
            self.box = None
        if self._uid is not None:
            await _run("umount", "--lazy", str(self.workdir / "run"))
        shutil.rmtree(self.workdir, ignore_errors=True)
        if self._uid is not None:
            self._uid.release()
            self._uid = None
        if self._info >= 0:
            os.close(self._info)
            self._info = -1


def sweep(root: Path | None = None) -> list[str]:
    """Remove what sandboxes of processes that no longer run left behind (a referee
    killed with its boxes open): their socket mounts, directories and cgroups. Boxes of
    processes that still run, another referee's, are left alone. Returns what went."""
    root = root or default_root()
    removed = []
    with contextlib.suppress(OSError):
        for entry in root.iterdir():
            if not cgroups.left_behind(entry.name, "sandbox"):
                continue
            if os.path.ismount(entry / "run"):
                subprocess.run(["umount", "--lazy", str(entry / "run")], check=False)
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry.name)
    with contextlib.suppress(cgroups.CgroupUnavailable):
        removed += cgroups.hierarchy().sweep()
    return removed


def log_tail(path: Path, lines: int = 20) -> str:
    """The last lines of a bot's log, as a suffix for a message (empty if unreadable)."""
    try:
        text = path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""
    kept = "\n".join(text.rstrip().splitlines()[-lines:])
    return f"; its output ends:\n{kept}" if kept else "; it wrote nothing"


_LIMIT_SIGNALS = {
    signal.SIGXCPU: "SIGXCPU: its CPU time limit",
    signal.SIGXFSZ: "SIGXFSZ: its file size limit",
    signal.SIGKILL: "SIGKILL",
}


def exit_words(code: int) -> str:
    """An exit status in words: a signal that a limit sends names the limit. ``code`` is
    the process's (negative: killed by that signal) or a shell's (128 + the signal)."""
    signo = -code if code < 0 else code - 128 if code > 128 else 0
    if signo in _LIMIT_SIGNALS:
        return _LIMIT_SIGNALS[signal.Signals(signo)]
    return f"status {code}"


async def _spawn(argv: list[str], fds: tuple[int, ...], info: int) -> asyncio.subprocess.Process:
    """Start bubblewrap. A start cut short once the process exists still ends with it
    killed, sandbox and all: nothing may run on that nobody can stop."""
    spawning = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env={"PATH": "/usr/bin:/bin"},
            start_new_session=True,
            pass_fds=fds,
        )
    )
    try:
        return await asyncio.shield(spawning)
    except asyncio.CancelledError:
        await _to_the_end(_reap(spawning, info))
        raise


async def _reap(spawning: asyncio.Future[asyncio.subprocess.Process], info: int) -> None:
    with contextlib.suppress(Exception):
        process = await spawning
        _kill(process.pid, info, None)
        await process.wait()


async def _undo(workdir: Path, uid: _UidLease | None, info: int, box: cgroups.Box | None) -> None:
    """Undo a start that failed before its sandbox existed."""
    os.close(info)
    if box is not None:
        await box.remove()
    if uid is not None:
        await _run("umount", "--lazy", str(workdir / "run"))
        uid.release()
    shutil.rmtree(workdir, ignore_errors=True)


async def _to_the_end(work: Coroutine[Any, Any, T]) -> T:
    """``work`` run to its end even if this task is cancelled meanwhile, and once more
    after that: a start or a cleanup cut in the middle would leave a mount, a user id or
    a process behind. The cancellation is raised when ``work`` is done."""
    task = asyncio.ensure_future(work)
    cancelled = False
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError
    return task.result()


def _kill(pid: int, info: int, first: int | None) -> int | None:
    """SIGKILL the sandbox whose bubblewrap is ``pid`` (our child, not yet reaped), and
    return its first process, if known.

    That first process is PID 1 of the sandbox's PID namespace: everything in the
    sandbox dies with it. Bubblewrap would kill it when bubblewrap dies, but only once
    it has set that up, which a sandbox killed as it starts has not; so bubblewrap is
    stopped first (it can then neither start that process nor reap it, whose PID is
    therefore still its own) and the first process is killed. Then bubblewrap goes on,
    reaps it and ends by itself, so that no zombie is left to the host's init; only
    one stopped before it named that process is killed with everything it started."""
    try:
        os.kill(pid, signal.SIGSTOP)
        state = os.waitid(os.P_PID, pid, os.WSTOPPED | os.WEXITED | os.WNOWAIT)
    except (ProcessLookupError, ChildProcessError):
        return first  # gone already
    if state is None or state.si_code != os.CLD_STOPPED:
        return first  # it ended, and its first process with it; that PID is not ours now
    first = first or _first_process(info)
    for process in [first] if first is not None else _children_of(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(process, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        if first is not None:
            os.kill(pid, signal.SIGCONT)
        else:
            os.killpg(pid, signal.SIGKILL)
    return first


def _first_process(info: int) -> int | None:
    """The sandbox's first process, as bubblewrap's --info-fd names it, once written."""
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        written = json.loads(os.read(info, 65536))["child-pid"]
        return written if isinstance(written, int) else None
    return None


def _children_of(pid: int) -> list[int]:
    """The children of ``pid``, found the slow way, in every process's stat."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            stat = Path(entry.path, "stat").read_bytes()
            if int(stat.rpartition(b")")[2].split()[1]) == pid:
                found.append(int(entry.name))
    return found


async def _small_tmpfs(directory: Path, uid: int) -> None:
    """Mount a tiny tmpfs of ``uid``'s on ``directory``: the one place the bot may write
    that outlives its own namespace must not be a way to fill the host's disk."""
    options = f"size=256k,nr_inodes=16,mode=0700,uid={uid},gid={uid}"
    await _run("mount", "-t", "tmpfs", "-o", options, "arena-sandbox", str(directory))


async def _run(*argv: str) -> None:
    process = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE
    )
    _, error = await process.communicate()
    if process.returncode and argv[0] == "mount":
        raise SandboxError(f"cannot mount the sandbox's socket directory: {error.decode().strip()}")


async def _keep(stream: asyncio.StreamReader, log: IO[bytes], limit: int) -> None:
    """Copy ``stream`` into ``log`` up to ``limit`` bytes, then read on and drop the rest."""
    kept = 0
    with log:
        while chunk := await stream.read(65536):
            if kept < limit:
                log.write(chunk[: limit - kept])
                kept += len(chunk)
                if kept >= limit:
                    log.write(f"\n[arena: output cut at {limit} bytes]\n".encode())
                log.flush()


JOIN = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'
"""A shell that puts itself in the box's cgroup (every v1 controller's, in turn) and then
becomes the sandbox: joined before it starts, nothing of the bot runs outside the box."""


@dataclass(frozen=True)
class _Plan:
    """What one sandbox's command line is made of."""

    package: Path
    runtime: Runtime
    command: Sequence[str]
    sockets: Path
    limits: Limits
    rules: int
    """A descriptor to read the compiled seccomp filter from."""
    info: int
    """bubblewrap's --info-fd."""


def _argv(plan: _Plan, uid: int | None, box: cgroups.Box | None) -> list[str]:
    limits = plan.limits
    program = plan.runtime.program(plan.command[0])
    inner = [program or f"/bot/{plan.command[0]}", *plan.command[1:]]
    join = ["/bin/sh", "-c", JOIN, "arena-box", *box.procs_files, "--"] if box else []
    nproc = limits.processes if uid is not None else limits.processes + _own_processes()
    prlimit = [
        "prlimit",
        f"--cpu={limits.cpu_s}:{limits.cpu_s + 1}",  # SIGXCPU first, which names the limit
        f"--as={limits.memory_bytes}",
        f"--nofile={limits.open_files}",
        f"--fsize={limits.file_bytes}",
        "--core=0",
        f"--nproc={nproc}",
        "--",
    ]
    setup = [
        bwrap(), "--info-fd", str(plan.info),
        "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
        "--as-pid-1", "--die-with-parent", "--new-session", "--clearenv",
        "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/tmp",
        "--setenv", HOSTED_ADDRESS_ENV, f"unix:{SOCKET}",
        *(a for name, value in plan.runtime.env for a in ("--setenv", name, value)),
    ]  # fmt: skip
    confine = ["--disable-userns", "--seccomp", str(plan.rules)]
    if uid is None:  # one unprivileged bubblewrap does it all, in a user namespace
        view = _view(plan, plan.runtime.system, host=True)
        return [*join, *prlimit, setup[0], "--unshare-user", *confine, *setup[1:], *view, *inner]
    # Root: bubblewrap makes the box as root, with /usr for the two programs that follow
    # and /proc for the second to write its user namespace's maps; the box's own user,
    # without privileges, then runs a second bubblewrap, which makes the user namespace,
    # shows the bot only what its runtime needs of what the first one mounted (no /proc),
    # and installs the filter.
    with_usr = [
        "--ro-bind", "/usr", "/usr", *_links(("/usr/lib", "/usr/lib64", "/usr/bin")),
        "--proc", "/proc",
    ]  # fmt: skip
    own_user = [
        "/usr/bin/setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
        "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--",
        bwrap(), "--unshare-user", *confine, "--die-with-parent",
        *_view(plan, plan.runtime.system, host=False), "--",
    ]  # fmt: skip
    return [*join, *prlimit, *setup, *with_usr, *_view(plan, (), host=True), *own_user, *inner]


def _view(plan: _Plan, system: Sequence[str], *, host: bool) -> list[str]:
    """Bubblewrap's words for the filesystem the bot sees: ``system`` directories, its
    runtime's binds, its package at /bot, its socket directory, /dev and a private /tmp.
    With ``host``, made from the host's files; else bound again from a sandbox that
    already shows them where they go."""
    words = []
    for path in system:
        words += ["--ro-bind", path, path]
    words += _links(system)
    for source, target in plan.runtime.binds:
        words += [*_parents(target), "--ro-bind", source if host else target, target]
    if host:
        for path in plan.runtime.hidden:
            words += ["--tmpfs", path]
        return [
            *words,
            "--ro-bind", str(plan.package), "/bot",
            *_parents("/run/arena"), "--bind", str(plan.sockets), "/run/arena",
            "--dev", "/dev",
            "--size", str(plan.limits.tmp_bytes), "--perms", "1777", "--tmpfs", "/tmp",
            "--remount-ro", "/", "--chdir", "/bot",
        ]  # fmt: skip
    return [
        *words,
        "--ro-bind", "/bot", "/bot",
        *_parents("/run/arena"), "--bind", "/run/arena", "/run/arena",
        "--dev-bind", "/dev", "/dev", "--bind", "/tmp", "/tmp",
        "--remount-ro", "/", "--chdir", "/bot",
    ]  # fmt: skip


def _links(system: Sequence[str]) -> list[str]:
    """The top-level links a dynamically linked program expects (/lib64/ld-linux...)."""
    words = []
    for path in system:
        words += ["--symlink", path.removeprefix("/"), "/" + Path(path).name]
    return words


def _new_box(limits: Limits, unsafe_no_cgroups: bool) -> cgroups.Box | None:
    """The cgroup of a new sandbox; None where there can be none and that was allowed."""
    try:
        found = cgroups.hierarchy()
    except cgroups.CgroupUnavailable as error:
        if unsafe_no_cgroups:
            return None
        raise Uncontained(f"{error}; hosted bots need one (or --unsafe-no-cgroups)") from None
    return found.new_box(limits.box_memory_bytes, limits.processes, limits.cpus)


def _parents(target: str) -> list[str]:
    """``--dir`` for each directory above ``target``: bubblewrap would make them 0700."""
    parts = Path(target).parts[1:-1]
    return [a for i in range(len(parts)) for a in ("--dir", "/" + "/".join(parts[: i + 1]))]


def _own_processes() -> int:
    """How many processes (threads count) this user runs now: without a user id of its
    own, a sandbox's process limit has to leave room for them."""
    me = os.getuid()
    count = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if entry.stat().st_uid == me:
                    count += len(os.listdir(entry / "task"))
    return count


async def _accepts(socket: Path) -> bool:
    """Whether something listens on the Unix socket ``socket`` (connected to, then left)."""
    if not socket.exists():
        return False
    try:
        _, writer = await asyncio.open_unix_connection(str(socket))
    except OSError:  # refused: bound, not listening yet
        return False
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return True
