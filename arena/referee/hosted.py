"""The referee's side of hosted bots: packages in, sandboxes up, logs out.

A PlayMatch request may name bots by package instead of address
(``PlayMatchRequest.hosted``). Before the match, ``Hosting.prepare`` makes sure the
referee holds each package (unpacking the bytes the caller sent, or finding them from
an earlier match) and that its runtime and command can run here; ``HostedSeats`` then
gives every seat of a hosted bot a sandbox of its own (``arena.hosting.sandbox``) for
the one match, ends them all when the match ends however it ends, and hands the caller
what each process wrote.

A sandbox listens on a Unix socket under this referee's temporary directory: it is
dialled without TLS whatever the referee uses for remote bots, never kept for another
match, and never named to anyone (faults and events name the bot as for any other).
With the Kubernetes launcher (``arena.hosting.kubernetes.PodLauncher``) each seat's bot
is a pod instead, dialled at its IP in the same way; the referee uses only what both
give (``arena.hosting.pool.Launched``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.hosting.elf import check_program
from arena.hosting.package import InvalidPackage, command_argv
from arena.hosting.pool import (
    BUBBLEWRAP,
    MAX_TOTAL,
    Bubblewrap,
    Launch,
    Launched,
    Launcher,
    SandboxPool,
)
from arena.hosting.private import private_directory, state_root
from arena.hosting.referee_calls import missing_package
from arena.hosting.runtimes import NAMES, Runtime, RuntimeUnavailable
from arena.hosting.sandbox import Limits, SandboxError, sweep
from arena.hosting.store import PackageStore
from arena.referee.bot_client import BotConnection, BotFault
from arena.v1 import bot_pb2, referee_pb2

KILLED = "killed at the end of the match"
DEFAULT_DIRECTORY = state_root() / "hosting"
CHECK_HELLO_S = 5.0
"""How long a bot that CheckBot started has to answer Hello once it listens."""
CHECKS_AT_ONCE = 4
"""CheckBot calls starting a bot at once; more wait their turn."""
NOT_STARTED = "the bot did not start: "
"""How CheckBot's answer for a bot that did not start begins (SubmitBot's words too)."""

log = logging.getLogger(__name__)


class Refused(ValueError):
    """A hosted bot that cannot run as given (INVALID_ARGUMENT); the message says why."""


class Unavailable(RuntimeError):
    """What this referee lacks for a hosted bot (FAILED_PRECONDITION): a runtime, or
    the package, which the caller then sends."""


class NotStarted(Exception):
    """A bot started to be checked did not start or did not answer Hello; the message
    says how, and ends with what the bot wrote."""


async def greet(box: Launched, timeout_s: float) -> bot_pb2.HelloResponse:
    """Ask a just-started bot's Hello, then stop it; NotStarted, with the bot's own last
    words, if it does not answer."""
    fault: BotFault | None = None
    connection = BotConnection.open(box.address)
    try:
        hello = await connection.say_hello(timeout_s)
    except BotFault as raised:
        fault = raised
    finally:
        await connection.close()
    await box.stop()  # its output is whole once it has been stopped
    if fault is not None:
        raise NotStarted(f"it did not answer Hello: {fault.detail}{box.tail()}")
    return hello


def not_held(sha256: str, where: str) -> Unavailable:
    """``where`` names the request's HostedBot, e.g. ``hosted[0]``."""
    return Unavailable(missing_package(sha256, where))


@dataclass(frozen=True, eq=False)
class HostedEntry:
    """One checked entry of ``PlayMatchRequest.hosted`` (package bytes may be empty)."""

    index: int
    sha256: str
    runtime: str
    command: str
    package: bytes
    where: str = ""
    """What the request calls it, in messages: ``hosted[INDEX]`` unless given."""

    @property
    def field(self) -> str:
        return self.where or f"hosted[{self.index}]"

    def label(self) -> str:
        """What metrics and logs call the bot: its package, never a socket."""
        return f"hosted:{self.sha256[:12]}"


