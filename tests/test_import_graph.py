"""The packages of ``arena`` as their module-level imports (read with ``ast``) connect
them: no cycle among packages (a game's folder counting as one), and the
web site's pure modules import without uvicorn."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.workers.import_graph import cycles, imports

ROOT = Path(__file__).resolve().parents[1]
ARENA = ROOT / "arena"


def modules() -> dict[str, Path]:
    found = {}
    for path in ARENA.rglob("*.py"):
        if "v1" in path.relative_to(ARENA).parts:
            continue
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


def package(module: str) -> str:
    """``arena.x`` for a module of ``arena/x``; a game's folder (``arena.games.<game>``) is
    a package of its own: it may use the whole arena (a bot, the viewer's helpers), while
    ``arena.games`` itself, what everything else imports, reaches a folder only through
    the registry, at run time."""
    parts = module.split(".")
    if parts[:2] == ["arena", "games"] and len(parts) > 2 and (ARENA / "games" / parts[2]).is_dir():
        return ".".join(parts[:3])
    return ".".join(parts[:2])


def package_edges() -> dict[str, set[str]]:
    """Package -> the other packages its modules import at module level."""
    found = modules()
    edges: dict[str, set[str]] = {}
    for module, path in found.items():
        top, _ = imports(path, set(found))
        edges.setdefault(package(module), set()).update(
            package(m) for m in top if package(m) != package(module)
        )
    return edges


def test_no_cycle_between_packages() -> None:
    assert not cycles(package_edges())


def test_the_web_package_does_not_load_its_server() -> None:
    code = (
        "import json, sys; import arena.web, arena.web.pages, arena.web.relay, arena.web.author, "
        "arena.web.sessions, arena.web.forms, arena.web.uploads, "
        "arena.web.matchlist, arena.web.standings; print(json.dumps(sorted(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout.splitlines()[-1]))
    assert "uvicorn" not in loaded and "arena.web.server" not in loaded


def test_the_web_package_still_serves() -> None:
    import arena.web
    from arena.web.server import serve

    assert arena.web.serve is serve
