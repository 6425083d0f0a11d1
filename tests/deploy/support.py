"""What the deployment tests share: the files under deploy/, the real ``arena`` command
line parser, and where each arena process listens and which addresses it dials."""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import os
import re
import shlex
import shutil
import subprocess
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from arena import cli

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
PROMETHEUS = DEPLOY / "prometheus"
GRAFANA = DEPLOY / "grafana"
DASHBOARD = GRAFANA / "dashboards" / "arena.json"
COMPOSE = DEPLOY / "compose.yaml"

VERSION: str = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
PROJECT_IMAGE = f"card-arena:{VERSION}"
PROJECT_REPOSITORY = "card-arena"

ALL_INTERFACES = "0.0.0.0"
SHELL_OPERATORS = {"&&", "||", ";", "|", "&", "(", ")"}
# Environment that the code reads besides ARENA_*: prometheus-client's multiprocess
# directory (workers/multiproc.py).
OTHER_ARENA_ENV = {"PROMETHEUS_MULTIPROC_DIR"}


def load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


def load_yaml_documents(path: Path) -> list[Any]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc is not None]


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = load_yaml(COMPOSE)
    return loaded


def k8s_documents() -> list[dict[str, Any]]:
    """Every object of the kustomization, in the order of its resources."""
    kustomization = load_yaml(K8S / "kustomization.yaml")
    docs: list[dict[str, Any]] = []
    for resource in kustomization["resources"]:
        docs.extend(load_yaml_documents(K8S / resource))
    return docs


def promtool() -> str:
    path = shutil.which("promtool")
    if path is None:
        pytest.fail("promtool is not installed: run `make promtool` (Debian's prometheus package)")
    return path


def run_promtool(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [promtool(), *args], capture_output=True, text=True, timeout=60, cwd=cwd, check=False
    )


# --- the arena command line --------------------------------------------------------


@contextlib.contextmanager
def container_environment(env: Mapping[str, str]) -> Iterator[None]:
    """os.environ as a container with ``env`` would see it: the CLI reads defaults such
    as ``--redis`` from the environment when its parser is built."""
    saved = dict(os.environ)
    try:
        for name in list(os.environ):
            if name.startswith("ARENA_") or name in OTHER_ARENA_ENV:
                del os.environ[name]
        os.environ.update(env)
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def parse_arena(argv: Sequence[str], env: Mapping[str, str] | None = None) -> argparse.Namespace:
    """Parse ``arena ARGV`` with the real parser, or fail with argparse's message."""
    errors = io.StringIO()
    try:
        with (
            container_environment(env or {}),
            contextlib.redirect_stderr(errors),
            contextlib.redirect_stdout(io.StringIO()),
        ):
            return cli.parser().parse_args(list(argv))
    except SystemExit:
        message = errors.getvalue().strip()
        raise AssertionError(f"`arena {shlex.join(argv)}` does not parse: {message}") from None


@functools.cache
def _structure() -> argparse.ArgumentParser:
    """The parser's commands and subcommands (defaults are read from the environment
    when a parser is built, so parse_arena builds a fresh one each time)."""
    return cli.parser()


def command_path(argv: Sequence[str]) -> tuple[str, ...]:
    """The (sub)command names that ``argv`` starts with in the real parser:
    ``("referee", "serve")``, ``("worker",)``, ``("leaderboard", "serve")``."""
    parser = _structure()
    path: list[str] = []
    for token in argv:
        subcommands = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subcommands or token not in subcommands[0].choices:
            break
        path.append(token)
        parser = subcommands[0].choices[token]
    return tuple(path)


