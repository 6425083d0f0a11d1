"""No function or method of the game engines (every module under ``arena/games/``) is
longer than 60 lines, counted from its ``def`` to its last line, docstring included
(``end_lineno - lineno + 1``). Their complexity is ruff's C901 (``max-complexity = 20``
in pyproject.toml, checked for ``arena/games/**`` only).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import arena.games

MAX_LINES = 60
GAMES = Path(arena.games.__file__).resolve().parent

Function = ast.FunctionDef | ast.AsyncFunctionDef


def functions(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, Function]]:
    """Every function of ``tree``, nested ones and methods included, with its dotted name
    (``SeepState._settle``)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            name = prefix + node.name
            if not isinstance(node, ast.ClassDef):
                yield name, node
            yield from functions(node, name + ".")
        else:
            yield from functions(node, prefix)


def engine_functions() -> Iterator[tuple[str, int, str, int]]:
    """(module path, line, dotted name, length in lines) of every engine function."""
    for path in sorted(GAMES.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for name, node in functions(tree):
            assert node.end_lineno is not None
            length = node.end_lineno - node.lineno + 1
            yield path.relative_to(GAMES.parents[1]).as_posix(), node.lineno, name, length


def test_no_engine_function_is_longer_than_60_lines() -> None:
    too_long = [
        f"{path}:{line} {name} is {length} lines"
        for path, line, name, length in engine_functions()
        if length > MAX_LINES
    ]
    assert not too_long, f"engine functions over {MAX_LINES} lines (split them):\n" + "\n".join(
        too_long
    )


def test_the_walk_sees_every_engine_module_and_method() -> None:
    """Not vacuous: the five engines and their shared modules are read, methods and
    functions nested in them included."""
    found = list(engine_functions())
    paths = {path for path, _, _, _ in found}
    for module in ("seep", "bid_euchre", "bridgette", "persian_rummy", "baloot", "tricks", "api"):
        assert any(f"arena/games/{module}" in path for path in paths), module
    names = {name for _, _, name, _ in found}
    assert {"check_position", "SeepState._settle", "Turn.plays_of"} <= names
    nested = ast.parse("class A:\n    def f(self):\n        def g():\n            pass\n")
    assert [name for name, _ in functions(nested)] == ["A.f", "A.f.g"]
