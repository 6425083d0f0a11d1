"""What a page of docs/ names in the project (paths, modules, proto fields and methods,
classes, and the symbols given beside a file), checked against the checkout:
``missing(text)`` lists what is not there. The test of docs/architecture.md and the
links test of every page share it."""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import re
from pathlib import Path

from google.protobuf.descriptor import Descriptor

from arena.v1 import (
    arena_pb2,
    baloot_pb2,
    bid_euchre_pb2,
    bot_pb2,
    bridgette_pb2,
    cards_pb2,
    persian_rummy_pb2,
    referee_pb2,
    seep_pb2,
)
from workers.broker import PLAY_MATCH
from workers.dispatch import ADVANCE

ROOT = Path(__file__).resolve().parents[2]
TOP = ("arena", "workers", "tests", "bench", "deploy", "docs", "proto", "examples")
CELERY_TASKS = {PLAY_MATCH, ADVANCE}
NOT_MODULES = {"arena.v2"}
"""Dotted words that are not Python: the deal formula's version (``arena.v2 deal ...``)."""

PATH_NAMED = re.compile(
    r"(?<![\w./:{-])((?:" + "|".join(TOP) + r")/(?:[\w.-]+/)*(?:[\w-]+(?:\.[\w-]+)*)?)"
)
_BARE_FILE = re.compile(r"`([\w-]+(?:\.[\w-]+)*\.(?:py|json|yaml|yml|md|proto))`")
_DOTTED = re.compile(r"(?<![\w./-])((?:arena|workers|bench)(?:\.\w+)+)")
_QUALIFIED = re.compile(r"`([A-Z]\w*)\.(\w+)")
_BESIDE = re.compile(r"`([\w/]+\.py)`\s+\(((?:`\w+`(?:, )?)+)\)")
_BEFORE = re.compile(r"`(\w+)`\s+\(`([\w/]+\.py)`")
_IN = re.compile(r"`(\w+)`\s+in\s+`([\w/]+\.py)`")
_PROTOS = (
    arena_pb2,
    baloot_pb2,
    bid_euchre_pb2,
    bot_pb2,
    bridgette_pb2,
    cards_pb2,
    persian_rummy_pb2,
    referee_pb2,
    seep_pb2,
)


def _messages(descriptor: Descriptor) -> dict[str, Descriptor]:
    found = {descriptor.name: descriptor}
    for nested in descriptor.nested_types:
        found.update(_messages(nested))
    return found


@functools.cache
def proto_names() -> dict[str, set[str]]:
    """Each proto message's fields and each service's methods, by name."""
    names: dict[str, set[str]] = {}
    for module in _PROTOS:
        for message in module.DESCRIPTOR.message_types_by_name.values():
            for name, descriptor in _messages(message).items():
                names.setdefault(name, set()).update(descriptor.fields_by_name)
        for service in module.DESCRIPTOR.services_by_name.values():
            names.setdefault(service.name, set()).update(service.methods_by_name)
    return names


@functools.cache
def python_classes() -> dict[str, str]:
    """Every class of arena/ and workers/, to the module defining it."""
    classes: dict[str, str] = {}
    for top in ("arena", "workers"):
        for path in (ROOT / top).rglob("*.py"):
            if "v1" in path.parts:
                continue
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            for name in re.findall(r"^class (\w+)", path.read_text(), re.M):
                classes.setdefault(name, module.removesuffix(".__init__"))
    return classes


def defined_in(path: Path) -> set[str]:
    """The names a module defines or imports at its top level."""
    names: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def _dotted_problem(name: str) -> str | None:
    if name in NOT_MODULES or name in CELERY_TASKS:
        return None
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        module = ".".join(parts[:end])
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            found = False
        if found:
            target: object = importlib.import_module(module)
            for attribute in parts[end:]:
                if not hasattr(target, attribute):
                    return f"{name}: {module} has no {'.'.join(parts[end:])}"
                target = getattr(target, attribute)
            return None
    return f"{name}: no such module"


def _qualified_problem(owner: str, member: str) -> str | None:
    proto = proto_names()
    if owner in proto:
        return None if member in proto[owner] else f"{owner}.{member}: no such field or method"
    module = python_classes().get(owner)
    if module is None:
        return f"{owner}.{member}: no proto message or service, nor class, {owner}"
    if not hasattr(getattr(importlib.import_module(module), owner), member):
        return f"{owner}.{member}: {module}.{owner} has no {member}"
    return None


def missing(text: str) -> list[str]:
    """What the page names that the checkout does not have."""
    problems: list[str] = []
    for path in sorted({p.rstrip(".") for p in PATH_NAMED.findall(text)}):
        where = ROOT / path
        if not (where.is_dir() if path.endswith("/") else where.exists()):
            problems.append(f"{path}: no such {'directory' if path.endswith('/') else 'file'}")
    for name in sorted(set(_BARE_FILE.findall(text))):
        if not any(next((ROOT / top).rglob(name), None) for top in TOP):
            problems.append(f"{name}: no such file anywhere in the project")
    for name in sorted(set(_DOTTED.findall(text))):
        problem = _dotted_problem(name)
        if problem:
            problems.append(problem)
    for owner, member in sorted(set(_QUALIFIED.findall(text))):
        problem = _qualified_problem(owner, member)
        if problem:
            problems.append(problem)
    beside = [(s, p) for p, symbols in _BESIDE.findall(text) for s in re.findall(r"\w+", symbols)]
    for symbol, path in sorted({*beside, *_BEFORE.findall(text), *_IN.findall(text)}):
        if (ROOT / path).is_file() and symbol not in defined_in(ROOT / path):
            problems.append(f"{symbol}: not defined in {path}")
    return problems
