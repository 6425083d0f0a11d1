"""Start the suite's ``python -m ...`` processes by forking a warm interpreter.

A test starts about a thousand processes of the arena's own code (referees, APIs,
workers, bots, CLI runs), and each new interpreter spent most of its start importing
the same libraries: gRPC, protobuf, Redis, Celery, numpy. The fork server imports them
once; each process is then a fork of it that runs its module as ``python -m`` would,
with the caller's arguments, environment, directory, session and standard streams.
It is still a separate process of its own, with its own pid, killed and waited for as
any other. ``subprocess.Popen`` in a test worker sends it the commands it can run
(``[sys.executable, "-m", module, ...]`` with nothing asked of the new interpreter
that a fork could not honour) and starts the rest as ever. ``ARENA_TEST_FORKSERVER=0``
turns it off.

The exit status comes back through a pipe: the server, the forked process's parent,
reaps it and writes the status there, where ``Popen.wait`` and ``poll`` read it.
"""

from __future__ import annotations

import array
import contextlib
import importlib
import io
import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import traceback
from pathlib import Path
from typing import Any

PRELOAD = (
    "asyncio",
    "grpc",
    "grpc.aio",
    "grpc_health.v1.health",
    "grpc_reflection.v1alpha.reflection",
    "google.protobuf.json_format",
    "redis",
    "redis.asyncio",
    "click",
    "kombu",
    "celery.app.base",
    "celery.bin.celery",
    "numpy",
    "arena.v1.arena_pb2_grpc",
    "arena.v1.referee_pb2_grpc",
    "arena.v1.bot_pb2_grpc",
    "arena.store.tournaments",
    "arena.games.registry",
)
"""Imported once by the server (and the games' rules, through the registry): modules that
read nothing of the environment at import. ``prometheus_client`` does (its multiprocess
directory), so nothing here imports it; ``arena`` itself sets a default for gRPC's log
level, so each process imports it again."""

ENV = "ARENA_TEST_FORKSERVER"
"""``0`` turns the fork server off; otherwise the server's socket once it runs."""
_SAME_ENV = ("PYTHONUNBUFFERED", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE", ENV)
"""``PYTHON*`` variables a forked process honours itself; any other must match the
server's (it shaped the interpreter before anything ran) or the process is exec'd."""
_STATUS = struct.Struct("i")


# The server ---------------------------------------------------------------------------


def serve(path: str) -> None:
    """Listen on ``path``; fork a process for each request, report each one's end."""
    for name in PRELOAD:
        __import__(name)
    sys.modules["arena.games.registry"].game_names()
    assert "prometheus_client" not in sys.modules, "it would keep the server's environment"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    wake, woken = os.pipe()
    for fd in (wake, woken):
        os.set_blocking(fd, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(woken)  # a child's end wakes the select below
    print("ready", flush=True)
    statuses: dict[int, int] = {}
    parent = os.getppid()
    while os.getppid() == parent:  # the test worker that started it is still there
        ready, _, _ = select.select([listener.fileno(), wake], [], [], 1.0)
        if wake in ready:
            with contextlib.suppress(BlockingIOError):
                os.read(wake, 4096)
        if listener.fileno() in ready:
            connection, _ = listener.accept()
            with connection:
                try:
                    _spawn(connection, statuses)
                except (OSError, ValueError):  # that caller's trouble; serve the next
                    traceback.print_exc()
        _reap(statuses)


def _spawn(connection: socket.socket, statuses: dict[int, int]) -> None:
    message, fds = _receive(connection)
    request = json.loads(message)
    if len(fds) != 4:
        for fd in fds:
            os.close(fd)
        raise ValueError(f"a request came with {len(fds)} descriptors, not 4")
    stdin, stdout, stderr, status = fds
    pid = os.fork()
    if pid == 0:  # the new process: it never goes back to serving
        code = 70
        try:
            signal.set_wakeup_fd(-1)
            code = _become(request, stdin, stdout, stderr)
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code)
    for fd in (stdin, stdout, stderr):
        os.close(fd)
    statuses[pid] = status
    connection.sendall(_STATUS.pack(pid))


def _reap(statuses: dict[int, int]) -> None:
    while statuses:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        fd = statuses.pop(pid, None)
        if fd is not None:
            with contextlib.suppress(OSError):
                os.write(fd, _STATUS.pack(status))
            os.close(fd)


def _receive(connection: socket.socket) -> tuple[bytes, list[int]]:
    size = _STATUS.unpack(_exactly(connection, _STATUS.size))[0]
    fds = array.array("i")
    message, ancillary, _, _ = connection.recvmsg(size, socket.CMSG_SPACE(4 * fds.itemsize))
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - len(data) % fds.itemsize])
    while len(message) < size:
        message += _exactly(connection, size - len(message))
    return message, list(fds)


