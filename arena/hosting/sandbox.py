"""One hosted bot process in a bubblewrap sandbox: no network, no memory across matches.

Each sandbox is fresh: new mount, PID, network, IPC and UTS namespaces; a read-only view
of its runtime (``arena.hosting.runtimes``), ``/usr`` and the bot's files at ``/bot``; a
private tmpfs at ``/tmp`` that goes with it; and one writable directory, ``/run/arena``,
where the bot listens on a Unix socket (``$ARENA_BOT_ADDRESS``), the only way in or out
(a tmpfs of 256 KiB and 16 files when the arena runs as root).
The loopback interface of its own network namespace reaches nothing.

Limits are kernel resource limits, set before the bot starts: CPU seconds, address
space, open files, the largest file it may write and the processes its user may run.
Run as root, the arena gives every sandbox a user id of its own from ``UIDS`` (locked
across processes), so the process limit is the sandbox's alone and sandboxes cannot
signal each other; otherwise sandboxes run as the arena's user, and the process limit
counts that user's other processes too.

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
import tempfile
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypeVar

from arena.bots.sdk import HOSTED_ADDRESS_ENV
from arena.hosting.runtimes import SYSTEM, Runtime

SOCKET = "/run/arena/bot.sock"
DRAIN_S = 2.0
"""How long a killed sandbox's output may take to end: only a process that outlived its
sandbox could hold it open longer, and nothing waits on it for ever."""
UIDS = range(61000, 62000)
"""User ids for sandboxes; no account on the host should use them."""
MiB = 1 << 20
T = TypeVar("T")


class SandboxError(RuntimeError):
    """A sandbox that could not start or serve; the message ends with the bot's output.

    ``reason`` is the message without that output: what the arena can say about the
    sandbox to anyone, where the bot's own words go to its author only."""

    def __init__(self, reason: str, tail: str = "") -> None:
        super().__init__(reason + tail)
        self.reason = reason


@dataclass(frozen=True)
class Limits:
    """What one sandboxed bot may use. Each process limit applies to every process of
    the sandbox; ``processes`` counts them all."""

    cpu_s: int = 300
    memory_bytes: int = 2048 * MiB
    """Address space per process (RLIMIT_AS): Node.js reserves about 1 GiB up front."""
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


