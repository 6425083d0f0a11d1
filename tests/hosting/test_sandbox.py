"""The bubblewrap sandbox against hostile bots: each one is a real package started in a
real sandbox, and the host, the next sandbox and the arena's files stay untouched."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.hosting.runtimes import runtime
from arena.hosting.sandbox import UIDS, Limits, Sandbox, SandboxError
from arena.v1 import bot_pb2
from tests.support.sandbox import hello, processes_of
from tests.support.waiting import wait_until_async

PROBE = Path(__file__).with_name("probe_bot.py")
AS_ROOT = os.geteuid() == 0


def package(directory: Path, source: str, name: str = "bot.py") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_text(textwrap.dedent(source))
    return directory


async def start(pkg: Path, log: Path, *args: str, limits: Limits | None = None) -> Sandbox:
    command = ["python3", "bot.py", *args]
    return await Sandbox.start(pkg, runtime("python3.11"), command, log, limits)


def start_fails(pkg: Path, log: Path, limits: Limits | None = None) -> str:
    """Why starting ``pkg`` failed."""
    with pytest.raises(SandboxError) as failed:
        asyncio.run(start(pkg, log, limits=limits))
    return str(failed.value)


def serve_once(pkg: Path, log: Path, limits: Limits | None = None) -> tuple[str, Sandbox]:
    """Start ``pkg``, ask it Hello, stop it; returns its name and the closed sandbox."""

    async def run() -> tuple[str, Sandbox]:
        box = await start(pkg, log, limits=limits)
        try:
            return (await hello(box.address)).name, box
        finally:
            await box.close()

    return asyncio.run(run())


def probe(log: Path) -> dict[str, object]:
    (line,) = [x for x in log.read_text().splitlines() if x.startswith("PROBE ")]
    report: dict[str, object] = json.loads(line.removeprefix("PROBE "))
    return report


def outcome(report: dict[str, object], attempt: str) -> str:
    """What the probe's ``attempt`` came to: "allowed", or "refused" and why."""
    value = report[attempt]
    assert isinstance(value, str), (attempt, value)
    return value


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP port on the host's loopback that accepts anyone who reaches it."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server.getsockname()[1]


def test_a_bot_sees_only_its_runtime_and_its_files_and_reaches_nothing(
    tmp_path: Path, listener: int
) -> None:
    secret = tmp_path / "arena-token"
    secret.write_text("s3cret\n")
    other = package(tmp_path / "other-bot", "print('another author')\n")
    pkg = tmp_path / "probe"
    pkg.mkdir()
    shutil.copy(PROBE, pkg / "bot.py")
    log = tmp_path / "probe.log"
    targets = [str(listener), "/etc/shadow", str(secret), str(other / "bot.py"), "/proc/1/environ"]

    async def run() -> bot_pb2.HelloResponse:
        box = await Sandbox.start(pkg, runtime("python3.11"), ["python3", "bot.py", *targets], log)
        try:
            return await hello(box.address)
        finally:
            await box.close()

    assert asyncio.run(run()).name == "random"  # it serves, over its Unix socket only
    report = probe(log)
    assert outcome(report, f"connect {listener}").startswith("refused")
    assert outcome(report, "dns").startswith("refused")
    for path in targets[1:]:
        assert outcome(report, f"read {path}").startswith("refused"), path
    for where in ("write_package", "write_usr", "write_root"):
        assert outcome(report, where).startswith("refused"), where
    assert report["write_tmp"] == "allowed"
    visible_root = report["visible_root"]
    assert isinstance(visible_root, list), visible_root
    assert "etc" not in visible_root and "root" in visible_root
    assert not (pkg / "planted").exists()
    if AS_ROOT:  # its own user id, and a socket directory too small to fill a disk
        assert report["uid"] in UIDS
        assert outcome(report, "fill_socket_dir").startswith("refused")


def test_nothing_a_bot_leaves_reaches_its_next_match(tmp_path: Path) -> None:
    pkg = tmp_path / "probe"
    pkg.mkdir()
    shutil.copy(PROBE, pkg / "bot.py")
    reports = []
    for match in range(2):
        log = tmp_path / f"match-{match}.log"
        _, box = serve_once(pkg, log)
        reports.append(probe(log))
        assert not box.workdir.exists()  # its socket directory went with it
    assert [r["write_tmp"] for r in reports] == ["allowed", "allowed"]
    assert [r["marker_before"] for r in reports] == [False, False]


