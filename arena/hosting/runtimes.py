"""The runtimes a hosted bot may ask for, and what each one shows the bot.

A sandbox sees nothing of the host but what its runtime names here, read-only, plus the
bot's own files. ``python3.11`` is the interpreter the arena itself runs on, with its
standard library, the arena's SDK and the SDK's dependencies importable (gRPC,
protobuf, and numpy for learned bots), not the rest of the arena's environment;
``node20`` is the host's Node.js 20 executable alone (the package brings its own
``node_modules``); both see the host's shared libraries (``/usr/lib``) and no program of
``/usr/bin``. ``binary`` is a statically linked executable in the package, which needs
nothing of the host, and sees nothing of it: no ``/usr`` at all.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import arena

SDK_DIR = "/opt/arena/sdk"
SITE_DIR = "/opt/arena/site"
LIBRARIES = ("/usr/lib", "/usr/lib64")
"""The host's shared libraries and dynamic loader, for runtimes that are dynamically
linked. Nothing secret lives there (no /etc, no /home, no /root)."""
SDK_SITE = ("grpc", "google", "typing_extensions.py", "numpy", "numpy.libs")
"""What of the arena's site-packages a Python bot may import: gRPC and protobuf (which
the SDK needs), the typing backport gRPC uses, and numpy."""


WORDS = {"python3.11": ("python3.11", "python3", "python"), "node20": ("node",), "binary": ()}
"""What a command of each runtime may start with; anything else is a file of the package."""


class RuntimeUnavailable(ValueError):
    """A runtime this host cannot offer; the message says which and why."""


@dataclass(frozen=True)
class Runtime:
    name: str
    description: str
    binds: tuple[tuple[str, str], ...] = ()
    """(host path, sandbox path) pairs, bound read-only."""
    system: tuple[str, ...] = ()
    """Host directories shown at their own paths, read-only (``LIBRARIES``)."""
    hidden: tuple[str, ...] = ()
    """Sandbox directories inside a bind that are covered by an empty one."""
    env: tuple[tuple[str, str], ...] = ()
    programs: tuple[tuple[str, str], ...] = ()
    """Words a command may start with (``python3``), and the host executable each one
    runs; any other command starts with a file of the package."""

    def program(self, word: str) -> str | None:
        return dict(self.programs).get(word)


def _python() -> Runtime:
    if sys.version_info[:2] != (3, 11):
        raise RuntimeUnavailable(f"python3.11: the arena runs on Python {sys.version.split()[0]}")
    prefix = Path(sys.base_prefix).resolve()
    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    package = Path(arena.__file__).resolve().parent
    executable = prefix / "bin" / "python3.11"
    if not executable.exists():
        raise RuntimeUnavailable(f"python3.11: no interpreter at {executable}")
    own_site = sysconfig.get_paths(vars={"base": str(prefix), "platbase": str(prefix)})
    return Runtime(
        name="python3.11",
        description="CPython 3.11 with the arena SDK (import arena.bots.sdk), grpc, "
        "protobuf and numpy",
        binds=(
            (str(prefix), str(prefix)),
            *((str(site / n), f"{SITE_DIR}/{n}") for n in SDK_SITE if (site / n).exists()),
            (str(package), f"{SDK_DIR}/arena"),
        ),
        system=_libraries(),
        hidden=(own_site["purelib"],) if Path(own_site["purelib"]).is_dir() else (),
        env=(("PYTHONPATH", f"{SDK_DIR}:{SITE_DIR}"), ("PYTHONDONTWRITEBYTECODE", "1")),
        programs=tuple((word, str(executable)) for word in WORDS["python3.11"]),
    )


def _node() -> Runtime:
    node = shutil.which("node")
    if node is None:
        raise RuntimeUnavailable("node20: Node.js is not installed on this host")
    resolved = Path(node).resolve()
    version = subprocess.run([str(resolved), "--version"], capture_output=True, text=True).stdout
    if not version.startswith("v20."):
        raise RuntimeUnavailable(f"node20: this host's Node.js is {version.strip() or 'unknown'}")
    return Runtime(
        name="node20",
        description="Node.js 20; bring your node_modules in the package",
        binds=((str(resolved), str(resolved)),),
        system=_libraries(),
        programs=tuple((word, str(resolved)) for word in WORDS["node20"]),
    )


def _libraries() -> tuple[str, ...]:
    return tuple(path for path in LIBRARIES if Path(path).is_dir())


def _binary() -> Runtime:
    return Runtime(
        name="binary",
        description="a statically linked executable of the package, in any language",
    )


_FACTORIES = {"python3.11": _python, "node20": _node, "binary": _binary}
NAMES = tuple(_FACTORIES)


def declared(name: str) -> Runtime:
    """The runtime ``name`` as the allow-list declares it, whatever this host has: enough
    to check a command that another host (a referee, a pod) will run; ValueError for a
    name not on the list."""
    if name not in WORDS:
        raise ValueError(f"unknown runtime {name!r}; allowed: {', '.join(NAMES)}")
    return Runtime(name=name, description="", programs=tuple((w, w) for w in WORDS[name]))


@cache
def runtime(name: str) -> Runtime:
    """The runtime called ``name``; ValueError for one not on the allow-list, or
    ``RuntimeUnavailable`` for one this host lacks."""
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ValueError(f"unknown runtime {name!r}; allowed: {', '.join(NAMES)}")
    return factory()