class Hosting:
    """A referee's hosted bots: the packages it holds, its pool of started sandboxes
    and the directory their logs are written to while they play."""

    def __init__(
        self,
        directory: Path = DEFAULT_DIRECTORY,
        *,
        pool_size: int = 0,
        limits: Limits | None = None,
        pool_max: int = MAX_TOTAL,
        launcher: Launcher = BUBBLEWRAP,
    ) -> None:
        if pool_size and not isinstance(launcher, Bubblewrap):
            raise ValueError("only the bubblewrap launcher keeps a pool of started bots")
        self.directory = private_directory(directory)
        self.limits = limits or Limits()
        self.launcher = launcher
        if isinstance(launcher, Bubblewrap):
            swept = sweep()
            if swept:
                log.warning("removed what killed referees' sandboxes left: %s", ", ".join(swept))
        self.store = PackageStore(directory / "packages")
        self._pool_dir = directory / "pool" / secrets.token_hex(8)  # this referee's own
        self.pool = SandboxPool(
            pool_size, self._pool_dir, self.limits, max_total=pool_max, launcher=launcher
        )
        self._runtimes: dict[str, Runtime | str] = {}
        self._checks = asyncio.Semaphore(CHECKS_AT_ONCE)

    async def prepare(self, entries: Sequence[HostedEntry | None]) -> tuple[Launch | None, ...]:
        """What starts each seat's bot (None for a remote one). Every package sent is
        kept first, so a caller sending several one at a time gets each one in; then
        Refused or Unavailable for the first entry that cannot run."""
        unique = {e.index: e for e in entries if e is not None}
        if not unique:
            return ()
        for entry in unique.values():
            if entry.package:
                try:
                    await asyncio.to_thread(self.store.add, entry.package, entry.sha256)
                except InvalidPackage as error:
                    raise Refused(f"{entry.field}.package: {error}") from None
        launches = {index: await self._launch(entry) for index, entry in unique.items()}
        return tuple(launches[e.index] if e is not None else None for e in entries)

    def seats(self, match_id: str, launches: Sequence[Launch | None]) -> HostedSeats:
        """The sandboxes of one match, with their logs in a directory of its own."""
        logs = self.directory / "logs"
        logs.mkdir(parents=True, exist_ok=True, mode=0o700)
        return HostedSeats(
            launches,
            self.pool,
            Path(tempfile.mkdtemp(prefix=f"{match_id}-", dir=logs)),
            self.limits.log_bytes,
            match_id,
        )

    async def check(self, launch: Launch) -> bot_pb2.HelloResponse:
        """Start ``launch`` once, as a match would (this referee's launcher and limits,
        a fresh process, never the pool's), ask its Hello and stop it (CheckBot).
        NotStarted, with the bot's own last words, if it does not start or answer."""
        async with self._checks:
            checks = self.directory / "checks"
            checks.mkdir(parents=True, exist_ok=True, mode=0o700)
            workdir = Path(await asyncio.to_thread(tempfile.mkdtemp, prefix="check-", dir=checks))
            try:
                try:
                    box = await launch.start(
                        workdir / "bot.log", self.limits, self.launcher, match_id="check", seat=0
                    )
                except SandboxError as error:
                    raise NotStarted(str(error)) from None
                except OSError as error:  # the host's fault: its details for the log only
                    log.error("cannot start a sandbox to check a bot: %s", error)
                    raise NotStarted("the referee could not start its sandbox") from None
                try:
                    return await greet(box, CHECK_HELLO_S)
                finally:
                    await box.close()
            finally:
                await asyncio.to_thread(shutil.rmtree, workdir, ignore_errors=True)

    async def close(self) -> None:
        """End the pool's sandboxes (a match's own end with the match)."""
        await self.pool.close()
        shutil.rmtree(self._pool_dir, ignore_errors=True)

    async def _launch(self, entry: HostedEntry) -> Launch:
        found = await self._runtime(entry)
        if not self.store.has(entry.sha256):
            raise not_held(entry.sha256, entry.field)
        files = await asyncio.to_thread(self.store.files, entry.sha256)
        try:
            argv = command_argv(entry.command, found, files)
            package = self.store.path(entry.sha256)
            await asyncio.to_thread(check_program, found.name, package, argv)
        except InvalidPackage as error:
            command = entry.command[:100]
            raise Refused(f"{entry.field}.command {command!r}: {error}") from None
        return Launch(entry.sha256, found, tuple(argv), self.store.path(entry.sha256))

    async def _runtime(self, entry: HostedEntry) -> Runtime:
        found = await self._probe(entry.runtime)
        if isinstance(found, Runtime):
            return found
        offered = [n for n in NAMES if isinstance(await self._probe(n), Runtime)]
        raise Unavailable(
            f"{entry.field}.runtime: this referee cannot run it ({found}); "
            f"it runs: {', '.join(offered) or 'none'}"
        )

    async def _probe(self, name: str) -> Runtime | str:
        """The runtime, or why this host (or launcher) lacks it; asked once (Node answers
        a subprocess)."""
        if name not in self._runtimes:
            try:
                self._runtimes[name] = await asyncio.to_thread(self.launcher.runtime, name)
            except RuntimeUnavailable as error:
                self._runtimes[name] = str(error)
        return self._runtimes[name]


