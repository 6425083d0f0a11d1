"""docs/getting-started.md (a bot author's first hour), docs/running-a-club.md (an
organiser's week) and docs/competitions.md (an organiser's season, rehearsed in minutes),
each run as written against a real local arena.

Every fenced block of a page is taken in order:

- ```sh blocks run command by command through bash, with ``arena`` and ``python`` first
  on the PATH (wrappers for this interpreter and checkout: what activating ``.venv``
  does); shell variables with lowercase names (``swiss=$(...)``) last from one command
  to the next, as in one shell. A command ending in ``&`` is started and waited for as
  a service; ``kill $(jobs -p)`` stops them all. ``make demo`` is not run here (``tests/test_demo.py``
  runs its program); the Makefile must still have it.
- a ```python or ```toml block after ``<!-- file: NAME -->`` is written to NAME in the
  directory the commands run in.
- a ```text block is the output of the last command before it, line by line: ``<word>``
  stands for any one word, a line ``...`` for any number of lines, and runs of spaces
  for any whitespace.

A command that prints a match's live page (``/live/T/M``, as ``arena tournament live``
does) has that page opened on the page's site, and the match's events read from it to
the end: the table a spectator sees comes with them.

The page's ports are its defaults (6379, 50050, 50051...); each is replaced by a free
port everywhere, commands and outputs alike, and ``ARENA_REDIS_URL``, ``ARENA_API`` and
``ARENA_REFEREES`` point where the defaults would, so commands without flags find this
arena and no other on the machine.
"""

from __future__ import annotations

import functools
import json
import os
import random
import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis

from arena.local_redis import LocalRedis, redis_server_binary
from arena.processes import Service, free_port, start_service

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_PORTS = ("6379", "50050", "50051", "50061", "50070", "8000")


@dataclass(frozen=True)
class Page:
    """A page of docs/ the test runs: what it must show (``arena`` subcommands it runs),
    and the names its leaderboard on the web must show once served."""

    steps: frozenset[str]
    on_the_web: tuple[str, ...]


PAGES = {
    "getting-started.md": Page(
        frozenset(
            {"doctor", "bot check", "bot register", "tournament run", "leaderboard",
             "leaderboard serve"}
        ),
        ("my-bot", "house"),
    ),
    "running-a-club.md": Page(
        frozenset(
            {"token new", "api serve", "author add", "bot template", "bot submit",
             "tournament run", "bot logs", "replay show", "tournament live",
             "tournament cancel", "leaderboard serve"}
        ),
        ("ada-bot", "ben-bot"),
    ),
    "competitions.md": Page(
        frozenset(
            {"competition create", "competition show", "competition list",
             "competition invite", "author join", "bot submit", "competition board",
             "competition final", "competition wait", "competition verify"}
        ),
        ("ada-bot", "ben-bot"),
    ),
}  # fmt: skip
FILES = ("python", "toml")
"""Blocks written to a file (``<!-- file: NAME -->``) rather than run."""

_BLOCK = re.compile(
    r"(?:<!-- file: (?P<file>\S+) -->\s*\n)?^```(?P<lang>\w*)\n(?P<body>.*?)^```", re.S | re.M
)
_PLACEHOLDER = re.compile(r"(<[\w-]+>)")
_INVOKED = re.compile(r"(?:^|\$\()arena ([\w-]+) ?([\w-]*)")
_LIVE_PAGE = re.compile(r"/live/t[0-9a-f]+/[\w-]+")


@dataclass(frozen=True)
class Block:
    lang: str
    body: str
    file: str | None


def blocks(text: str) -> list[Block]:
    return [Block(m["lang"], m["body"], m["file"]) for m in _BLOCK.finditer(text)]


def commands(body: str) -> list[str]:
    """The commands of a ```sh block, continuation lines joined, comments dropped."""
    joined = body.replace("\\\n", " ")
    return [
        line.strip() for line in joined.splitlines() if line.strip() and not line.startswith("#")
    ]


