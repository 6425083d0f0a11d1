"""``arena doctor`` against a real arena: Redis, a referee, the API, a Celery worker and a
bot as processes; then with the worker and the bot stopped (and started again by the
commands it printed), and with nothing running at all."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.local_redis import LocalRedis, start_redis
from arena.processes import Service, arena_command, free_port, start_service
from tests.support.arena import Arena, start_arena


def doctor(*flags: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {
        k: v for k, v in os.environ.items() if k not in ("ARENA_REDIS_URL", "ARENA_API", "ARENA_REFEREES")
    }  # fmt: skip
    return subprocess.run(
        arena_command("doctor", *flags),
        capture_output=True,
        text=True,
        timeout=120,
        env={**environment, **(env or {})},
    )


def lines(output: str) -> dict[str, tuple[str, str]]:
    """Each component's state and the rest of its line, by its label."""
    found = {}
    for line in output.splitlines():
        label = re.match(r"(bot \S+|\S+)\s+(\w+)\s+(.*)$", line)
        assert label, f"not a doctor line: {line!r}"
        found[label[1]] = (label[2], label[3])
    return found


def started(command: str) -> Service:
    """The service a printed start command (``arena ... &``) starts, run as it says."""
    words = shlex.split(command.removesuffix("&"))
    assert words[0] == "arena", command
    return start_service(arena_command(*words[1:]))


@pytest.fixture
def safe_redis(tmp_path: Path) -> Iterator[LocalRedis]:
    """A Redis that keeps an append-only file, as documented and deployed."""
    server = start_redis(aof_dir=str(tmp_path))
    yield server
    server.stop()


@pytest.fixture
def stack(safe_redis: LocalRedis, tmp_path: Path) -> Iterator[Arena]:
    arena = start_arena(safe_redis, tmp_path)
    arena.start_worker("doctor")
    arena.start_bot("house", "house")
    yield arena
    arena.stop()


def test_all_up_then_worker_and_bot_down_then_started_by_the_printed_commands(
    stack: Arena,
) -> None:
    flags = (
        "--redis",
        stack.redis_url,
        "--api",
        stack.api.address,
        "--referee",
        stack.referee.address,
    )
    done = doctor(*flags)
    assert done.returncode == 0, done.stdout + done.stderr
    found = lines(done.stdout)
    assert list(found) == ["redis", "referee", "api", "workers", "bot house"]
    assert {state for state, _ in found.values()} == {"up"}
    assert "doctor@arena-test" in found["workers"][1]
    assert stack.bots["house"].address in found["bot house"][1]
    assert "plays" in found["bot house"][1]
    # The columns line up: every state starts in the same column.
    assert len({line.index(" up ") for line in done.stdout.splitlines()}) == 1

    report = json.loads(doctor(*flags, "--json").stdout)
    assert report["ok"] is True
    assert [(c["component"], c["name"], c["state"]) for c in report["components"]] == [
        ("redis", "redis", "up"), ("referee", "referee", "up"), ("api", "api", "up"),
        ("workers", "workers", "up"), ("bot", "house", "up"),
    ]  # fmt: skip

    stack.workers.pop().stop()
    bot = stack.bots.pop("house")
    bot.stop()
    done = doctor(*flags)
    assert done.returncode == 1
    found = lines(done.stdout)
    assert [found[c][0] for c in ("redis", "referee", "api")] == ["up"] * 3
    port = bot.address.rpartition(":")[2]
    assert found["workers"][0] == found["bot house"][0] == "down"
    worker_start = f"arena worker --redis {stack.redis_url} --referee {stack.referee.address} &"
    assert found["workers"][1].endswith(f"start: {worker_start}")
    assert found["bot house"][1].endswith(f"start: arena bot serve house --port {port} &")
    report = json.loads(doctor(*flags, "--json").stdout)
    assert report["ok"] is False
    downs = {c["name"]: c for c in report["components"] if c["state"] == "down"}
    assert sorted(downs) == ["house", "workers"]
    assert downs["workers"]["detail"] == "no worker answered ping"
    assert downs["house"]["detail"] == "connection refused or unreachable"

    # What it printed is what brings them back.
    stack.workers.append(started(worker_start))
    stack.bots["house"] = started(found["bot house"][1].partition("start: ")[2])
    done = doctor(*flags)
    assert done.returncode == 0, done.stdout
    assert {state for state, _ in lines(done.stdout).values()} == {"up"}