class HostedSeats:
    """The sandboxes of one match's hosted seats: started together before the match,
    ended together after it. Each seat's process serves that seat of that match only."""

    def __init__(
        self,
        launches: Sequence[Launch | None],
        pool: SandboxPool,
        log_dir: Path,
        log_bytes: int,
        match_id: str = "",
    ) -> None:
        self.launches = {seat: launch for seat, launch in enumerate(launches) if launch}
        self.pool = pool
        self.log_dir = log_dir
        self.log_bytes = log_bytes
        self.match_id = match_id
        self.boxes: dict[int, Launched] = {}
        self.exits: dict[int, str] = {}
        self._awake: int | None = None
        """The seat let run last (``take_turn``), until all are frozen or thawed."""
        self._released = False

    def __contains__(self, seat: int) -> bool:
        return seat in self.launches

    async def start(self) -> dict[int, BotFault]:
        """Start every hosted seat's sandbox at once; returns the fault of each seat
        whose sandbox did not start, which its team forfeits on before play."""
        failures: dict[int, BotFault] = {}
        # return_exceptions: a cancelled match waits until every start has undone itself
        outcomes = await asyncio.gather(
            *(self._start(seat, failures) for seat in self.launches), return_exceptions=True
        )
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome
        return failures

    def address(self, seat: int) -> str:
        """Where the seat's bot listens ("" if it did not start): for dialling only."""
        box = self.boxes.get(seat)
        return box.address if box is not None else ""

    def freeze_all(self) -> None:
        """Stop every seat's bot where it stands: a hosted seat runs only while it is
        asked to act (``take_turn``), so it cannot compute on another seat's time nor
        time another seat's work through the CPU they share."""
        for box in self.boxes.values():
            box.freeze()
        self._awake = None

    def thaw_all(self) -> None:
        """Let every seat's bot run again (to hear MatchEnded, and to be ended)."""
        for box in self.boxes.values():
            box.thaw()
        self._awake = None

    def take_turn(self, seat: int) -> None:
        """Let ``seat`` run, the seat that ran last having been frozen first: one seat at
        a time runs, from the request it is sent until another seat is asked. A seat asked
        twice in a row stays awake (each freeze wakes every thread of the box to stop it,
        which costs more than the referee's moment between the two requests)."""
        if self._awake == seat:
            return
        if self._awake in self.boxes:
            self.boxes[self._awake].freeze()
        if seat in self.boxes:
            self.boxes[seat].thaw()
        self._awake = seat

    def ended(self, seat: int) -> str | None:
        """How the seat's process ended, in a fault's words; None while it runs."""
        box = self.boxes.get(seat)
        if box is None or box.running():
            return None
        return f"the bot's process ended: {box.describe_exit()}"

    async def stop(self) -> None:
        """Kill every sandbox, noting how each process had ended, and wait until all
        they wrote is in their logs."""
        self._note_exits()
        await asyncio.gather(*(box.stop() for box in self.boxes.values()), return_exceptions=True)

    def release(self) -> None:
        """Kill every sandbox now, however the match ended, and leave the pool to
        remove them and start the next ones (not earlier, when they would take the CPU
        from this match's bots). Safe to call again."""
        self._note_exits()
        boxes, self.boxes = self.boxes, {}
        for box in boxes.values():
            self.pool.dispose(box)
        if not self._released:
            self._released = True
            for launch in set(self.launches.values()):
                self.pool.replenish(launch)
        shutil.rmtree(self.log_dir, ignore_errors=True)  # the PlayMatch answer has them

    def logs(self) -> list[referee_pb2.SeatLog]:
        """What each seat's process wrote, up to the cap; after ``stop``."""
        return [self._log(seat) for seat in sorted(self.launches)]

    def _note_exits(self) -> None:
        for seat, box in self.boxes.items():
            if seat not in self.exits:
                self.exits[seat] = KILLED if box.running() else box.describe_exit()

    def _log_path(self, seat: int) -> Path:
        return self.log_dir / f"seat-{seat}.log"

    async def _start(self, seat: int, failures: dict[int, BotFault]) -> None:
        try:
            self.boxes[seat] = await self.pool.take(
                self.launches[seat], self._log_path(seat), match_id=self.match_id, seat=seat
            )
        except SandboxError as error:
            self.exits[seat] = f"did not start: {error.reason}"
            failures[seat] = BotFault(
                referee_pb2.FAULT_KIND_UNREACHABLE, error.reason, caller_detail=str(error)
            )
        except OSError as error:  # the host's fault, not the bot's: said in the log only
            log.error("cannot start a sandbox for seat %d: %s", seat, error)
            self.exits[seat] = "did not start: the referee could not start its sandbox"
            failures[seat] = BotFault(referee_pb2.FAULT_KIND_UNREACHABLE, self.exits[seat])

    def _log(self, seat: int) -> referee_pb2.SeatLog:
        output = b""
        with contextlib.suppress(OSError), self._log_path(seat).open("rb") as handle:
            output = handle.read(self.log_bytes + 1)
        return referee_pb2.SeatLog(
            seat=seat,
            output=output[: self.log_bytes],
            truncated=len(output) > self.log_bytes,
            exit=self.exits.get(seat, ""),
        )
