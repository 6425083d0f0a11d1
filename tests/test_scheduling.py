"""The heavy modules go to one worker as one unit: each is where it is named, and each of
its tests is scheduled in that unit, every other test in a unit of its own."""

from __future__ import annotations

from pathlib import Path

from tests.support.scheduling import HEAVY, HeavyTogether

ROOT = Path(__file__).resolve().parent.parent


def test_every_heavy_module_is_where_it_is_named() -> None:
    assert all((ROOT / module).is_file() for module in HEAVY)


def test_the_heavy_modules_tests_are_one_unit_and_the_others_one_each() -> None:
    scope = HeavyTogether._split_scope
    units = {
        scope(None, f"{module}::test_{n}[seep]")  # type: ignore[arg-type]
        for module in HEAVY
        for n in range(3)
    }
    assert units == {"heavy"}
    light = ["tests/web/test_viewer.py::test_a", "tests/web/test_viewer.py::test_b"]
    assert [scope(None, n) for n in light] == light  # type: ignore[arg-type]
