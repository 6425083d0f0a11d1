"""Whether a ``binary`` bot's program can run where nothing of the host is shown.

The ``binary`` runtime gives a sandbox no ``/usr``: no dynamic loader, no C library, no
shell. A program that needs one of them would fail with a bare "No such file or
directory" when its match starts; it is refused when it is submitted instead, with the
reason. Read from the ELF header and program headers: a program that names an
interpreter (``PT_INTERP``) is dynamically linked; a static-pie one has none.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from pathlib import Path

from arena.hosting.package import InvalidPackage

PT_INTERP = 3
STATIC_HINT = "link it statically (e.g. gcc -static, CGO_ENABLED=0 go build, musl targets)"


def not_static(path: Path) -> str | None:
    """Why ``path`` is not a statically linked executable, or None if it is one."""
    try:
        with path.open("rb") as handle:
            head = handle.read(64)
            if head.startswith(b"#!"):
                line = head.split(b"\n")[0].decode(errors="replace")
                return (
                    f"it is a script ({line}), and the binary runtime has no interpreter: "
                    "use the python3.11 or node20 runtime, or " + STATIC_HINT
                )
            if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] not in (1, 2):
                return "it is not an ELF executable; " + STATIC_HINT
            order = "<" if head[5] == 1 else ">"
            if head[4] == 2:
                (phoff,) = struct.unpack_from(order + "Q", head, 32)
                entsize, count = struct.unpack_from(order + "HH", head, 54)
            else:
                (phoff,) = struct.unpack_from(order + "I", head, 28)
                entsize, count = struct.unpack_from(order + "HH", head, 42)
            handle.seek(phoff)
            table = handle.read(entsize * count)
    except OSError as error:
        return f"it cannot be read: {error.strerror}"
    for index in range(count):
        (kind,) = struct.unpack_from(order + "I", table, index * entsize)
        if kind == PT_INTERP:
            return (
                "it is dynamically linked, and the binary runtime has no loader or libraries; "
                + STATIC_HINT
            )
    return None


def check_program(runtime: str, package: Path, argv: Sequence[str]) -> None:
    """InvalidPackage, saying why, if ``runtime`` is ``binary`` and the program the
    command starts (a file of the unpacked ``package``) is not a static executable."""
    if runtime == "binary" and (reason := not_static(package / argv[0])):
        raise InvalidPackage(f"{argv[0]!r}: {reason}")
