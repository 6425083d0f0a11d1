"""The Redis key layout: ``arena.store.keys`` builds every key, the table in
``arena.store``'s docstring documents exactly those, and no module of the arena, the
workers or the benches spells a key out by hand."""

from __future__ import annotations

import ast
import inspect
import re
import typing
from collections.abc import Callable
from pathlib import Path

import arena.store
from arena.store import keys

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("arena", "workers", "bench")
OWN = ROOT / "arena" / "store" / "keys.py"
PLACEHOLDERS = {"tournament_id": "id", "address": "addr"}
"""The table's names for a builder's parameters, where they differ."""
NOT_KEYS = {"pattern", "per_match"}
"""Builders of a pattern, and of a group of keys the other builders make."""
_DOCUMENTED = re.compile(r"^``(arena:[^`]+)``\s+(?:hash|str|set|zset|list)\s", re.M)
_A_KEY = re.compile(r"arena:(?!\s)")
"""How a key starts (``arena: error: ...`` is a message, not a key)."""


def builders() -> dict[str, Callable[..., str]]:
    """Every key builder of ``arena.store.keys``, by name."""
    found: dict[str, Callable[..., str]] = {}
    for name, function in inspect.getmembers(keys, inspect.isfunction):
        if name.startswith("_") or name in NOT_KEYS or function.__module__ != keys.__name__:
            continue
        assert typing.get_type_hints(function)["return"] is str, name
        found[name] = function
    return found


def built(function: Callable[..., str]) -> str:
    """The key's pattern as the table writes it: each parameter as ``{name}``."""
    parameters = inspect.signature(function).parameters
    return function(*("{" + PLACEHOLDERS.get(p, p) + "}" for p in parameters))


def hand_built(source: str, filename: str = "<source>") -> list[tuple[int, str]]:
    """Where ``source`` writes a string, or the start of an f-string, that begins as a
    key does: (line, the string)."""
    return [
        (node.lineno, node.value)
        for node in ast.walk(ast.parse(source, filename))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and _A_KEY.match(node.value)
    ]


def test_every_key_built_is_in_the_table_and_the_table_has_no_other() -> None:
    assert arena.store.__doc__ is not None
    table = _DOCUMENTED.findall(arena.store.__doc__)
    assert len(table) == len(set(table)), "a key is in the table twice"
    patterns = {name: built(function) for name, function in builders().items()}
    assert {n: p for n, p in patterns.items() if p not in table} == {}, "not in the table"
    assert set(table) - set(patterns.values()) == set(), "in the table, built by none"
    assert all(p.startswith(keys.PREFIX) for p in patterns.values())
    assert set(keys.per_match("{id}")) <= set(table)


def test_the_keys_are_the_ones_data_was_stored_under() -> None:
    """Spot checks of the strings themselves: stored data must still be found."""
    assert keys.bots() == "arena:bots"
    assert keys.package("ab") == "arena:package:ab"
    assert keys.tournament("t-1") == "arena:t:t-1"
    assert keys.match_logs("t-1") == "arena:t:t-1:match-logs"
    assert keys.scheduling("t-1") == "arena:t:t-1:scheduling"
    assert keys.referee_playing("10.0.0.1:50051") == "arena:referee:10.0.0.1:50051:playing"
    parts = ("tries", "holders", "playing", "failed-on", "failures")  # the scripts' order
    assert keys.per_match("t") == tuple(f"arena:t:t:{part}" for part in parts)
    assert keys.pattern() == "arena:*" and keys.pattern("t") == "arena:t*"


def test_no_key_is_spelled_out_outside_the_keys_module() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text!r}"
        for top in SCANNED
        for path in sorted((ROOT / top).rglob("*.py"))
        if path != OWN and "v1" not in path.relative_to(ROOT).parts
        for line, text in hand_built(path.read_text(), str(path))
    ]
    assert found == [], "build these with arena.store.keys:\n" + "\n".join(found)


def test_the_scan_sees_keys_in_strings_and_f_strings_but_not_messages() -> None:
    source = (
        'a = "arena:bots"\nb = f"arena:t:{t}:live"\nc = "arena:" + x\n'
        'd = f"arena: error: {e}"\ne = "[arena: cut]"\nf = "see arena:bots"\n'
    )
    assert sorted(text for _, text in hand_built(source)) == ["arena:", "arena:bots", "arena:t:"]
    assert hand_built(OWN.read_text()) != []  # the one module that may
