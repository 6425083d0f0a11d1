"""Hosted bots submitted to an arena: a house bot's package and its submission."""

from __future__ import annotations

from pathlib import Path

from arena.access import bearer
from arena.hosting.example_packages import python_package
from arena.hosting.package import pack
from arena.hosting.transfer import submission
from arena.v1 import arena_pb2
from tests.support.arena import Arena

HOUSE = """
    import sys
    from arena.bots.examples.house import HouseBot
    from arena.bots.sdk import serve
    print("house bot starting", file=sys.stderr, flush=True)
    serve(HouseBot())
"""


def package(directory: Path, source: str) -> bytes:
    return pack(python_package(directory, source))


def submit(
    arena: Arena, name: str, blob: bytes, token: str = "", command: str = "python3 bot.py"
) -> arena_pb2.HostedBotVersion:
    version: arena_pb2.HostedBotVersion = arena.stub.SubmitBot(
        submission(
            arena_pb2.SubmitBotRequest(
                name=name, version="v1", runtime="python3.11", command=command, package=blob
            )
        ),
        metadata=(bearer(token),) if token else None,
    )
    return version