def _exactly(connection: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        part = connection.recv(size - len(data))
        if not part:
            raise ConnectionError("the fork server's caller went away")
        data += part
    return data


# The forked process -------------------------------------------------------------------


def _become(request: dict[str, Any], stdin: int, stdout: int, stderr: int) -> int:
    """Turn this fork into ``python -m module args...``: its exit code."""
    if request["new_session"]:
        os.setsid()
    for fd, target in ((stdin, 0), (stdout, 1), (stderr, 2)):
        os.dup2(fd, target)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    extra = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    sys.path[:1] = [os.getcwd(), *extra]
    importlib.reload(sys.modules["arena"])  # its import-time defaults, in this environment
    _standard_streams()
    return _run(request["module"], request["args"])


def _standard_streams() -> None:
    """New ``sys.std*`` on the new descriptors, buffered as a fresh interpreter's."""
    unbuffered = bool(os.environ.get("PYTHONUNBUFFERED"))
    sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "rb", closefd=False)))
    for fd, name in ((1, "stdout"), (2, "stderr")):
        raw = io.FileIO(fd, "wb", closefd=False)
        stream = io.TextIOWrapper(
            raw if unbuffered else io.BufferedWriter(raw),
            encoding="utf-8",
            errors="backslashreplace" if name == "stderr" else "strict",
            line_buffering=name == "stderr" or os.isatty(fd),
            write_through=unbuffered,
        )
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def _run(module: str, args: list[str]) -> int:
    import atexit
    import runpy

    sys.argv = [module, *args]
    code = 0
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as stop:
        code = _exit_code(stop.code)
    except KeyboardInterrupt:
        sys.excepthook(*sys.exc_info())
        code = -signal.SIGINT
    except BaseException:
        sys.excepthook(*sys.exc_info())
        code = 1
    with contextlib.suppress(BaseException):
        threading._shutdown()  # type: ignore[attr-defined]  # as the interpreter does
    with contextlib.suppress(BaseException):
        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()
    if code == -signal.SIGINT:  # as a fresh interpreter ends on an unhandled Ctrl-C
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    return code


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


# The caller's side --------------------------------------------------------------------


def start() -> subprocess.Popen[bytes] | None:
    """Start this worker's fork server and send it what it can run; None when off."""
    if os.environ.get(ENV) == "0":
        return None
    path = tempfile.mktemp(prefix="arena-fork-", suffix=".sock", dir="/tmp")
    server = _ORIGINAL_POPEN(
        [sys.executable, "-m", __name__, path],
        stdout=subprocess.PIPE,
        env={k: v for k, v in os.environ.items() if k != ENV},
    )
    assert server.stdout is not None
    if server.stdout.readline().strip() != b"ready":
        server.kill()
        raise RuntimeError("the fork server did not start")
    os.environ[ENV] = path
    subprocess.Popen = ForkedPopen  # type: ignore[misc]
    return server


def stop(server: subprocess.Popen[bytes]) -> None:
    subprocess.Popen = _ORIGINAL_POPEN  # type: ignore[misc]
    path = os.environ.pop(ENV, "")
    server.kill()
    server.wait()
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


_ORIGINAL_POPEN = subprocess.Popen
_Popen: Any = subprocess.Popen  # its private methods, overridden below, are not typed


def forkable(args: object, kwargs: dict[str, Any]) -> tuple[str, list[str]] | None:
    """The module and its arguments if the server can run this command, else None."""
    if not isinstance(args, (list, tuple)) or len(args) < 3:
        return None
    words = [str(a) for a in args]
    if words[0] != sys.executable or words[1] != "-m" or not words[2][:1].isalpha():
        return None
    if kwargs.get("shell") or kwargs.get("preexec_fn") or kwargs.get("pass_fds"):
        return None
    if kwargs.get("close_fds") is False:
        return None
    if any(kwargs.get(k) is not None for k in ("executable", "user", "group", "extra_groups")):
        return None
    if kwargs.get("process_group") not in (None, -1) or kwargs.get("umask", -1) != -1:
        return None
    env = kwargs.get("env")
    if env is not None and any(
        key.startswith("PYTHON") and key not in _SAME_ENV and env[key] != os.environ.get(key)
        for key in env
    ):
        return None
    if "asyncio" in sys._getframe(2).f_globals.get("__name__", ""):
        return None  # asyncio waits for its children with waitpid: they must be its own
    return words[2], words[3:]


