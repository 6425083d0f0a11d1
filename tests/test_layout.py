"""No test module imports another test module.

What several test files share lives in tests/support/ (or in a helper module that is not a
test); a ``test_*.py`` file or a ``conftest.py`` is never imported from another file, so a
test file can be moved, renamed or deleted without breaking others.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def is_test_module(dotted: str) -> bool:
    """Whether a dotted module name names a test module or a conftest."""
    last = dotted.rsplit(".", 1)[-1]
    return last == "conftest" or last.startswith("test_")


def resolve(node: ast.ImportFrom, module: str) -> str:
    """The absolute module a ``from ... import`` in module names (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    package = module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports_of_tests(source: str, module: str) -> list[str]:
    """Each import, in the source of module, of a test module or conftest, as ``line: name``."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source, filename=module)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            imported = resolve(node, module)
            names = [imported, *(f"{imported}.{alias.name}" for alias in node.names)]
        else:
            continue
        found.extend(
            f"{node.lineno}: {name}"
            for name in names
            if name.startswith("tests.") and is_test_module(name)
        )
    return found


def offences(tests: Path) -> list[str]:
    """Every import, in every Python file under the tests package, of a test module or conftest."""
    return [
        f"{path.relative_to(tests.parent)}:{found}"
        for path in sorted(tests.rglob("*.py"))
        for found in imports_of_tests(
            path.read_text(encoding="utf-8"),
            ".".join(path.relative_to(tests.parent).with_suffix("").parts),
        )
    ]


def test_no_test_module_imports_another() -> None:
    assert offences(TESTS) == []


def test_the_check_catches_planted_imports() -> None:
    module = "tests.web.test_planted"
    sources = {
        "from tests.web.test_pages import FakeSource\n": ["tests.web.test_pages"],
        "from tests.tournament.conftest import Arena\n": ["tests.tournament.conftest"],
        "from tests.tournament import conftest, test_soak\n": [
            "tests.tournament.conftest",
            "tests.tournament.test_soak",
        ],
        "import tests.metrics.test_referee_metrics\n": ["tests.metrics.test_referee_metrics"],
        "def f() -> None:\n    from .test_viewer import served\n": ["tests.web.test_viewer"],
        "from ..conftest import next_database\n": ["tests.conftest"],
        "from tests.support.http import get\nfrom tests.web.dom import Document\n": [],
    }
    for source, expected in sources.items():
        found = imports_of_tests(source, module)
        assert [line.split(": ", 1)[1] for line in found] == expected, source


def test_the_check_finds_a_planted_file(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    (tests / "web").mkdir(parents=True)
    (tests / "web" / "test_pages.py").write_text("FakeSource = object\n")
    (tests / "web" / "test_planted.py").write_text(
        "import os\n\nfrom tests.web.test_pages import FakeSource\n"
    )
    assert offences(tests) == ["tests/web/test_planted.py:3: tests.web.test_pages"]
