"""The processes a service runs."""

from __future__ import annotations

import re

from arena.processes import Service


def pids(referee: Service, count: int = 2) -> list[int]:
    line = next(line for line in referee.output if "listening on" in line)
    found = re.search(rf"\({count} processes, pids ([\d,]+)\)", line)
    assert found, line
    return [int(pid) for pid in found[1].split(",")]