def test_nothing_running_prints_every_start_command() -> None:
    redis_port, api_port, referee_port = free_port(), free_port(), free_port()
    redis_url = f"redis://127.0.0.1:{redis_port}/0"
    referee = f"127.0.0.1:{referee_port}"
    # From the variables every other command reads, as a newcomer who exported them; the
    # services started from the same shell read them too, so no --redis.
    env = {
        "ARENA_REDIS_URL": redis_url,
        "ARENA_API": f"127.0.0.1:{api_port}",
        "ARENA_REFEREES": referee,
    }
    done = doctor(env=env)
    assert done.returncode == 1, done.stderr
    assert done.stderr == ""
    expected = {
        "redis": (
            f"127.0.0.1:{redis_port}/0",
            f"redis-server --bind 127.0.0.1 --port {redis_port} --appendonly yes &",
        ),
        "referee": (referee, f"arena referee serve --port {referee_port} &"),
        "api": (f"127.0.0.1:{api_port}", f"arena api serve --port {api_port} &"),
        "workers": (f"127.0.0.1:{redis_port}/0", f"arena worker --referee {referee} &"),
    }  # fmt: skip
    found = lines(done.stdout)
    assert list(found) == [*expected, "bots"]
    assert found["bots"][0] == "unknown"
    assert found["bots"][1].split(None, 1) == ["-", "not checked: the API lists them"]
    for label, (address, start) in expected.items():
        state, rest = found[label]
        assert state == "down"
        assert rest.split(None, 1) == [address, f"start: {start}"], label
    report = json.loads(doctor("--json", env=env).stdout)
    assert report["ok"] is False
    assert [c["state"] for c in report["components"]] == ["down"] * 4 + ["unknown"]
    assert set(report["components"][0]) == {
        "component",
        "name",
        "state",
        "address",
        "detail",
        "start",
    }


def test_a_bad_timeout_is_bad_usage() -> None:
    done = doctor("--timeout", "0")
    assert done.returncode == 2
    assert "--timeout" in done.stderr


def test_an_arena_without_bots_is_up_and_says_how_to_register_one(
    safe_redis: LocalRedis, tmp_path: Path
) -> None:
    arena = start_arena(safe_redis, tmp_path)
    try:
        arena.start_worker("lonely")
        done = doctor(
            "--redis", arena.redis_url, "--api", arena.api.address,
            "--referee", arena.referee.address,
        )  # fmt: skip
    finally:
        arena.stop()
    assert done.returncode == 0, done.stdout + done.stderr
    found = lines(done.stdout)
    assert [state for state, _ in found.values()] == ["up"] * 4 + ["none"]
    assert found["api"][1].endswith("serving, 0 bots registered")
    assert found["bots"][1].endswith("register one: arena bot register NAME HOST:PORT")


def test_a_redis_that_keeps_no_append_only_file_is_named_with_the_fix(
    local_redis: LocalRedis,
) -> None:
    """The tests' own Redis keeps nothing on disk: it serves, so the exit code is 0, but
    the page says it would lose everything in a crash and how to stop that."""
    done = doctor("--redis", local_redis.url(0), "--api", "127.0.0.1:1", "--referee", "127.0.0.1:1")
    state, rest = lines(done.stdout)["redis"]
    assert state == "unsafe"
    assert "keeps no append-only file" in rest
    assert rest.endswith(f"redis-cli -p {local_redis.port} config set appendonly yes (and "
                         "appendonly yes in its configuration)")  # fmt: skip
    report = json.loads(doctor("--redis", local_redis.url(0), "--json").stdout)
    assert report["components"][0]["state"] == "unsafe"


def test_a_remote_redis_that_is_down_gets_advice_for_where_it_is() -> None:
    """No loopback command for a Redis on another host: where it should be, instead."""
    done = doctor("--redis", "redis://192.0.2.7:6390/2", "--timeout", "0.5")
    state, rest = lines(done.stdout)["redis"]
    assert state == "down" and "redis-server" not in rest
    report = json.loads(doctor("--redis", "redis://192.0.2.7:6390/2", "--timeout", "0.5",
                               "--json").stdout)  # fmt: skip
    redis_found = report["components"][0]
    assert redis_found["start"] == ""
    assert redis_found["detail"].endswith(
        "start the Redis at 192.0.2.7:6390/2 (with appendonly yes), or give --redis / "
        "ARENA_REDIS_URL the address of yours"
    )
