"""Formats are closed: everything that differs from one format to another is the format's
to say (``arena.tournament.formats.base.Format``), and no code outside
``arena/tournament/formats/`` asks which format a tournament has.

The scan reads every module of ``arena/``, ``workers/`` and ``bench/`` (less the formats
themselves and the generated ``arena/v1/*_pb2*``) with ``ast`` and names each place that
branches on a format: a comparison (``==``, ``!=``, ``in``, ``is``...) or a ``match``
against a format's name (``"ladder"``, ``"round_robin"`` too), a ``TournamentFormat``
value (``arena_pb2.FORMAT_LADDER``), a constant named for a format (``LADDER``), a
format's class (``Ladder``, also in ``isinstance``), a ``.format`` attribute (what a spec
says its format is), or a collection of any of those (``x in FORMATS_LIKE_THIS``, the
collection named anywhere in the scanned code); and a mapping keyed by formats (a table
that branches by lookup). Tests may compare formats as they like: they are not scanned.
"""

from __future__ import annotations

import argparse
import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.cli.parsers import tournament as tournament_parser
from arena.tournament import formats
from arena.tournament.formats import FORMATS, CliParam
from arena.v1 import arena_pb2

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("arena", "workers", "bench")
FORMATS_DIR = Path("arena", "tournament", "formats")
GENERATED = Path("arena", "v1")

NAMES = {spelled for name in FORMATS for spelled in (name, name.replace("-", "_"))}
"""Format names as strings: ``round-robin`` and ``round_robin``..."""
ENUM_VALUES = set(arena_pb2.TournamentFormat.keys())
"""``FORMAT_UNSPECIFIED``, ``FORMAT_LADDER``..."""
CONSTANTS = {name.replace("-", "_").upper() for name in FORMATS}
"""``LADDER``, ``ROUND_ROBIN``...: constants named for a format."""
CLASSES = {f.__name__ for f in FORMATS.values()}
"""``Ladder``, ``Swiss``..."""
IDENTIFIERS = ENUM_VALUES | CONSTANTS | CLASSES


@dataclass(frozen=True)
class Leak:
    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


def scanned_files(root: Path) -> Iterator[Path]:
    for top in SCANNED:
        for path in sorted((root / top).rglob("*.py")):
            relative = path.relative_to(root)
            if relative.is_relative_to(FORMATS_DIR):
                continue
            if relative.is_relative_to(GENERATED) and "_pb2" in path.name:
                continue
            yield path


