"""Partners who cannot see each other's hands, where the arena can enforce it: a bot that
looks for its partner's hand in its own memory, in /tmp and behind an abstract socket
finds it when one remote process holds both seats of its team, and finds nothing when
the arena hosts it, each seat a sandbox of its own. Real referee, real sandboxes."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.hosting.example_packages import HOUSE_BOT
from arena.processes import Service, start_service
from arena.v1 import referee_pb2
from tests.support.hosted_matches import Package, logs_by_seat, play, referee

PEEKER = Path(__file__).with_name("peek_bot.py")
OPTIONS = {"max_hands": "3"}


def peeks(text: str) -> list[tuple[int, int, int, int]]:
    """Each PEEK line: the seat, then the partner's cards found in memory, a file, a socket."""
    found = []
    for line in text.splitlines():
        if line.startswith("PEEK "):
            seat, memory, file, sock = map(int, line.split()[1:])
            found.append((seat, memory, file, sock))
    return found


@pytest.fixture
def remote_peeker(tmp_path: Path) -> Iterator[tuple[Service, Path]]:
    report = tmp_path / "peeks.txt"
    service = start_service([sys.executable, str(PEEKER), str(report), "0"])
    yield service, report
    service.stop()
    for seat in range(4):
        Path(f"/tmp/arena-peek-{seat}").unlink(missing_ok=True)


def test_a_remote_process_holding_both_partners_merges_their_hands(
    tmp_path: Path, remote_peeker: tuple[Service, Path]
) -> None:
    """The control: the peek works where partners share a process, so finding nothing
    below means the sandboxes stopped it."""
    service, report = remote_peeker
    house = Package(tmp_path / "house", HOUSE_BOT)

    async def scenario() -> referee_pb2.MatchResult:
        async with referee(tmp_path) as (stub, _):
            return await play(stub, [service.address, ""], {1: house.entry()}, options=OPTIONS)

    result = asyncio.run(scenario())
    assert result.end == referee_pb2.MATCH_END_COMPLETED
    found = peeks(report.read_text())
    assert {seat for seat, *_ in found} == {0, 2}
    assert sum(memory > 0 for _, memory, _, _ in found) >= len(found) // 2, found


def test_a_hosted_peeker_finds_nothing_of_its_partners_hand(tmp_path: Path) -> None:
    peeker = Package(tmp_path / "peeker", PEEKER.read_text())
    house = Package(tmp_path / "house", HOUSE_BOT)

    async def scenario() -> referee_pb2.MatchResult:
        async with referee(tmp_path) as (stub, _):
            return await play(
                stub, ["", ""], {0: peeker.entry(), 1: house.entry()}, options=OPTIONS
            )

    result = asyncio.run(scenario())
    assert result.end == referee_pb2.MATCH_END_COMPLETED and not result.faults
    logs = logs_by_seat(result)
    found = [p for seat in (0, 2) for p in peeks(logs[seat].output.decode())]
    assert {seat for seat, *_ in found} == {0, 2} and len(found) > 10
    assert all(counts == [0, 0, 0] for _, *counts in found), found
