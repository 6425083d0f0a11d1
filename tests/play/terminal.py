"""Drive ``arena play`` through a pseudo-terminal, as a person at a keyboard would."""

from __future__ import annotations

import contextlib
import os
import re
import select
import signal
import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.processes import arena_command

PROMPT = re.compile(r"Seat (\d+), your move \(1(?:-(\d+))?, \? help, q quit\): $")
ACTION = re.compile(r"(?:^ +| {3,})(\d+)\) (.+?)(?= {3,}\d+\) |$)", re.MULTILINE)
"""A numbered action: one a line, or several side by side in columns."""
REPLAY = re.compile(r"^Replay (\S+), to read it:\n  arena replay show (\S+)", re.MULTILINE)


class TerminalTimeout(AssertionError):
    pass


@dataclass
class Turn:
    """One screen and its prompt."""

    screen: str
    seat: int
    actions: list[str]


class Terminal:
    """``arena ARGS`` on a pty: ``expect`` reads until a pattern, ``send`` types a line."""

    def __init__(self, args: Sequence[str], cwd: Path, timeout: float = 30.0) -> None:
        master, slave = os.openpty()
        env = dict(os.environ, TERM="dumb", COLUMNS="80", LINES="50", PYTHONUNBUFFERED="1")
        self.process = subprocess.Popen(
            arena_command(*args),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
        os.close(slave)
        self.fd = master
        self.output = ""  # everything shown so far, "\r\n" as "\n"
        self.position = 0  # where the next expect starts looking
        self.timeout = timeout
        self.closed = False

    def _read(self, until: float) -> bool:
        """Read what is there (waiting at most until ``until``); False at end of output."""
        if self.closed:
            return False
        ready, _, _ = select.select([self.fd], [], [], max(0.0, until - time.monotonic()))
        if not ready:
            return True
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # EIO: the program ended and closed the terminal
            data = b""
        if not data:
            self.closed = True
            return False
        self.output += data.decode(errors="replace").replace("\r\n", "\n")
        return True

    def expect(
        self, *patterns: re.Pattern[str] | str, timeout: float | None = None
    ) -> re.Match[str]:
        """The first match of any pattern in the output after the last match."""
        compiled = [re.compile(p) if isinstance(p, str) else p for p in patterns]
        until = time.monotonic() + (timeout or self.timeout)
        while True:
            found = [m for p in compiled if (m := p.search(self.output, self.position))]
            if found:
                match = min(found, key=lambda m: m.start())
                self.position = match.end()
                return match
            if time.monotonic() >= until or not self._read(until):
                tail = self.output[self.position :][-1500:]
                raise TerminalTimeout(f"none of {[p.pattern for p in compiled]} in:\n{tail}")

    def turn(self, timeout: float | None = None) -> Turn | None:
        """The next screen up to its prompt, or None when the result came instead."""
        start = self.position
        match = self.expect(PROMPT, REPLAY, timeout=timeout)
        if match.re is REPLAY:
            return None
        screen = self.output[start : match.start()]
        screen = screen[max(0, screen.rfind("\n== ")) :]  # the last screen, if any
        found = sorted((int(a.group(1)), a.group(2)) for a in ACTION.finditer(screen))
        actions = [text for _, text in found]
        return Turn(screen=screen, seat=int(match.group(1)), actions=actions)

    def send(self, line: str) -> None:
        os.write(self.fd, line.encode() + b"\n")

    def wait(self, timeout: float = 20.0) -> int:
        """The exit code, reading output meanwhile so the program never blocks on it."""
        until = time.monotonic() + timeout
        while self.process.poll() is None and time.monotonic() < until:
            self._read(min(until, time.monotonic() + 0.1))
        code = self.process.wait(timeout=max(0.1, until - time.monotonic()))
        while self._read(time.monotonic() + 0.1):
            pass
        return code

    def close(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        os.close(self.fd)


@contextlib.contextmanager
def terminal(args: Sequence[str], cwd: Path, timeout: float = 30.0) -> Iterator[Terminal]:
    term = Terminal(args, cwd, timeout)
    try:
        yield term
    finally:
        term.close()
