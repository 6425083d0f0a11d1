"""Module-level imports read with ``ast``, and the cycles among them: what
``tests/workers/test_imports.py`` and ``tests/test_import_graph.py`` check (a helper, not
a test module, so that neither test imports the other)."""

from __future__ import annotations

import ast
from pathlib import Path


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imported(node: ast.Import | ast.ImportFrom, known: set[str]) -> set[str]:
    """The known modules an import statement loads."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in known}
    base = node.module or ""
    found = {base} if base in known else set()
    found |= {f"{base}.{alias.name}" for alias in node.names} & known
    return found


def imports(path: Path, known: set[str]) -> tuple[set[str], set[str]]:
    """The known modules ``path`` imports at module level (outside ``TYPE_CHECKING``),
    and those it imports only inside functions."""
    tree = ast.parse(path.read_text(), str(path))
    top: set[str] = set()
    lazy: set[str] = set()

    def visit(node: ast.AST, in_function: bool) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for orelse in node.orelse:
                visit(orelse, in_function)
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            (lazy if in_function else top).update(_imported(node, known))
            return
        inside = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for child in ast.iter_child_nodes(node):
            visit(child, inside)

    visit(tree, False)
    return top, lazy - top


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every cycle found by a depth-first search (each through its first node seen)."""
    found: list[list[str]] = []
    done: set[str] = set()

    def walk(node: str, path: list[str]) -> None:
        if node in path:
            found.append([*path[path.index(node) :], node])
            return
        if node in done:
            return
        for nxt in sorted(edges.get(node, ())):
            walk(nxt, [*path, node])
        done.add(node)

    for node in sorted(edges):
        walk(node, [])
    return found