class _UidLease:
    """A sandbox user id, held through a lock file so that no two sandboxes on this host
    share one, whichever process started them."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        for uid in UIDS:
            handle = open(directory / f"{uid}.lock", "w")  # noqa: SIM115 - held until release
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                continue
            self.uid, self._handle = uid, handle
            return
        raise SandboxError(f"all {len(UIDS)} sandbox user ids are in use on this host")

    def release(self) -> None:
        self._handle.close()


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
    _first: int | None = None

    @classmethod
    async def start(
        cls,
        package: Path,
        runtime: Runtime,
        command: Sequence[str],
        log_path: Path,
        limits: Limits | None = None,
        root: Path | None = None,
    ) -> Sandbox:
        """Start ``command`` (a word of ``runtime.programs`` or a file of ``package``,
        then its arguments) and wait until it listens; SandboxError if it does not."""
        limits = limits or Limits()
        root = root or Path(tempfile.gettempdir()) / "arena-sandboxes"
        uid = _UidLease(root / "uids") if os.geteuid() == 0 else None
        workdir = Path(tempfile.mkdtemp(prefix="sandbox-", dir=root))
        info, info_w = os.pipe()
        os.set_blocking(info, False)
        try:
            sockets = workdir / "run"
            sockets.mkdir()
            if uid is not None:  # a mount cut short would finish after the undoing
                await _to_the_end(_small_tmpfs(sockets, uid.uid))
            argv = _argv(package, runtime, command, sockets, limits, uid.uid if uid else None)
            at = argv.index(bwrap()) + 1
            argv[at:at] = ["--info-fd", str(info_w)]  # names the sandbox's first process
            log_path.parent.mkdir(parents=True, exist_ok=True)
            process = await _spawn(argv, info_w, info)
        except BaseException:
            await _to_the_end(_undo(workdir, uid, info))
            raise
        finally:
            os.close(info_w)
        assert process.stdout is not None
        drain = asyncio.create_task(_keep(process.stdout, log_path.open("wb"), limits.log_bytes))
        address = f"unix:{sockets / 'bot.sock'}"
        sandbox = cls(process, address, workdir, log_path, drain, uid, info)
        try:
            await sandbox._listening(sockets / "bot.sock", limits.start_s)
        except BaseException:
            await _to_the_end(sandbox.close())
            raise
        return sandbox

    async def _listening(self, socket: Path, timeout_s: float) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while not socket.exists():
            if self.process.returncode is not None:
                await self._drain
                raise SandboxError(f"the bot exited with {self.describe_exit()}", self.tail())
            if loop.time() > deadline:
                raise SandboxError(f"the bot did not listen within {timeout_s:g} s", self.tail())
            await asyncio.sleep(0.02)

    def describe_exit(self) -> str:
        """How the process ended, in words (a resource limit names itself)."""
        code = self.process.returncode
        return "nothing yet: it runs" if code is None else exit_words(code)

    def tail(self, lines: int = 20) -> str:
        """The last lines the bot wrote, as a suffix for a message (empty if none)."""
        return log_tail(self.log_path, lines)

    def running(self) -> bool:
        """Whether its process has not ended yet."""
        return self.process.returncode is None

    def kill(self) -> None:
        """Kill the sandbox now, and with it every process in it; ``stop`` waits for that."""
        if self.process.returncode is None:
            self._first = _kill(self.process.pid, self._info, self._first)

    async def stop(self) -> None:
        """Kill every process of the sandbox and wait until all they wrote is in the log."""
        self.kill()
        await self.process.wait()
        done, _ = await asyncio.wait({self._drain}, timeout=DRAIN_S)
        if not done:  # a process outlived its sandbox; the log is whole enough
            self._drain.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._drain

    async def close(self) -> None:
        """Kill every process of the sandbox and remove its files."""
        await self.stop()
        if self._uid is not None:
            await _run("umount", "--lazy", str(self.workdir / "run"))
        shutil.rmtree(self.workdir, ignore_errors=True)
        if self._uid is not None:
            self._uid.release()
            self._uid = None
        if self._info >= 0:
            os.close(self._info)
            self._info = -1


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


async def _spawn(argv: list[str], info_w: int, info: int) -> asyncio.subprocess.Process:
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
            pass_fds=(info_w,),
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


async def _undo(workdir: Path, uid: _UidLease | None, info: int) -> None:
    """Undo a start that failed before its sandbox existed."""
    os.close(info)
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
    therefore still its own), the first process is killed, then bubblewrap."""
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


def _argv(
    package: Path,
    runtime: Runtime,
    command: Sequence[str],
    sockets: Path,
    limits: Limits,
    uid: int | None,
) -> list[str]:
    program = runtime.program(command[0])
    inner = [program or f"/bot/{command[0]}", *command[1:]]
    prlimit = [
        "prlimit",
        f"--cpu={limits.cpu_s}:{limits.cpu_s + 1}",  # SIGXCPU first, which names the limit
        f"--as={limits.memory_bytes}",
        f"--nofile={limits.open_files}",
        f"--fsize={limits.file_bytes}",
        "--core=0",
        f"--nproc={limits.processes if uid is not None else limits.processes + _own_processes()}",
        "--",
    ]
    sandbox = [
        bwrap(),
        "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
        *(["--unshare-user"] if uid is None else []),
        "--die-with-parent", "--new-session", "--clearenv",
        "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/tmp",
        "--setenv", HOSTED_ADDRESS_ENV, f"unix:{SOCKET}",
        *(a for name, value in runtime.env for a in ("--setenv", name, value)),
        "--ro-bind", SYSTEM, SYSTEM,
        "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
        "--symlink", "usr/bin", "/bin",
    ]  # fmt: skip
    for source, target in runtime.binds:
        sandbox += [*_parents(target), "--ro-bind", source, target]
    sandbox += [
        "--ro-bind", str(package), "/bot",
        *_parents("/run/arena"), "--bind", str(sockets), "/run/arena",
        "--proc", "/proc", "--dev", "/dev",
        "--size", str(limits.tmp_bytes), "--perms", "1777", "--tmpfs", "/tmp",
        "--chdir", "/bot",
    ]  # fmt: skip
    if uid is not None:  # root: do the mounts, then become the sandbox's own user
        sandbox += [
            "/usr/bin/setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
            "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--",
        ]  # fmt: skip
    return [*prlimit, *sandbox, *inner]


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
