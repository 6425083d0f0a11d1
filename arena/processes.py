"""Start arena services as child processes and learn where they listen.

Every ``arena ... serve`` command prints ``... listening on HOST:PORT`` once it is
ready (``arena leaderboard serve``, a web server, prints its URL ``http://HOST:PORT``
instead); with ``--port 0`` that line is the only way to learn the port, so the demo and
the tests wait for it here rather than sleeping and hoping.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

# Every ``arena ... serve`` prints "listening on HOST:PORT" (or a URL) when ready, a worker
# "ready as NAME"; the address is whatever follows, up to the first space.
_READY = re.compile(r"(?:listening on|ready as) (\S+)")


class ServiceFailed(RuntimeError):
    pass


@dataclass
class Service:
    process: subprocess.Popen[bytes]
    address: str
    args: tuple[str, ...]
    output: deque[str]

    def __post_init__(self) -> None:
        # Keep reading so a chatty child never blocks on a full pipe.
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.process.stdout is not None
        with contextlib.suppress(ValueError, OSError):
            for line in self.process.stdout:
                self.output.append(line.decode(errors="replace").rstrip())

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM, then SIGKILL for whatever of the session is still there."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout)
        self.kill()

    def kill(self) -> None:
        """SIGKILL the service and every process it started (it runs in its own session)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()


def free_port() -> int:
    """A loopback port nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def arena_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "arena.cli", *args]


def start_service(
    args: Sequence[str], timeout: float = 30.0, env: dict[str, str] | None = None
) -> Service:
    """Run ``args`` in a session of its own and wait until it says it is ready."""
    environment = dict(os.environ, PYTHONUNBUFFERED="1", **(env or {}))
    # Unbuffered: select() must see every byte the child wrote, none hidden in a buffer.
    process = subprocess.Popen(
        list(args),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        bufsize=0,
        env=environment,
        start_new_session=True,
    )
    assert process.stdout is not None
    fd = process.stdout.fileno()
    deadline = time.monotonic() + timeout
    pending = b""
    seen: list[str] = []
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if not ready:
            if process.poll() is not None:
                break
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        *lines, pending = (pending + chunk).split(b"\n")
        for raw in lines:
            line = raw.decode(errors="replace").rstrip()
            seen.append(line)
            match = _READY.search(line)
            if match:
                service = Service(process, match.group(1), tuple(args), deque(seen, maxlen=200))
                if pending:
                    service.output.append(pending.decode(errors="replace"))
                return service
    process.kill()
    process.wait()
    output = " | ".join(seen[-5:]) or "no output"
    raise ServiceFailed(f"{' '.join(args)} did not start: {output}")


@contextlib.contextmanager
def services(commands: Sequence[Sequence[str]]) -> Iterator[list[Service]]:
    """Start several services; stop them all on the way out, whatever happens."""
    started: list[Service] = []
    try:
        for command in commands:
            started.append(start_service(command))
        yield started
    finally:
        for service in reversed(started):
            service.stop()
