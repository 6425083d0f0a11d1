"""The referee's package store trusts only what it unpacked from bytes it checked: a
directory found at a package's place (planted, or left by a killed referee) is never run,
and a bot that fails its check leaves nothing on the referee's disk. Real files, a real
referee in this process and, for the checks that start a bot, real sandboxes."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest

from arena.hosting.example_packages import PYTHON_COMMAND, python_package
from arena.hosting.package import InvalidPackage, digest, pack
from arena.hosting.store import STALE_S, PackageStore
from arena.referee.service import start_server
from arena.v1 import referee_pb2, referee_pb2_grpc

REAL = """
    from arena.bots.examples.house import HouseBot
    from arena.bots.sdk import serve

    serve(HouseBot())
"""
PLANTED = """
    from arena.bots.examples.random_bot import RandomBot
    from arena.bots.sdk import serve

    print("planted code runs on the referee", flush=True)
    serve(RandomBot())
"""
CRASHER = """
    import sys
    print("no strategy yet", file=sys.stderr)
    sys.exit(2)
"""


def package(directory: Path, source: str = REAL) -> tuple[bytes, str]:
    blob = pack(python_package(directory, source))
    return blob, digest(blob)


def plant(where: Path, source: str = PLANTED) -> None:
    """A package's directory, made by someone other than the store."""
    python_package(where, source)
    for path in [where, *where.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)


def test_a_directory_planted_at_a_packages_place_is_not_trusted_and_is_replaced(
    tmp_path: Path,
) -> None:
    blob, sha256 = package(tmp_path / "real")
    packages = tmp_path / "packages"
    plant(packages / sha256)
    store = PackageStore(packages)
    assert not store.has(sha256)
    store.add(blob, sha256)
    assert store.has(sha256)
    assert (store.path(sha256) / "bot.py").read_text() == (tmp_path / "real" / "bot.py").read_text()
    assert [p.name for p in packages.iterdir()] == [sha256]  # the planted copy is gone


def test_a_copy_with_one_file_more_than_the_package_is_replaced(tmp_path: Path) -> None:
    blob, sha256 = package(tmp_path / "real")
    packages = tmp_path / "packages"
    PackageStore(packages).add(blob, sha256)
    (packages / sha256 / "sitecustomize.py").write_text("print('planted')\n")
    store = PackageStore(packages)
    assert not store.has(sha256)
    store.add(blob, sha256)
    assert sorted(p.name for p in store.path(sha256).iterdir()) == ["bot.py"]


def test_an_identical_copy_another_referee_made_is_checked_and_kept_in_place(
    tmp_path: Path,
) -> None:
    blob, sha256 = package(tmp_path / "real")
    packages = tmp_path / "packages"
    sibling = PackageStore(packages)  # another process of `referee serve --processes N`
    sibling.add(blob, sha256)
    before = os.stat(packages / sha256 / "bot.py").st_ino
    store = PackageStore(packages)
    assert not store.has(sha256)  # found, not made: not trusted until checked
    store.add(blob, sha256)
    assert store.has(sha256)
    # The sibling's copy was kept, so the bots it runs from there keep their files.
    assert os.stat(packages / sha256 / "bot.py").st_ino == before
    store.remove(sha256)  # forgotten here; the sibling's copy stays
    assert not store.has(sha256) and sibling.has(sha256)


def test_removing_a_package_deletes_what_the_store_unpacked(tmp_path: Path) -> None:
    blob, sha256 = package(tmp_path / "real")
    packages = tmp_path / "packages"
    store = PackageStore(packages)
    store.add(blob, sha256)
    store.remove(sha256)
    assert not store.has(sha256)
    assert list(packages.iterdir()) == []


def test_a_refused_package_leaves_nothing_in_the_store(tmp_path: Path) -> None:
    packages = tmp_path / "packages"
    store = PackageStore(packages)
    with pytest.raises(InvalidPackage):
        store.add(b"not a tarball", digest(b"not a tarball"))
    assert list(packages.iterdir()) == []


def test_temporary_directories_a_killed_referee_left_are_deleted_at_start(
    tmp_path: Path,
) -> None:
    packages = tmp_path / "packages"
    old, fresh = packages / ".unpacking-old", packages / ".unpacking-fresh"
    for left in (old, fresh):
        (left / "half").mkdir(parents=True)
    an_hour_ago = time.time() - STALE_S - 60
    os.utime(old, (an_hour_ago, an_hour_ago))
    PackageStore(packages)
    assert not old.exists()
    assert fresh.exists()  # it may be a live store's, unpacking now


@contextlib.asynccontextmanager
async def referee(hosting: Path) -> AsyncIterator[referee_pb2_grpc.RefereeAsyncStub]:
    server, port = await start_server(
        port=0, replay_dir=hosting.parent / "replays", hosting_dir=hosting
    )
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            yield referee_pb2_grpc.RefereeStub(channel)
    finally:
        await server.stop(grace=None)


def check_bot(
    blob: bytes, sha256: str, *, with_bytes: bool = True, command: str = PYTHON_COMMAND
) -> referee_pb2.CheckBotRequest:
    return referee_pb2.CheckBotRequest(
        bot=referee_pb2.HostedBot(
            package_sha256=sha256,
            runtime="python3.11",
            command=command,
            package=blob if with_bytes else b"",
        )
    )


async def refusal(
    stub: referee_pb2_grpc.RefereeAsyncStub, request: referee_pb2.CheckBotRequest
) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stub.CheckBot(request)
    return refused.value.code(), refused.value.details() or ""


def test_a_referee_never_runs_a_package_planted_in_its_hosting_directory(
    tmp_path: Path,
) -> None:
    blob, sha256 = package(tmp_path / "real")
    hosting = tmp_path / "hosting"
    hosting.mkdir(mode=0o700)  # private, as the referee keeps it (an earlier run made it)
    plant(hosting / "packages" / sha256)

    async def scenario() -> tuple[tuple[grpc.StatusCode, str], referee_pb2.CheckBotResponse]:
        async with referee(hosting) as stub:
            without_bytes = await refusal(stub, check_bot(blob, sha256, with_bytes=False))
            return without_bytes, await stub.CheckBot(check_bot(blob, sha256))

    (code, message), answer = asyncio.run(scenario())
    # Asked to start it by digest alone, the referee asks for the bytes...
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert message.startswith(f"package {sha256} is not on this referee")
    # ...and runs what they hold: the house bot, not the planted random one.
    assert answer.name == "house"
    assert "planted" not in (hosting / "packages" / sha256 / "bot.py").read_text()


@pytest.mark.parametrize(
    ("source", "command", "expected", "said"),
    [
        (CRASHER, PYTHON_COMMAND, grpc.StatusCode.FAILED_PRECONDITION, "no strategy yet"),
        (REAL, "python3 missing.py", grpc.StatusCode.INVALID_ARGUMENT, "not in the package"),
    ],
    ids=["the bot dies", "its command is refused once unpacked"],
)
def test_a_bot_that_fails_its_check_leaves_nothing_on_the_referee(
    source: str, command: str, expected: grpc.StatusCode, said: str, tmp_path: Path
) -> None:
    blob, sha256 = package(tmp_path / "bot", source)
    hosting = tmp_path / "hosting"

    async def scenario() -> tuple[grpc.StatusCode, str]:
        async with referee(hosting) as stub:
            return await refusal(stub, check_bot(blob, sha256, command=command))

    code, message = asyncio.run(scenario())
    assert (code, said in message) == (expected, True), message
    assert list((hosting / "packages").iterdir()) == []
