"""How ``workers`` modules import each other: no cycle among their module-level imports
(read with ``ast``), few imports left inside functions, each module importable on its own
in a fresh interpreter, and the stores, the settings and the scheduler's step importable
without Celery (importing a store no longer builds the Celery app)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.workers.import_graph import cycles, imports

WORKERS = Path(__file__).resolve().parents[2] / "workers"
MODULES = sorted(f"workers.{p.stem}" for p in WORKERS.glob("*.py") if p.stem != "__init__")

LAZY = {
    ("workers.app", "workers.watchdog"): "the watchdog starts once the worker is ready; "
    "it steps the scheduler, whose task needs this app",
    ("workers.dispatch", "workers.scheduler"): "only to resume a tournament: the API "
    "imports dispatch and should not load the scheduler to submit",
    ("workers.dispatch", "workers.stores"): "as above",
    ("workers.deliveries", "workers.app"): "the watchdog's hand-back alone needs the app",
}
"""The imports of one ``workers`` module by another inside a function, and why."""


def graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    known = set(MODULES)
    top, lazy = {}, {}
    for module in MODULES:
        top[module], lazy[module] = imports(WORKERS / f"{module.split('.')[1]}.py", known)
        top[module].discard(module)
    return top, lazy


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []


def test_the_graph_reads_module_level_imports_only() -> None:
    top, lazy = graph()
    assert "workers.app" in top["workers.scheduler"]
    assert "workers.watchdog" not in top["workers.app"]
    assert "workers.watchdog" in lazy["workers.app"]


def test_no_import_cycle_among_the_workers_modules() -> None:
    top, _ = graph()
    assert cycles(top) == []


def test_the_stores_do_not_import_the_celery_app() -> None:
    top, lazy = graph()
    for module in ("workers.stores", "workers.settings", "workers.schedule_step"):
        assert "workers.app" not in top[module] | lazy[module], module
    assert top["workers.settings"] == set() and lazy["workers.settings"] == set()


def test_few_imports_are_left_inside_functions() -> None:
    _, lazy = graph()
    left = {(module, imported) for module, found in lazy.items() for imported in found}
    assert left == set(LAZY)


LOADED = """
import importlib, json, sys
importlib.import_module(sys.argv[1])
print(json.dumps(sorted(sys.modules)))
"""


def loaded(module: str) -> set[str]:
    """The modules a fresh interpreter has loaded once it imported ``module``."""
    done = subprocess.run(
        [sys.executable, "-c", LOADED, module],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=WORKERS.parent,
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


@pytest.mark.parametrize("module", MODULES)
def test_each_module_imports_on_its_own(module: str) -> None:
    assert module in loaded(module)


@pytest.mark.parametrize("module", ["workers.stores", "workers.settings", "workers.schedule_step"])
def test_importing_a_store_or_the_settings_does_not_load_celery(module: str) -> None:
    found = loaded(module)
    assert not {m for m in found if m.split(".")[0] in ("celery", "kombu")}
    assert "workers.app" not in found


def test_the_scheduler_step_loads_neither_redis_nor_celery() -> None:
    found = loaded("workers.schedule_step")
    assert not {m for m in found if m.split(".")[0] in ("redis", "celery", "kombu", "grpc")}
