"""Sandboxes started ahead of the matches that will take them.

Starting a Python bot takes about half a second, and a four-seat match waits for its
slowest seat. So the pool keeps, per hosted bot (package, runtime and command), a few
started sandboxes that have never served anything: a match takes them as they are, so
every seat of every match is still a fresh process, and the pool starts new ones in the
background once the match has its seats. Bots no match has asked for in ``idle_s`` are
dropped; ``max_total`` bounds the idle processes of all bots together (each holds tens
of MB), making room for a bot in demand by ending those of the one asked for least
recently.

A sandbox is started before its match is known, so its log starts in the pool's own
directory and moves to the seat's path when a match takes it (a rename: the sandbox
keeps writing to the same file).

What starts a bot is the pool's ``Launcher``: ``Bubblewrap`` (a local sandbox, the
default) or ``arena.hosting.kubernetes.PodLauncher`` (a pod per seat, started when its
match asks: no pool). Either gives a ``Launched``, all the referee uses of a started bot.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from arena.hosting import cgroups
from arena.hosting.runtimes import Runtime, RuntimeUnavailable, runtime
from arena.hosting.sandbox import Limits, Sandbox, SandboxError

MAX_TOTAL = 16
IDLE_S = 600.0

log = logging.getLogger(__name__)


class Launched(Protocol):
    """What the referee uses of a started bot, whichever launcher started it
    (``arena.hosting.sandbox.Sandbox`` or ``arena.hosting.kubernetes.HostedPod``)."""

    address: str
    log_path: Path

    def running(self) -> bool:
        """Whether the bot may still run, as last known (no waiting, no request)."""
        ...

    def kill(self) -> None: ...

    def freeze(self) -> None:
        """Stop the bot where it stands, until ``thaw`` (as far as the launcher can)."""
        ...

    def thaw(self) -> None: ...

    async def stop(self) -> None:
        """End the bot and wait until all it wrote is at ``log_path``."""
        ...

    async def close(self) -> None: ...

    def describe_exit(self) -> str: ...

    def tail(self, lines: int = 20) -> str: ...


class Launcher(Protocol):
    """Starts hosted bots: checks a runtime by name, and starts one seat's bot."""

    def runtime(self, name: str, /) -> Runtime:
        """The runtime called ``name`` (RuntimeUnavailable if this launcher lacks it)."""
        ...

    async def start(
        self,
        package: Path,
        runtime: Runtime,
        argv: Sequence[str],
        log_path: Path,
        limits: Limits,
        /,
        *,
        match_id: str = "",
        seat: int | str = "",
    ) -> Launched: ...


@dataclass(frozen=True)
class Bubblewrap:
    """The local launcher: a bubblewrap sandbox per bot, runtimes of this host.

    It offers no runtime at all where it cannot give each sandbox a cgroup, unless the
    operator said ``unsafe_no_cgroups``: a referee that cannot bound a box's memory and
    processes as a whole is one hosted bot away from losing its host."""

    unsafe_no_cgroups: bool = False

    def runtime(self, name: str, /) -> Runtime:
        if not self.unsafe_no_cgroups and (missing := cgroups.why_not()):
            raise RuntimeUnavailable(f"{name}: {uncontained(missing)}")
        return runtime(name)

    async def start(
        self,
        package: Path,
        runtime: Runtime,
        argv: Sequence[str],
        log_path: Path,
        limits: Limits,
        /,
        *,
        match_id: str = "",
        seat: int | str = "",
    ) -> Sandbox:
        return await Sandbox.start(
            package, runtime, argv, log_path, limits, unsafe_no_cgroups=self.unsafe_no_cgroups
        )


BUBBLEWRAP = Bubblewrap()


def uncontained(error: cgroups.CgroupUnavailable) -> str:
    """Why this host runs no hosted bot, and what the operator can do about it."""
    return (
        f"this host cannot give each sandbox a cgroup ({error}): run the referee as root "
        "on a host with cgroup v2, or v1 memory, pids, cpu and freezer; on a laptop, "
        "--unsafe-no-cgroups runs them without"
    )


@dataclass(frozen=True)
class Launch:
    """What starts one hosted bot: also the key of its sandboxes in the pool."""

    sha256: str
    runtime: Runtime
    argv: tuple[str, ...]
    package: Path

    async def start(
        self,
        log_path: Path,
        limits: Limits,
        launcher: Launcher = BUBBLEWRAP,
        *,
        match_id: str = "",
        seat: int | str = "",
    ) -> Launched:
        return await launcher.start(
            self.package, self.runtime, self.argv, log_path, limits, match_id=match_id, seat=seat
        )


