"""Sandboxed bots: a first call to one, the processes of sandboxes, and reading what a
hostile bot got out of its sandbox."""

from __future__ import annotations

import contextlib
import math
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import grpc

from arena.v1 import bot_pb2, bot_pb2_grpc
from tests.support.paths import TESTS


async def hello(address: str) -> bot_pb2.HelloResponse:
    async with grpc.aio.insecure_channel(address) as channel:
        answer: bot_pb2.HelloResponse = await bot_pb2_grpc.BotStub(channel).Hello(
            bot_pb2.HelloRequest(), timeout=10
        )
        return answer


CHANNEL = TESTS / "hosting" / "channel_bot.py"


def channel_package(directory: Path) -> Path:
    directory.mkdir(parents=True)
    shutil.copy(CHANNEL, directory / "bot.py")
    return directory


def decoded(matches: list[list[str]]) -> dict[str, tuple[int, float]]:
    """For each signal the receivers measured, in the outputs of the seats of each
    match (or pair of halves), how many bits they measured it for and the most a decoder
    could make of it: its balanced accuracy (the mean of the shares of 1-bits and of
    0-bits guessed right) at the best threshold and direction. A signal that carries
    nothing scores 0.5; the score is one half plus half the Kolmogorov-Smirnov distance
    between the signal's values under 1-bits and under 0-bits."""
    rows: dict[str, list[tuple[int, int]]] = {"work": [], "runnable": [], "open files": []}
    for outputs in matches:
        lines = [line.split() for text in outputs for line in text.splitlines()]
        sent = sorted((int(x[1]), int(x[2])) for x in lines if x[:1] == ["SENT"])
        for x in lines:
            if x[:1] == ["SLOT"]:
                rows["work"].append((int(x[2]), int(x[3])))
                rows["runnable"].append((int(x[2]), int(x[4])))
            elif x[:1] == ["TURN"] and (before := [b for i, b in sent if i < int(x[1])]):
                rows["open files"].append((before[-1], int(x[2])))
    found = {}
    for signal, measured in rows.items():
        ones = [value for bit, value in measured if bit]
        zeros = [value for bit, value in measured if not bit]
        distance = max(
            (
                abs(sum(v > t for v in ones) / len(ones) - sum(v > t for v in zeros) / len(zeros))
                for _, t in measured
            ),
            default=0.0,
        ) if ones and zeros else 0.0  # fmt: skip
        found[signal] = (len(measured), 0.5 + distance / 2)
    return found


AT_CHANCE = 0.75
"""The most a decoder may make of a signal measured for 60 slots (30 decisions) or more.
By chance alone a score this high comes about once in ten thousand runs (the
Kolmogorov-Smirnov tail); the channels this arena had before boxes took turns and lost
/proc decoded 84-90% of bits."""


def beyond_chance(slots: int, odds: float = 1e-4) -> float:
    """The score that chance alone passes in ``odds`` of runs, for a signal measured over
    ``slots`` slots, half of them 1-bits: one half plus half the Kolmogorov-Smirnov
    distance two samples of ``slots / 2`` exceed that rarely."""
    return 0.5 + 0.5 * math.sqrt(math.log(2 / odds) / 2 * 4 / slots)


def assert_at_chance(matches: list[list[str]]) -> None:
    found = decoded(matches)
    assert found["work"][0] >= 60 and found["open files"][0] >= 30, found
    assert all(score <= AT_CHANCE for _, score in found.values()), found


def processes_of(hosting_dir: Path) -> list[int]:
    """The processes of sandboxes whose package lies in ``hosting_dir``: each sandbox's
    bubblewrap names it on its command line, and everything else of the sandbox runs
    under it. Other tests' sandboxes do not count."""
    parents: dict[int, int] = {}
    found: set[int] = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            stat = (entry / "stat").read_text()
            parents[int(entry.name)] = int(stat.rpartition(")")[2].split()[1])
            if str(hosting_dir).encode() in (entry / "cmdline").read_bytes():
                found.add(int(entry.name))
    grown = True
    while grown:
        children = {pid for pid, parent in parents.items() if parent in found} - found
        found |= children
        grown = bool(children)
    return sorted(found)


@contextlib.contextmanager
def short_directory() -> Iterator[Path]:
    """A fresh directory with a short path, removed after: a sandbox's socket lies deep
    under its state directory and must fit a unix socket's 107 bytes, which pytest's
    temporary directories (one level deeper per worker under xdist) can outgrow."""
    made = Path(tempfile.mkdtemp(prefix="ca-", dir="/tmp"))
    try:
        yield made
    finally:
        shutil.rmtree(made, ignore_errors=True)
