"""The public contract: generated code is current, and the .proto files follow Google's API
style closely enough that a bot author needs nothing else."""

from __future__ import annotations

import filecmp
import subprocess
import sys
import zipfile
from pathlib import Path

import grpc_tools
import pytest
from google.protobuf import descriptor_pb2
from grpc_tools import protoc

ROOT = Path(__file__).resolve().parents[2]
PROTO_DIR = ROOT / "proto"
PROTO_FILES = sorted((PROTO_DIR / "arena/v1").glob("*.proto"))


def test_generated_code_is_up_to_date(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(PROTO_DIR / "generate.py"), str(tmp_path)], check=True)
    fresh = sorted(p.name for p in (tmp_path / "arena/v1").iterdir())
    committed = sorted(
        p.name for p in (ROOT / "arena/v1").iterdir() if p.name != "__init__.py" and p.is_file()
    )
    assert fresh == committed, "run `make proto`"
    _, mismatch, errors = filecmp.cmpfiles(
        tmp_path / "arena/v1", ROOT / "arena/v1", fresh, shallow=False
    )
    assert not mismatch and not errors, f"stale generated code {mismatch}: run `make proto`"


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> list[descriptor_pb2.FileDescriptorProto]:
    out = tmp_path_factory.mktemp("descriptors") / "arena.pb"
    include = Path(grpc_tools.__file__).parent / "_proto"
    args = [
        "protoc",
        f"-I{PROTO_DIR}",
        f"-I{include}",
        "--include_source_info",
        f"--descriptor_set_out={out}",
        *(str(p.relative_to(PROTO_DIR)) for p in PROTO_FILES),
    ]
    assert protoc.main(args) == 0
    return list(descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file)


def _commented(file: descriptor_pb2.FileDescriptorProto) -> set[tuple[int, ...]]:
    return {
        tuple(loc.path) for loc in file.source_code_info.location if loc.leading_comments.strip()
    }


def _elements(file: descriptor_pb2.FileDescriptorProto) -> list[tuple[str, tuple[int, ...]]]:
    """Every message, field, enum, enum value, service and method with its source path."""
    found: list[tuple[str, tuple[int, ...]]] = []

    def enum(e: descriptor_pb2.EnumDescriptorProto, path: tuple[int, ...]) -> None:
        found.append((e.name, path))
        for i, v in enumerate(e.value):
            found.append((f"{e.name}.{v.name}", (*path, 2, i)))

    def message(m: descriptor_pb2.DescriptorProto, path: tuple[int, ...]) -> None:
        found.append((m.name, path))
        for i, f in enumerate(m.field):
            found.append((f"{m.name}.{f.name}", (*path, 2, i)))
        for i, nested in enumerate(m.nested_type):
            if not nested.options.map_entry:
                message(nested, (*path, 3, i))
        for i, e in enumerate(m.enum_type):
            enum(e, (*path, 4, i))

    for i, m in enumerate(file.message_type):
        message(m, (4, i))
    for i, e in enumerate(file.enum_type):
        enum(e, (5, i))
    for i, s in enumerate(file.service):
        found.append((s.name, (6, i)))
        for j, method in enumerate(s.method):
            found.append((f"{s.name}.{method.name}", (6, i, 2, j)))
    return found


def test_every_message_field_enum_and_rpc_is_commented(
    files: list[descriptor_pb2.FileDescriptorProto],
) -> None:
    missing = [
        f"{file.name}: {name}"
        for file in files
        for name, path in _elements(file)
        if path not in _commented(file)
    ]
    assert not missing


def test_package_is_arena_v1_and_enums_start_unspecified(
    files: list[descriptor_pb2.FileDescriptorProto],
) -> None:
    def enums(file: descriptor_pb2.FileDescriptorProto) -> list[descriptor_pb2.EnumDescriptorProto]:
        found = list(file.enum_type)
        stack = list(file.message_type)
        while stack:
            m = stack.pop()
            found.extend(m.enum_type)
            stack.extend(m.nested_type)
        return found

    assert {f.package for f in files} == {"arena.v1"}
    for file in files:
        for e in enums(file):
            zero = e.value[0]
            assert zero.number == 0 and zero.name.endswith("_UNSPECIFIED"), e.name


def test_wheel_ships_generated_code_the_replay_schema_and_the_sites_files(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
    )
    (wheel,) = tmp_path.glob("card_arena-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for module in (
        "bot_pb2.py",
        "bot_pb2_grpc.py",
        "referee_pb2.py",
        "cards_pb2.py",
        "bid_euchre_pb2.py",
    ):
        assert f"arena/v1/{module}" in names
    assert "arena/replay/replay.schema.json" in names
    assert "arena/web/static/site.css" in names  # the leaderboard's, served from the package
    assert "arena/py.typed" in names
    assert any(n.endswith("entry_points.txt") for n in names)