def line_pattern(expected: str) -> re.Pattern[str]:
    parts = []
    for part in _PLACEHOLDER.split(expected.strip()):
        if _PLACEHOLDER.fullmatch(part):
            parts.append(r"\S+")
        else:
            parts += [
                r"\s+" if p.isspace() else re.escape(p) for p in re.split(r"(\s+)", part) if p
            ]
    return re.compile("".join(parts))


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` is ``expected`` line by line, ``...`` standing for any lines."""

    @functools.cache
    def at(e: int, a: int) -> bool:
        if e == len(expected):
            return a == len(actual)
        if expected[e] == "...":
            return any(at(e + 1, later) for later in range(a, len(actual) + 1))
        return (
            a < len(actual)
            and line_pattern(expected[e]).fullmatch(actual[a].strip()) is not None
            and at(e + 1, a + 1)
        )

    return at(0, 0)


def watch_live(site: str, path: str) -> None:
    """Opens a live match's page on the site and reads its events to the match's end."""
    with urllib.request.urlopen(site + path, timeout=30) as page:
        html = page.read().decode()
    assert '<section id="live"' in html and "data-events=" in html, html
    events = "/api/live/" + path.removeprefix("/live/") + "/events"
    request = urllib.request.Request(site + events, headers={"Accept": "text/event-stream"})
    with urllib.request.urlopen(request, timeout=120) as stream:
        lines = stream.read().decode().splitlines()
    found = [json.loads(line.removeprefix("data: ")) for line in lines if line.startswith("data: ")]
    assert found[0]["kind"] == "MATCH_EVENT_KIND_STARTED", found[:2]
    assert found[-1]["kind"] == "MATCH_EVENT_KIND_ENDED", found[-2:]
    assert any(e["kind"] == "MATCH_EVENT_KIND_GAME" for e in found)
    final = json.loads(found[-1]["table_json"])  # where it ended, as the public sees it
    assert all(hand is None for hand in final["table"]["hands"]) and final["seat"] is None


def with_ports(text: str, ports: dict[str, str]) -> str:
    return re.sub(r"(?<!\d)(" + "|".join(ports) + r")(?!\d)", lambda m: ports[m[1]], text)


VARIABLES = ".shell-variables"


class Shell:
    """Runs the page's commands as one shell would, in ``directory``."""

    def __init__(self, directory: Path, ports: dict[str, str]) -> None:
        self.directory = directory
        self.background: list[Service | LocalRedis] = []
        bin_dir = directory / "bin"
        bin_dir.mkdir()
        for name, run in (("arena", f"{sys.executable} -m arena.cli"), ("python", sys.executable)):
            wrapper = bin_dir / name
            wrapper.write_text(f'#!/bin/sh\nexec {run} "$@"\n')
            wrapper.chmod(0o755)
        environment = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
        self.env = {
            **environment,
            "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH")))),
            "ARENA_REDIS_URL": f"redis://127.0.0.1:{ports['6379']}/0",
            "ARENA_API": f"127.0.0.1:{ports['50050']}",
            "ARENA_REFEREES": f"127.0.0.1:{ports['50051']}",
        }

    def run(self, command: str) -> subprocess.CompletedProcess[str]:
        # One shell's variables: those of earlier commands first, this one's kept after.
        kept = (
            f"[ -f {VARIABLES} ] && . ./{VARIABLES}\n{command}\nstatus=$?\n"
            "names=$(compgen -v | grep -E '^[a-z][a-z0-9_]*$' | grep -vxE 'status|names')\n"
            f'[ -z "$names" ] || declare -p $names > {VARIABLES}\nexit $status'  # any value
        )
        return subprocess.run(
            ["bash", "-c", kept],
            cwd=self.directory,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=600,
        )

    def start(self, command: str) -> Service | LocalRedis:
        words = shlex.split(command)
        if words[0] == "redis-server":
            started: Service | LocalRedis = self._redis(words[1:])
        else:
            where = shlex.quote(str(self.directory))
            env = {k: v for k, v in self.env.items() if k != "PYTHONUNBUFFERED"}  # it sets that
            started = start_service(["bash", "-c", f"cd {where} && exec {command}"], env=env)
        self.background.append(started)
        return started

    def _redis(self, flags: list[str]) -> LocalRedis:
        process = subprocess.Popen(
            [redis_server_binary(), *flags],
            cwd=self.directory,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port = int(flags[flags.index("--port") + 1])
        client = redis.Redis(port=port)
        for _ in range(200):  # the same wait as arena.local_redis.start_redis
            try:
                client.ping()
                return LocalRedis(process, port)
            except redis.ConnectionError:
                assert process.poll() is None, f"redis-server {' '.join(flags)} exited"
                time.sleep(0.05)
        process.kill()
        raise AssertionError(f"redis-server {' '.join(flags)} did not answer")

    def stop_all(self) -> None:
        while self.background:
            self.background.pop().stop()


def lasting_port(taken: set[int]) -> int:
    """A free loopback port below the kernel's ephemeral range. The page's ports are
    chosen before its first command and some are served only minutes later: a port from
    the ephemeral range (``free_port``) may be taken meanwhile by an outgoing connection,
    which one below it never is."""
    ephemeral = Path("/proc/sys/net/ipv4/ip_local_port_range")
    low = int(ephemeral.read_text().split()[0]) if ephemeral.exists() else 32768
    rng = random.Random()
    for _ in range(200):
        port = rng.randrange(20000, low)
        if port in taken:
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    return free_port()


@pytest.fixture
def shell(tmp_path: Path) -> Iterator[tuple[Shell, dict[str, str]]]:
    taken: set[int] = set()
    ports = {}
    for default in DEFAULT_PORTS:
        port = lasting_port(taken)
        taken.add(port)
        ports[default] = str(port)
    running = Shell(tmp_path, ports)
    yield running, ports
    running.stop_all()


@pytest.mark.parametrize("name", PAGES)
def test_every_block_is_one_the_test_runs(name: str) -> None:
    found = blocks((ROOT / "docs" / name).read_text(encoding="utf-8"))
    assert found, f"docs/{name} has no code blocks"
    for block in found:
        assert block.lang in ("sh", "text", *FILES), f"a block the test cannot check: {block}"
        assert (block.lang in FILES) == (block.file is not None), block
    ran = {  # each `arena A B`, alone or in $(...)
        f"{called[1]} {called[2]}".removesuffix(" &")
        for b in found
        if b.lang == "sh"
        for c in commands(b.body)
        for called in _INVOKED.finditer(c)
    }
    for step in PAGES[name].steps:
        assert any(r == step or r.startswith(step + " ") for r in ran), (
            f"the page lost `arena {step}`"
        )


@pytest.mark.parametrize("name", PAGES)
def test_the_page_runs_as_written(name: str, shell: tuple[Shell, dict[str, str]]) -> None:
    running, ports = shell
    last: tuple[str, subprocess.CompletedProcess[str]] | None = None
    stopped = False
    web: list[str] = []
    page = (ROOT / "docs" / name).read_text(encoding="utf-8")
    for block in blocks(with_ports(page, ports)):
        if block.lang in FILES:
            assert block.file is not None
            (running.directory / block.file).write_text(block.body)
        elif block.lang == "text":
            assert last is not None, "an output block before any command"
            command, done = last
            if not matches(block.body.rstrip("\n").splitlines(), done.stdout.splitlines()):
                pytest.fail(
                    f"`{command}` printed\n{done.stdout}\nnot what the page shows:\n{block.body}"
                )
            last = None
        else:
            for command in commands(block.body):
                if command == "make demo":
                    makefile = (ROOT / "Makefile").read_text()
                    assert re.search(r"^demo:.*\n\t.*-m arena\.demo$", makefile, re.M)
                elif command == ". .venv/bin/activate":
                    pass  # the wrappers on the PATH stand in for it
                elif command == "kill $(jobs -p)":
                    for address in web:  # before it stops: the page's bots are on the web
                        with urllib.request.urlopen(address + "/", timeout=30) as served:
                            html = served.read().decode()
                        assert all(shown in html for shown in PAGES[name].on_the_web), html
                    web.clear()
                    running.stop_all()
                    stopped = True
                elif command.endswith("&"):
                    started = running.start(command.removesuffix("&").strip())
                    if "leaderboard serve" in command:
                        assert isinstance(started, Service)
                        web.append(started.address)
                else:
                    done = running.run(command)
                    # Only the doctor's check after everything stopped is meant to fail.
                    expected = 1 if stopped and command == "arena doctor" else 0
                    assert done.returncode == expected, f"`{command}`: {done.stdout}{done.stderr}"
                    for path in _LIVE_PAGE.findall(done.stdout):
                        assert web, f"`{command}` printed a live page before the site started"
                        watch_live(web[0], path)
                    last = (command, done)
    assert stopped and not running.background