class SandboxPool:
    """Never-used started sandboxes, ``per_key`` per hosted bot (0: none, every sandbox
    starts when its match asks for it)."""

    def __init__(
        self,
        per_key: int,
        directory: Path,
        limits: Limits,
        *,
        max_total: int = MAX_TOTAL,
        idle_s: float = IDLE_S,
        launcher: Launcher = BUBBLEWRAP,
    ) -> None:
        self.per_key = per_key
        self.launcher = launcher
        self.directory = directory
        self.limits = limits
        self.max_total = max_total
        self.idle_s = idle_s
        self._ready: dict[Launch, list[Launched]] = {}
        self._starting: dict[Launch, int] = {}
        self._asked: dict[Launch, float] = {}
        """When a match last asked for each bot (the event loop's clock)."""
        self._failing: set[Launch] = set()
        """Bots whose last start in the background failed: not started again until a
        match starts one itself, so a broken bot does not burn CPU in a loop."""
        self._fills: set[asyncio.Task[None]] = set()
        self._closing: set[asyncio.Task[None]] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self._closed = False

    async def take(
        self, launch: Launch, log_path: Path, *, match_id: str = "", seat: int | str = ""
    ) -> Launched:
        """A started sandbox of ``launch`` that has served nothing, logging to
        ``log_path``: a pooled one if there is one, else one started now for that seat
        of that match (SandboxError if it does not start)."""
        box = self._pop(launch)
        if box is not None:
            try:
                log_path.parent.mkdir(parents=True, exist_ok=True)
                os.replace(box.log_path, log_path)
            except OSError:
                self.dispose(box)
                raise
            box.log_path = log_path
            return box
        box = await launch.start(log_path, self.limits, self.launcher, match_id=match_id, seat=seat)
        self._failing.discard(launch)
        return box

    def replenish(self, launch: Launch) -> None:
        """Start, in the background, what ``launch`` lacks of ``per_key`` ready sandboxes."""
        if self.per_key <= 0 or self._closed or launch in self._failing:
            return
        self._asked[launch] = asyncio.get_running_loop().time()
        self._sweep()
        missing = self.per_key - len(self._ready.get(launch, ())) - self._starting.get(launch, 0)
        for _ in range(missing):
            if self._count() >= self.max_total and not self._evict_for(launch):
                break
            self._starting[launch] = self._starting.get(launch, 0) + 1
            self._spawn(self._fills, self._fill(launch))
        if self._sweeper is None:
            self._sweeper = asyncio.create_task(self._sweep_while_idle())

    def dispose(self, box: Launched) -> None:
        """End a sandbox that served its match, in the background (``close`` waits)."""
        box.kill()
        self._spawn(self._closing, self._discard(box))

    def idle(self, launch: Launch | None = None) -> int:
        """How many started sandboxes wait for a match: of ``launch``, or of every bot."""
        if launch is not None:
            return len(self._ready.get(launch, ()))
        return sum(map(len, self._ready.values()))

    async def close(self) -> None:
        """End every sandbox of the pool, and those being started."""
        self._closed = True
        if self._sweeper is not None:
            self._sweeper.cancel()
        for task in self._fills:
            task.cancel()
        await asyncio.gather(*self._fills, return_exceptions=True)
        boxes = [box for ready in self._ready.values() for box in ready]
        self._ready.clear()
        await asyncio.gather(*(self._discard(box) for box in boxes), return_exceptions=True)
        while pending := [task for task in self._closing if not task.done()]:
            await asyncio.gather(*pending, return_exceptions=True)  # matches hand theirs in

    def _pop(self, launch: Launch) -> Launched | None:
        ready = self._ready.get(launch, [])
        while ready:
            box = ready.pop(0)
            if box.running():
                return box
            self._spawn(self._closing, self._discard(box))  # it died waiting
        return None

    async def _fill(self, launch: Launch) -> None:
        log_path = self.directory / f"{secrets.token_hex(8)}.log"
        try:
            box = await launch.start(log_path, self.limits, self.launcher)
        except (SandboxError, OSError) as error:
            log.warning("hosted bot %s failed to start in the pool: %s", launch.sha256, error)
            self._failing.add(launch)
            log_path.unlink(missing_ok=True)
            return
        finally:
            self._starting[launch] -= 1
            if not self._starting[launch]:
                del self._starting[launch]
        if self._closed or launch not in self._asked:
            await self._discard(box)
        else:
            self._ready.setdefault(launch, []).append(box)

    def _count(self) -> int:
        return sum(map(len, self._ready.values())) + sum(self._starting.values())

    def _evict_for(self, launch: Launch) -> bool:
        """End one ready sandbox of the bot asked for least recently, unless that is
        ``launch``; whether one was ended."""
        others = [k for k, ready in self._ready.items() if ready and k != launch]
        if not others:
            return False
        victim = min(others, key=lambda k: self._asked.get(k, 0.0))
        self._spawn(self._closing, self._discard(self._ready[victim].pop()))
        return True

    def _sweep(self) -> None:
        """Drop the bots no match asked for in ``idle_s``."""
        now = asyncio.get_running_loop().time()
        for launch in [k for k, at in self._asked.items() if now - at > self.idle_s]:
            del self._asked[launch]
            self._failing.discard(launch)
            for box in self._ready.pop(launch, []):
                self._spawn(self._closing, self._discard(box))

    async def _sweep_while_idle(self) -> None:
        try:
            while self._asked:
                await asyncio.sleep(self.idle_s / 2)
                self._sweep()
        finally:
            self._sweeper = None

    async def _discard(self, box: Launched) -> None:
        await box.close()
        with contextlib.suppress(OSError):
            box.log_path.unlink()

    def _spawn(self, tasks: set[asyncio.Task[None]], work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        tasks.add(task)
        task.add_done_callback(tasks.discard)
