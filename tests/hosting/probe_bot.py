"""A hosted bot that tries what a hostile one would, reports each outcome on stdout as
one JSON line, then serves like any bot. Argument: host ports to try to connect to."""

from __future__ import annotations

import json
import os
import socket
import sys


def attempt(action) -> str:  # type: ignore[no-untyped-def]
    try:
        action()
    except OSError as error:
        return f"refused: {error.__class__.__name__}"
    return "allowed"


def connect(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=2):
        pass


def read(path: str) -> None:
    with open(path, "rb") as handle:
        handle.read(1)


def write(path: str) -> None:
    with open(path, "w") as handle:
        handle.write("x")


def fill(path: str) -> None:
    with open(path, "wb") as handle:
        for _ in range(64):
            handle.write(b"\0" * 65536)
            handle.flush()


report = {
    "uid": os.getuid(),
    "marker_before": os.path.exists("/tmp/marker"),
    "write_tmp": attempt(lambda: write("/tmp/marker")),
    "write_package": attempt(lambda: write("/bot/planted")),
    "write_usr": attempt(lambda: write("/usr/planted")),
    "write_root": attempt(lambda: write("/planted")),
    "fill_socket_dir": attempt(lambda: fill("/run/arena/filler")),
    "dns": attempt(lambda: socket.getaddrinfo("example.com", 80)),
    "visible_root": sorted(os.listdir("/")),
}
for path in sys.argv[1:]:
    if path.isdigit():
        report[f"connect {path}"] = attempt(lambda p=int(path): connect(p))
    else:
        report[f"read {path}"] = attempt(lambda p=path: read(p))
print("PROBE " + json.dumps(report), flush=True)

from arena.bots.examples.random_bot import RandomBot  # noqa: E402
from arena.bots.sdk import serve  # noqa: E402

serve(RandomBot())
