"""``arena referee serve --processes N``: N referee processes behind one address.

A referee plays all its matches on one asyncio event loop, so on one core. Here N
processes each bind the same port with SO_REUSEPORT and the kernel spreads incoming
connections over them; workers open a connection per match, so matches are spread.

This parent serves nothing itself. It reserves the port first (choosing one for port 0,
so that every child binds the same), starts the children with ``spawn`` (fresh
interpreters: no gRPC state is forked, however much of it this process loaded while
checking flags), says "listening" once all of them serve, serves their summed metrics,
turns SIGTERM or SIGINT into one SIGTERM to each child (which ends its matches and
sandboxes as a single referee does), and exits non-zero if a child exits unasked.

What every child has of its own: its matches and their ``WatchMatch`` feeds, its
``--max-concurrent`` and ``--max-watchers`` limits and its ``--sandbox-pool``. The
replay and hosting directories are shared: both are written atomically, and sandbox
user ids are locked per host.

``WatchMatch`` still reaches the right child on the first call, whichever child the
kernel hands the connection to. Each child also serves its own feeds, and nothing else,
on a private unix socket, ``<index>.sock`` in a directory this parent creates (mode 0700:
only this user may connect; a unix socket is never reachable from another host) and
removes at the end; every child is told all the sockets (``Siblings``). A child asked
for a match it does not play asks its siblings' sockets at once, and mirrors the stream
of the one that has it for all of its own watchers of that match: one private stream per
match and child, however many watch (``arena.referee.siblings``). Match ids are the caller's, known
before a match starts, so no id could name its child; asking the N-1 siblings costs a
round trip on loopback and keeps no shared state that a dead child could leave stale.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import shutil
import signal
import socket
import struct
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from types import FrameType
from typing import Any


@dataclass(frozen=True)
class Siblings:
    """The children's private addresses (unix sockets), and which one is this child's."""

    index: int
    addresses: tuple[str, ...]

    @property
    def own(self) -> str:
        return self.addresses[self.index]

    @property
    def others(self) -> tuple[str, ...]:
        return self.addresses[: self.index] + self.addresses[self.index + 1 :]


ChildMain = Callable[[int, Siblings, Callable[[int], None]], None]
"""A child's work: serve on the port given and privately on ``Siblings.own``, calling
``ready(bound_port)`` once serving. It is pickled into the child, so a module-level
function or a ``functools.partial``."""

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
_PR_SET_PDEATHSIG = 1


class ChildFailed(RuntimeError):
    """A child exited without being asked to."""


def reserve(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` with SO_REUSEPORT, not listening: it holds the
    port (the one the kernel picked, for port 0) until every child has bound it too.

    A port that another process listens on is refused here: with SO_REUSEPORT the
    children would otherwise quietly share it with that process's listener."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    if port:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
    held = socket.socket(family, kind, proto)
    try:
        held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        held.bind(address)
    except OSError:
        held.close()
        raise
    return held


def _metrics_directory() -> tuple[str, bool]:
    """An empty directory for the children's metric files, named in the environment
    they inherit; True if it is a temporary one of ours, to remove at the end. Files
    left by an earlier run would be summed into this run's counters."""
    given = os.environ.get(MULTIPROC_ENV)
    if given:
        shutil.rmtree(given, ignore_errors=True)
        os.makedirs(given)
        return given, False
    directory = tempfile.mkdtemp(prefix="arena-referee-metrics-")
    os.environ[MULTIPROC_ENV] = directory
    return directory, True


SCRAPE_TRIES = 5


def _serve_metrics(host: str, port: int, directory: str) -> None:
    from prometheus_client import CollectorRegistry, start_http_server

    registry = CollectorRegistry()
    registry.register(_Settled(directory))
    start_http_server(port, addr=host, registry=registry)


class _Settled:
    """prometheus-client's multiprocess collector, read again when a process's value
    file is caught at the instant it is created, still empty (``struct.error``): a
    child's first labelled metric creates its file mid-run, and the scrape answered 500."""

    def __init__(self, directory: str) -> None:
        from prometheus_client import multiprocess

        self._inner = multiprocess.MultiProcessCollector(None, path=directory)  # type: ignore[no-untyped-call]

    def collect(self) -> list[Any]:
        for _ in range(SCRAPE_TRIES - 1):
            try:
                return list(self._inner.collect())  # type: ignore[no-untyped-call]
            except struct.error:
                time.sleep(0.01)
        return list(self._inner.collect())  # type: ignore[no-untyped-call]


