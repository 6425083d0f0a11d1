"""The heavy modules go to one worker as one unit: each is where it is named, and each of
its tests is scheduled in that unit; a module whose tests share a module fixture is a
unit; every other test is a unit of its own."""

from __future__ import annotations

from pathlib import Path

from tests.support.scheduling import HEAVY, HeavyTogether, shares_a_module_fixture

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
    light = ["tests/games/test_every_game.py::test_a", "tests/games/test_every_game.py::test_b"]
    assert [scope(None, n) for n in light] == light  # type: ignore[arg-type]


def test_a_modules_tests_that_share_a_module_fixture_are_one_unit() -> None:
    scope = HeavyTogether._split_scope
    for module in (
        "tests/web/test_browser.py",  # its conftest's played matches
        "tests/referee/test_tls.py",  # fixtures of its own
        "tests/tournament/test_formats.py",  # the directory's shared stack
        "tests/node/test_node_bot.py",  # its conftest's house bot
        "tests/competition/test_invites.py",  # its conftest's API
    ):
        assert shares_a_module_fixture(module), module
        assert {scope(None, f"{module}::test_{n}") for n in range(3)} == {module}  # type: ignore[arg-type]
    for module in ("tests/games/test_every_game.py", "tests/tournament/test_recovery.py"):
        assert not shares_a_module_fixture(module), module