def shell_commands(script: str) -> list[list[str]]:
    """The simple commands of a ``sh -c`` script: ``a && b; c`` gives [a, b, c]."""
    lexer = shlex.shlex(script, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    commands: list[list[str]] = [[]]
    for token in lexer:
        if token in SHELL_OPERATORS:
            commands.append([])
        else:
            commands[-1].append(token)
    return [command for command in commands if command]


def arena_invocations(entrypoint: Sequence[str] | None, command: Sequence[str]) -> list[list[str]]:
    """The ``arena`` argument lists a container runs. The image's entrypoint is
    ``tini -- arena``, so with no entrypoint of its own the command is arena's arguments;
    ``sh -c SCRIPT`` runs each ``arena ...`` line of the script."""
    if not entrypoint:
        return [list(command)]
    full = [*entrypoint, *command]
    if full[:2] == ["sh", "-c"] and len(full) == 3:
        return [c[1:] for c in shell_commands(full[2]) if c[0] == "arena"]
    if full[0] == "arena":
        return [full[1:]]
    raise AssertionError(f"unexpected entrypoint {full!r}")


@dataclass(frozen=True)
class Dial:
    """An address a process connects to, and the flag or variable it came from."""

    host: str
    port: int
    source: str
    handed_on: bool = False
    """A setting in the environment that this process does not dial itself (the API has
    the workers' ARENA_REDIS_URL for its Celery producer, so that the two share one list
    of settings)."""


@dataclass(frozen=True)
class Invocation:
    argv: tuple[str, ...]
    args: argparse.Namespace
    env: Mapping[str, str]

    @property
    def command(self) -> str:
        """``referee serve``, ``worker``, ``bot register``, ``leaderboard serve``..."""
        return " ".join(command_path(self.argv))

    @property
    def serves(self) -> bool:
        return hasattr(self.args, "host") or getattr(self.args, "metrics_port", None) is not None

    @property
    def grpc_health_port(self) -> int | None:
        """The port of the standard gRPC health service (referee and API only)."""
        if self.command in ("referee serve", "api serve"):
            port: int = self.args.port
            return port
        return None

    def listen_ports(self) -> set[int]:
        ports: set[int] = set()
        if hasattr(self.args, "host") and hasattr(self.args, "port"):
            ports.add(self.args.port)
        if getattr(self.args, "metrics_port", None) is not None:
            ports.add(self.args.metrics_port)
        return ports

    def bind_hosts(self) -> set[str]:
        hosts: set[str] = set()
        if hasattr(self.args, "host"):
            hosts.add(self.args.host)
        if hasattr(self.args, "metrics_host") and self.args.metrics_port is not None:
            hosts.add(self.args.metrics_host)
        return hosts

    def metrics_port(self) -> int | None:
        port: int | None = getattr(self.args, "metrics_port", None)
        return port

    def dials(self) -> list[Dial]:
        """Every address this process connects to, as the running code would see it."""
        dials: list[Dial] = []
        if hasattr(self.args, "redis"):
            dials.append(redis_dial(self.args.redis, "--redis / ARENA_REDIS_URL"))
        if self.command == "worker":
            referees = self.args.referee or self.env.get("ARENA_REFEREES", "127.0.0.1:50051").split(
                ","
            )
            dials.extend(host_port(r.strip(), "--referee / ARENA_REFEREES") for r in referees)
        if self.command == "api serve":  # SubmitBot's CheckBot; none without a list
            listed = self.args.referee or self.env.get("ARENA_REFEREES", "").split(",")
            dials.extend(
                host_port(r.strip(), "--referee / ARENA_REFEREES") for r in listed if r.strip()
            )
        if hasattr(self.args, "api"):
            dials.append(host_port(self.args.api, "--api / ARENA_API"))
        if self.command == "bot register":
            dials.append(host_port(self.args.address, "bot address"))
        # Settings a process may not use itself but hands on (the API's Celery producer).
        settings: list[Dial] = []
        for name, value in self.env.items():
            if name == "ARENA_REDIS_URL":
                settings.append(redis_dial(value, name))
            elif name == "ARENA_REFEREES":
                settings.extend(host_port(r.strip(), name) for r in value.split(",") if r.strip())
            elif name == "ARENA_API":
                settings.append(host_port(value, name))
        dialled = {(d.host, d.port) for d in dials}
        dials.extend(
            Dial(d.host, d.port, d.source, handed_on=True)
            for d in settings
            if (d.host, d.port) not in dialled
        )
        return dials


def invocations(
    entrypoint: Sequence[str] | None, command: Sequence[str], env: Mapping[str, str]
) -> list[Invocation]:
    found = []
    for argv in arena_invocations(entrypoint, command):
        found.append(Invocation(tuple(argv), parse_arena(argv, env), dict(env)))
    return found


def host_port(address: str, source: str) -> Dial:
    host, sep, port = address.rpartition(":")
    assert sep and port.isdigit(), f"{source}: {address!r} is not HOST:PORT"
    return Dial(host, int(port), source)


def redis_dial(url: str, source: str) -> Dial:
    parts = urlsplit(url)
    assert parts.scheme in ("redis", "rediss"), f"{source}: {url!r} is not a redis:// URL"
    assert parts.hostname, f"{source}: {url!r} has no host"
    return Dial(parts.hostname, parts.port or 6379, source)


def redis_port() -> int:
    """The port deploy/redis.conf makes Redis listen on (Redis' default unless set)."""
    match = re.search(r"^port\s+(\d+)", (DEPLOY / "redis.conf").read_text(), re.MULTILINE)
    return int(match.group(1)) if match else 6379


def arena_env_names_in_code() -> set[str]:
    """Every ARENA_* name the code mentions (reads, or documents next to the reader)."""
    names: set[str] = set()
    for package in ("arena", "workers"):
        for path in (ROOT / package).rglob("*.py"):
            if "v1" in path.relative_to(ROOT).parts:
                continue
            names.update(re.findall(r"\bARENA_[A-Z0-9_]+\b", path.read_text()))
    return names


def image_is_pinned(image: str) -> bool:
    """``repo:tag`` with a tag that is not ``latest`` (or a digest)."""
    if "@sha256:" in image:
        return True
    name, sep, tag = image.rpartition(":")
    return bool(sep) and "/" not in tag and tag not in ("", "latest") and bool(name)
