"""Bots the arena starts itself from a command: one process per seat.

Two seats in one process could pass each other their hidden cards through memory; two
processes can only talk through channels the organiser can see or forbid. So a command
given per team is started once for every seat of that team. In the command, ``{port}``
becomes a free loopback port for that process and ``{seat}`` its seat number. A command
must hold ``{port}``: the process learns its port nowhere else, and the arena would wait
for it on a port it never listens on.

Commands and bots already running mix: an entry without ``{port}`` (and without a
space, which no address has) is the address of a running bot (``--bot``), passed
through as it is, so ``arena match play --bot A --bot-command CMD`` plays A as team 0
and a process of CMD per seat of team 1.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import time
from collections.abc import Iterator, Sequence

import grpc

from arena.processes import free_port

READY_TIMEOUT_S = 20.0
PORT = "{port}"


class LaunchError(RuntimeError):
    """A bot command did not start serving; the message says which and why."""


def is_command(entry: str) -> bool:
    """Whether ``entry`` is a command to start (it holds ``{port}``), not a bot's address."""
    return PORT in entry


def missing_port(command: str) -> str:
    """Why ``command`` cannot be started, in one line (``arena.cli.parsers.match`` says
    the same to the command line)."""
    return (
        f"bot command {command!r} has no {PORT}: the arena starts each process on a free "
        f"port of its choosing and puts the number where {PORT} is, as in "
        f"'python bot.py --port {PORT}'"
    )


def per_seat(commands: Sequence[str], seat_teams: Sequence[int]) -> list[str]:
    """The command (or running bot's address) of each seat, from one per seat or one
    per team."""
    if len(commands) == len(seat_teams):
        return list(commands)
    if len(commands) == max(seat_teams) + 1:
        return [commands[team] for team in seat_teams]
    raise LaunchError(
        f"give one bot (--bot or --bot-command) per seat ({len(seat_teams)}) or per team "
        f"({max(seat_teams) + 1}), got {len(commands)}"
    )


def _wait_until_serving(process: subprocess.Popen[bytes], address: str, command: str) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    with grpc.insecure_channel(address) as channel:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise LaunchError(f"bot command exited with code {process.returncode}: {command}")
            try:
                grpc.channel_ready_future(channel).result(timeout=0.2)
                return
            except grpc.FutureTimeoutError:
                continue
    raise LaunchError(f"bot command did not listen on {address} within {READY_TIMEOUT_S:g} s")


@contextlib.contextmanager
def launched(commands: Sequence[str]) -> Iterator[list[str]]:
    """Start one process per command (one per seat); yields their addresses and stops
    every one of them, and whatever they started, at the end. An entry that is a running
    bot's address (no ``{port}``) is yielded as it is. A command without ``{port}`` is
    refused (LaunchError) before anything starts."""
    for template in commands:
        if not is_command(template) and any(c.isspace() for c in template):
            raise LaunchError(missing_port(template))
    processes: list[subprocess.Popen[bytes]] = []
    try:
        addresses = []
        for seat, template in enumerate(commands):
            if not is_command(template):
                addresses.append(template)
                continue
            port = free_port()
            command = template.replace(PORT, str(port)).replace("{seat}", str(seat))
            try:
                argv = shlex.split(command)
                process = subprocess.Popen(
                    argv,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                )
            except (OSError, ValueError) as error:
                raise LaunchError(f"cannot start bot command {command!r}: {error}") from None
            processes.append(process)
            address = f"127.0.0.1:{port}"
            _wait_until_serving(process, address, template)  # as the user wrote it
            addresses.append(address)
        yield addresses
    finally:
        for process in processes:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