class ForkedPopen(_Popen):  # type: ignore[misc]
    """``subprocess.Popen``, whose ``python -m`` commands the fork server starts."""

    _status: int | None = None

    def __init__(self, args: Any, *rest: Any, **kwargs: Any) -> None:
        self._forked = forkable(args, kwargs) if not rest else None
        super().__init__(args, *rest, **kwargs)

    def _execute_child(
        self,
        args: Any,
        executable: Any,
        preexec_fn: Any,
        close_fds: bool,
        pass_fds: Any,
        cwd: Any,
        env: Any,
        startupinfo: Any,
        creationflags: int,
        shell: bool,
        p2cread: int,
        p2cwrite: int,
        c2pread: int,
        c2pwrite: int,
        errread: int,
        errwrite: int,
        *rest: Any,
    ) -> None:
        everything = (
            args, executable, preexec_fn, close_fds, pass_fds, cwd, env, startupinfo,
            creationflags, shell, p2cread, p2cwrite, c2pread, c2pwrite, errread, errwrite,
            *rest,
        )  # fmt: skip
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            if self._forked is not None:
                connection.connect(os.environ[ENV])
        except (OSError, KeyError):  # the server is gone: start it the usual way
            self._forked = None
        if self._forked is None:
            connection.close()
            super()._execute_child(*everything)
            return
        start_new_session = rest[-2]
        module, arguments = self._forked
        request = {
            "module": module,
            "args": arguments,
            "cwd": os.fspath(cwd) if cwd is not None else os.getcwd(),
            "env": dict(env if env is not None else os.environ),
            "new_session": bool(start_new_session),
        }
        status_read, status_write = os.pipe()
        pipes = ((p2cread, 0), (c2pwrite, 1), (errwrite, 2))
        stdio = [fd if fd != -1 else inherited for fd, inherited in pipes]
        try:
            with connection:
                message = json.dumps(request).encode()
                connection.sendall(_STATUS.pack(len(message)))
                fds = array.array("i", [*stdio, status_write])
                connection.sendmsg(
                    [message], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds.tobytes())]
                )
                self.pid = _STATUS.unpack(_exactly(connection, _STATUS.size))[0]
        except BaseException:
            os.close(status_read)
            raise
        finally:
            os.close(status_write)
            self._close_pipe_fds(p2cread, p2cwrite, c2pread, c2pwrite, errread, errwrite)
        self._status = status_read
        self._child_created = True

    def _try_wait(self, wait_flags: int) -> tuple[int, int]:
        if self._status is None:
            pid, status = super()._try_wait(wait_flags)
            return int(pid), int(status)
        if wait_flags & os.WNOHANG and not select.select([self._status], [], [], 0)[0]:
            return 0, 0
        data = b""
        while len(data) < _STATUS.size:
            try:
                part = os.read(self._status, _STATUS.size - len(data))
            except InterruptedError:
                continue
            if not part:  # the server went first: it cannot say how
                return self.pid, 255 << 8
            data += part
        os.close(self._status)
        self._status = None
        return self.pid, _STATUS.unpack(data)[0]

    returncode: int | None

    def _internal_poll(self, _deadstate: int | None = None, **_: Any) -> int | None:
        if getattr(self, "_status", None) is None:
            code: int | None = super()._internal_poll(_deadstate)
            return code
        if self.returncode is None and self._waitpid_lock.acquire(False):
            try:
                if self.returncode is None:
                    pid, status = self._try_wait(os.WNOHANG)
                    if pid == self.pid:
                        self._handle_exitstatus(status)
            except OSError:
                if _deadstate is not None:
                    self.returncode = _deadstate
            finally:
                self._waitpid_lock.release()
        return self.returncode


if __name__ == "__main__":
    try:
        serve(sys.argv[1])
    finally:
        with contextlib.suppress(FileNotFoundError):
            Path(sys.argv[1]).unlink()
