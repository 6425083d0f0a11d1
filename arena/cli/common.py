"""What every ``arena`` command shares and the parser may load: the one-line error and
the defaults. Nothing here imports grpc, protobuf or an engine (``arena.cli.parsers``)."""

from __future__ import annotations

import contextlib
import gc
import shlex
from collections.abc import Iterator, Sequence

DEFAULT_REPLAY_DIR = "replays"
DEFAULT_API = "127.0.0.1:50050"


class CliError(Exception):
    """A failure to report as one line: exit code 1."""


class UsageError(CliError):
    """Something wrong with the command line itself, found once it parsed (a flag out of
    range, flags that do not go together): exit code 2, as argparse's own errors."""


def parse_options(pairs: Sequence[str]) -> dict[str, str]:
    """``--option NAME=VALUE`` flags as a dict; the game checks names and values."""
    options = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise UsageError(f"--option takes NAME=VALUE, got {pair!r}")
        options[name] = value
    return options


def replay_command(replay_id: str, replay_dir: str = DEFAULT_REPLAY_DIR, referee: str = "") -> str:
    """The ``arena replay show`` line that finds this replay where it was written."""
    where = f" --referee {shlex.quote(referee)}" if referee else ""
    if not referee and replay_dir != DEFAULT_REPLAY_DIR:
        where = f" --replay-dir {shlex.quote(replay_dir)}"
    return f"arena replay show {replay_id}{where}"


@contextlib.contextmanager
def loading() -> Iterator[None]:
    """Around a server's imports: the cyclic collector off while they load (its passes
    over the objects grpc, protobuf, numpy and Celery make as they load free nothing,
    and took a seventh of the API's and a worker's start), those objects then frozen out
    of its reach (``gc.freeze``), so that the server's own collections skip them."""
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()
