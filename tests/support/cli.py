"""The ``arena`` command line, run as a user runs it."""

from __future__ import annotations

import subprocess
from pathlib import Path

from arena.processes import arena_command
from tests.support.arena import Arena


def arena(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        arena_command(*args), capture_output=True, text=True, timeout=120, cwd=cwd
    )


def arena_cli(api: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        arena_command(*args, "--api", api), capture_output=True, text=True, timeout=300
    )


def cli(arena: Arena, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        arena_command(*args, "--api", arena.api.address),
        capture_output=True,
        text=True,
        timeout=120,
    )