def _child(main: ChildMain, port: int, siblings: Siblings, parent: int, ready: Connection) -> None:
    """A child's start: leave Ctrl-C to the parent, which sends one SIGTERM (a second
    signal would cut the child's cleanup short), and die with the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError, AttributeError):  # Linux only
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # the parent died before the call
        return

    def serving(bound: int) -> None:
        ready.send(bound)
        ready.close()

    main(port, siblings, serving)


def _exit_words(code: int | None) -> str:
    if code is not None and code < 0:
        return f"signal {signal.Signals(-code).name}"
    return f"code {code}"


class _Children:
    """The children and what the parent knows of them, shared with its signal handler."""

    def __init__(self) -> None:
        self.started: list[multiprocessing.process.BaseProcess] = []
        self.signalled: set[int] = set()
        self.reaped: set[int] = set()
        """Never signalled again: their pids may belong to someone else by now."""
        self.stopping = False

    def stop(self, signum: int = signal.SIGTERM, frame: FrameType | None = None) -> None:
        """One SIGTERM to each child (from a signal handler too: no waiting here)."""
        self.stopping = True
        for child in self.started:
            pid = child.pid
            if pid is not None and pid not in self.signalled and pid not in self.reaped:
                self.signalled.add(pid)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGTERM)

    def reap(self, child: multiprocessing.process.BaseProcess) -> None:
        child.join()
        if child.pid is not None:
            self.reaped.add(child.pid)


def run(
    count: int,
    host: str,
    port: int,
    main: ChildMain,
    announce: Callable[[int, str], None],
    metrics_port: int | None = None,
) -> None:
    """Serve ``host:port`` from ``count`` child processes running ``main`` until SIGTERM
    or SIGINT; ``announce(port, detail)`` once all serve. ChildFailed if one exits
    unasked (the others are stopped first); OSError if the port cannot be had."""
    held = reserve(host, port)
    port = held.getsockname()[1]
    directory, temporary = _metrics_directory() if metrics_port is not None else ("", False)
    context = multiprocessing.get_context("spawn")
    private = tempfile.mkdtemp(prefix="arena-referee-")  # mode 0700
    addresses = tuple(f"unix:{private}/{index}.sock" for index in range(count))
    children = _Children()
    previous = {s: signal.signal(s, children.stop) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        with held:
            if metrics_port is not None:
                _serve_metrics(host, metrics_port, directory)
            readers: dict[Connection, int] = {}
            for index in range(count):
                if children.stopping:
                    break
                reader, writer = context.Pipe(duplex=False)
                child = context.Process(
                    target=_child,
                    args=(main, port, Siblings(index, addresses), os.getpid(), writer),
                    name=f"{index + 1} of {count}",
                )
                child.start()
                writer.close()
                children.started.append(child)
                readers[reader] = index
            _supervise(children, readers, port, held, announce, directory)
    finally:
        children.stop()  # none left after _supervise; all of them after an error in it
        for started in children.started:
            children.reap(started)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if temporary:
            shutil.rmtree(directory, ignore_errors=True)
        shutil.rmtree(private, ignore_errors=True)


def _supervise(
    children: _Children,
    readers: dict[Connection, int],
    port: int,
    held: socket.socket,
    announce: Callable[[int, str], None],
    metrics_directory: str,
) -> None:
    """Wait for the children: announce once all serve, and stop them all when one
    exits unasked (then ChildFailed)."""
    live = {child.sentinel: child for child in children.started}
    serving = 0
    failure = ""
    while live:
        for ready in wait([*readers, *live]):
            if isinstance(ready, Connection):
                index = readers.pop(ready)
                try:
                    bound = ready.recv()
                except EOFError:  # it died first: its sentinel says so
                    continue
                finally:
                    ready.close()
                if bound != port:
                    raise ChildFailed(f"referee process {index + 1} bound {bound}, not {port}")
                serving += 1
                if serving == len(children.started) and not children.stopping:
                    held.close()  # every child has the port now
                    pids = ",".join(str(child.pid) for child in children.started)
                    announce(port, f" ({len(children.started)} processes, pids {pids})")
                continue
            assert isinstance(ready, int)
            child = live.pop(ready)
            children.reap(child)
            if metrics_directory and child.pid is not None:
                _forget_metrics(child.pid, metrics_directory)
            what = (
                f"referee process {child.name} (pid {child.pid}) exited with "
                f"{_exit_words(child.exitcode)}"
            )
            if not children.stopping:
                failure = f"{what}; the others were stopped"
                children.stop()
            elif child.exitcode not in (0, -signal.SIGTERM) and not failure:
                failure = f"{what} while stopping"  # SIGTERM before its handler is fine
    if failure:
        raise ChildFailed(failure)


def _forget_metrics(pid: int, directory: str) -> None:
    """Drop a dead child's live gauges (``matches_running``) from the sum."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(pid, directory)  # type: ignore[no-untyped-call]
