"""The Node.js example bot (examples/node-bot): its command, and what its output says."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from arena.processes import Service

REPO = Path(__file__).resolve().parents[2]


NODE_BOT = REPO / "examples" / "node-bot"


BOT_JS = NODE_BOT / "bot.js"


def node_command(*flags: str) -> list[str]:
    """``node bot.js --port 0 FLAGS``, or a test failure that says to run ``make node``."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed: install Node.js 18+ and npm, then run `make node`")
    if not (NODE_BOT / "node_modules").is_dir():
        pytest.fail(f"{NODE_BOT / 'node_modules'} is missing: run `make node`")
    return [node, str(BOT_JS), "--port", "0", *flags]


def run_node(*flags: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the bot to completion (for flags that make it exit), output merged."""
    return subprocess.run(
        node_command(*flags),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=60,
        env=env,
    )


def stop_and_read_stats(bot: Service) -> str:
    """SIGTERM the bot, check it exits 0, and return its ``stopping: ...`` line."""
    bot.stop()
    assert bot.process.returncode == 0, list(bot.output)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # the reader thread may still be catching up
        lines = [line for line in bot.output if "stopping:" in line]
        if lines:
            return lines[-1]
        time.sleep(0.05)
    raise AssertionError(f"no stopping line: {list(bot.output)}")


def strategy_fallbacks(bot: Service) -> list[str]:
    """Lines where a game strategy failed and the bot played its first legal action."""
    return [line for line in bot.output if "fallback" in line]


def environment_without_token() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "ARENA_API_TOKEN"}