def _identifier(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


class Finder:
    """What in a module names a format; ``collections`` are the names of module-level
    constants that hold formats (found in a first pass over every scanned module)."""

    def __init__(self, collections: Iterable[str] = ()) -> None:
        self.collections = set(collections)

    def names_format(self, node: ast.expr) -> str | None:
        """What ``node`` says of a format (None: nothing), looking into literals."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return f"the format name {node.value!r}" if node.value in NAMES else None
        if isinstance(node, ast.Attribute) and node.attr == "format":
            return f"the format of {ast.unparse(node.value)}"
        name = _identifier(node)
        if name is not None and name in IDENTIFIERS:
            return f"the format {name}"
        if name is not None and name in self.collections:
            return f"{name}, a collection of formats"
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return next(filter(None, map(self.names_format, node.elts)), None)
        if isinstance(node, ast.Dict):
            return next(filter(None, (self.names_format(k) for k in node.keys if k)), None)
        if isinstance(node, ast.Call) and _identifier(node.func) in ("set", "frozenset", "tuple"):
            return next(filter(None, map(self.names_format, node.args)), None)
        return None

    def pattern_names_format(self, pattern: ast.pattern) -> str | None:
        for node in ast.walk(pattern):
            if isinstance(node, ast.MatchValue):
                found = self.names_format(node.value)
            elif isinstance(node, ast.MatchClass):
                found = self.names_format(node.cls)
            else:
                continue
            if found:
                return found
        return None

    def leaks(self, tree: ast.AST, path: str) -> list[Leak]:
        found = []
        for node in ast.walk(tree):
            what = None
            if isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
                named = next(filter(None, map(self.names_format, operands)), None)
                what = f"compares with {named}" if named else None
            elif isinstance(node, ast.Match):
                named = self.names_format(node.subject) or next(
                    filter(None, (self.pattern_names_format(c.pattern) for c in node.cases)), None
                )
                what = f"matches on {named}" if named else None
            elif isinstance(node, ast.Call) and _identifier(node.func) in (
                "isinstance",
                "issubclass",
            ):
                named = next(filter(None, map(self.names_format, node.args[1:])), None)
                what = f"checks the type against {named}" if named else None
            elif isinstance(node, ast.Dict):
                named = next(filter(None, (self.names_format(k) for k in node.keys if k)), None)
                what = f"looks up by {named}" if named else None
            if what:
                found.append(Leak(path, getattr(node, "lineno", 0), what))
        return found


def format_collections(trees: Iterable[ast.Module]) -> set[str]:
    """Module-level constants whose value is a collection of formats (``frozenset({...})``,
    a tuple of names...): comparing with one branches on the format as surely."""
    finder = Finder()
    found = set()
    for tree in trees:
        for node in tree.body:
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                targets, value = [node.target], node.value
            else:
                continue
            collection = isinstance(value, ast.Tuple | ast.List | ast.Set | ast.Dict | ast.Call)
            if collection and finder.names_format(value):
                found |= {t.id for t in targets if isinstance(t, ast.Name)}
    return found


def leaks(root: Path) -> list[Leak]:
    trees = {path: ast.parse(path.read_text(), str(path)) for path in scanned_files(root)}
    finder = Finder(format_collections(trees.values()))
    found = (
        leak
        for path, tree in trees.items()
        for leak in finder.leaks(tree, str(path.relative_to(root)))
    )
    return sorted(found, key=lambda leak: (leak.path, leak.line))


def test_no_code_outside_the_formats_branches_on_a_format() -> None:
    found = leaks(ROOT)
    assert not found, "ask the format instead (arena.tournament.formats.base.Format):\n" + (
        "\n".join(map(str, found))
    )


PLANTED = """
from arena.tournament.spec import LADDER
from arena.v1 import arena_pb2

SEEDED = frozenset({"knockout", "swiss"})
TITLES = {arena_pb2.FORMAT_SPRT: "SPRT"}  # leak: a table keyed by format


def leaky(spec, record, args, t, fmt, kind, name):
    if spec.format == LADDER:  # leak
        pass
    if name != LADDER:  # leak
        pass
    if name == "knockout":  # leak
        pass
    if t.spec.format != arena_pb2.FORMAT_LADDER:  # leak
        pass
    if args.format in ("swiss", "gauntlet"):  # leak
        pass
    if kind == "round_robin":  # leak
        pass
    if name in SEEDED:  # leak
        pass
    if isinstance(fmt, Ladder):  # leak
        pass
    if type(fmt) is Swiss:  # leak
        pass
    match name:  # leak
        case "ladder":
            pass
    match t.spec.format:  # leak
        case _:
            pass
    match fmt:  # leak
        case Knockout():
            pass
    if record.spec.format:  # a test of truth, no comparison: not counted
        pass
"""

CLEAN = """
def generic(fmt, kind, t, spec):
    if fmt.plays_forever and kind == "throw":
        pass
    if formats.get(spec.format).open_lineup:
        pass
    if isinstance(t, arena_pb2.SwissStandings):
        pass
    return {"swiss rounds": 3}, spec.format
"""


def _scan(tmp_path: Path, source: str) -> list[Leak]:
    """``source`` as a module of ``arena/``, beside a format that may name itself."""
    module = tmp_path / "arena" / "planted.py"
    module.parent.mkdir(parents=True, exist_ok=True)
    module.write_text(source)
    inside = tmp_path / "arena" / "tournament" / "formats" / "inside.py"
    inside.parent.mkdir(parents=True, exist_ok=True)
    inside.write_text('def fine(name):\n    return name == "ladder"\n')
    return leaks(tmp_path)


def test_the_scan_finds_every_planted_leak_and_says_where(tmp_path: Path) -> None:
    found = _scan(tmp_path, PLANTED)
    planted = {i + 1 for i, line in enumerate(PLANTED.splitlines()) if "# leak" in line}
    assert sorted(leak.line for leak in found) == sorted(planted), "\n".join(map(str, found))
    assert {leak.path for leak in found} == {str(Path("arena", "planted.py"))}
    assert any(leak.what == "compares with the format of spec" for leak in found)
    assert any(leak.what == "compares with the format LADDER" for leak in found)
    assert any(leak.what == "compares with the format name 'knockout'" for leak in found)
    assert any(leak.what == "compares with SEEDED, a collection of formats" for leak in found)
    assert any(leak.what == "checks the type against the format Ladder" for leak in found)


def test_the_scan_passes_generic_code(tmp_path: Path) -> None:
    assert _scan(tmp_path, CLEAN) == []


# The interface itself.


def test_every_format_says_what_generic_code_asks() -> None:
    values = set(arena_pb2.TournamentFormat.values()) - {arena_pb2.FORMAT_UNSPECIFIED}
    assert {f.proto for f in FORMATS.values()} == values
    assert all(formats.by_proto(f.proto) is f for f in FORMATS.values())
    assert formats.by_proto(arena_pb2.FORMAT_UNSPECIFIED) is formats.get(formats.ROUND_ROBIN)
    assert formats.by_proto(arena_pb2.TournamentFormat.ValueType(max(values) + 1)) is None
    oneof = arena_pb2.TournamentSpec.DESCRIPTOR.oneofs_by_name["format_params"]
    taken = [f.params_field for f in FORMATS.values() if f.params_field]
    assert sorted(taken) == sorted(field.name for field in oneof.fields)
    for f in FORMATS.values():
        assert f.title and f.name in FORMATS
        for param in f.cli_params:
            assert f.params_field is not None
            message = arena_pb2.TournamentSpec.DESCRIPTOR.fields_by_name[f.params_field]
            assert message.message_type is not None
            assert param.field in message.message_type.fields_by_name
    # Those ranked by their leaderboard: every format without standings of its own, and
    # the ladder, whose standings are only who it does not pair now.
    shown = {name for name, f in FORMATS.items() if f.shows_leaderboard}
    assert shown == {"round-robin", "gauntlet", "ladder"}


def test_the_parser_declares_exactly_the_formats_and_their_flags() -> None:
    """``--help`` loads no format (they load numpy), so the parser names them itself."""
    assert tuple(FORMATS) == tournament_parser.FORMATS
    params: list[CliParam] = [p for f in FORMATS.values() for p in f.cli_params]
    assert sorted(flag for flag, _ in tournament_parser.FORMAT_FLAGS) == sorted(
        p.flag for p in params
    )
    parser = argparse.ArgumentParser()
    tournament_parser.tournament(parser)
    args = parser.parse_args(["run", "--format", "swiss"])
    for param in params:
        assert hasattr(args, param.dest), param


@pytest.mark.parametrize(
    ("name", "fair_play", "limit"),
    [
        ("round-robin", "open", None),
        ("round-robin", "sealed", 1),
        ("sprt", "sealed", None),
        ("ladder", "open", 1),
        ("ladder", "trusted", 1),
    ],
)
def test_the_default_author_limit_is_the_formats(
    name: str, fair_play: str, limit: int | None
) -> None:
    assert formats.get(name).author_limit(fair_play) == limit


def test_only_an_open_ladder_reveals_each_match() -> None:
    revealing = {
        (name, mode)
        for name, f in FORMATS.items()
        for mode in ("open", "sealed", "trusted")
        if f.reveals_each_match(mode)
    }
    assert revealing == {("ladder", "open")}