def test_a_bot_that_never_listens_is_stopped_and_its_output_quoted(tmp_path: Path) -> None:
    pkg = package(
        tmp_path / "loop",
        """
        print("thinking forever", flush=True)
        while True:
            pass
        """,
    )
    failed = start_fails(pkg, tmp_path / "loop.log", limits=Limits(start_s=2))
    assert "did not listen within 2 s" in failed and failed.endswith("thinking forever")
    assert processes_of(tmp_path) == []  # this test's; another worker's may be running


def test_a_bot_is_started_once_it_listens_not_once_it_binds(tmp_path: Path) -> None:
    """Binding makes the socket's file; a connection before ``listen`` is refused. A bot
    slow between the two (a loaded host) is ready only once it listens."""
    pkg = package(
        tmp_path / "slow",
        """
        import os, socket, time
        server = socket.socket(socket.AF_UNIX)
        server.bind(os.environ["ARENA_BOT_ADDRESS"].removeprefix("unix:"))
        print("bound", flush=True)
        time.sleep(1.5)
        server.listen(1)
        while True:
            server.accept()[0].close()
        """,
    )

    async def connect_once_started() -> None:
        box = await start(pkg, tmp_path / "slow.log")
        try:
            _, writer = await asyncio.open_unix_connection(box.address.removeprefix("unix:"))
            writer.close()
        finally:
            await box.close()

    asyncio.run(connect_once_started())


def test_a_cpu_burner_is_killed_by_its_cpu_limit(tmp_path: Path) -> None:
    pkg = package(tmp_path / "burn", "while True:\n    pass\n")
    failed = start_fails(pkg, tmp_path / "burn.log", limits=Limits(cpu_s=1, start_s=30))
    assert "SIGXCPU: its CPU time limit" in failed


def test_a_memory_hog_fails_alone(tmp_path: Path) -> None:
    pkg = package(
        tmp_path / "hog",
        """
        hoard = []
        while True:
            hoard.append(bytearray(64 << 20))
        """,
    )
    assert "MemoryError" in start_fails(pkg, tmp_path / "hog.log", Limits(memory_bytes=256 << 20))


def test_a_fork_bomb_is_held_to_its_process_limit_and_dies_with_its_sandbox(
    tmp_path: Path,
) -> None:
    pkg = package(
        tmp_path / "bomb",
        """
        import os
        print("bombing", flush=True)
        while True:
            try:
                os.fork()
            except OSError:
                pass
        """,
    )
    plain = _plain(tmp_path)

    async def run() -> tuple[BaseException | Sandbox, str]:
        bomb = asyncio.create_task(start(pkg, tmp_path / "bomb.log", limits=Limits(start_s=4)))
        await wait_until_async(
            lambda: len(processes_of(tmp_path / "bomb")) >= Limits().processes,
            timeout=4,
            what="the bomb to reach its process limit",
        )
        neighbour = await start(plain, tmp_path / "neighbour.log")
        try:
            name = (await hello(neighbour.address)).name
        finally:
            await neighbour.close()
        (outcome,) = await asyncio.gather(bomb, return_exceptions=True)
        return outcome, name

    outcome, name = asyncio.run(run())
    assert name == "random"  # the bomb took nothing from its neighbour
    assert isinstance(outcome, SandboxError) and "did not listen within 4 s" in str(outcome)
    assert processes_of(tmp_path) == []  # every process of the bomb went with its sandbox


def test_a_flood_of_output_is_cut_at_the_log_limit_and_the_bot_goes_on(tmp_path: Path) -> None:
    pkg = package(
        tmp_path / "flood",
        """
        import sys
        for _ in range(2000):
            sys.stdout.write("x" * 16384 + "\\n")
        sys.stdout.flush()
        from arena.bots.examples.random_bot import RandomBot
        from arena.bots.sdk import serve
        serve(RandomBot())
        """,
    )
    log = tmp_path / "flood.log"
    assert serve_once(pkg, log, Limits(log_bytes=100_000))[0] == "random"
    kept = log.read_bytes()
    assert len(kept) < 100_000 + 200 and kept.endswith(b"[arena: output cut at 100000 bytes]\n")


def test_a_command_that_exits_is_refused_with_its_own_words(tmp_path: Path) -> None:
    pkg = package(tmp_path / "crash", "raise SystemExit('no strategy yet')\n")
    failed = start_fails(pkg, tmp_path / "crash.log")
    assert "the bot exited with status 1" in failed and failed.endswith("no strategy yet")


def _plain(tmp_path: Path) -> Path:
    return package(
        tmp_path / "plain",
        """
        from arena.bots.examples.random_bot import RandomBot
        from arena.bots.sdk import serve
        serve(RandomBot())
        """,
    )
