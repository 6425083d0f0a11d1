"""The public contract: generated code is current, and the .proto files follow Google's API
style closely enough that a bot author needs nothing else."""

from __future__ import annotations

import filecmp
import random
import subprocess
import sys
import zipfile
from pathlib import Path

import grpc_tools
import pytest
from google.protobuf import descriptor_pb2
from grpc_tools import protoc

from arena.games import Game, all_games
from arena.hosting.package import MAX_PACKAGE_BYTES
from arena.hosting.transfer import PIECE_BYTES
from arena.limits import MAX_REQUEST_BYTES
from arena.referee.bot_client import MAX_MESSAGE_BYTES
from arena.referee.match import HELLO_TIMEOUT_S, MATCH_ENDED_TIMEOUT_S
from arena.throttle import BURST, READS_PER_S

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
    # The contract itself, beside the code generated from it, and it compiles from there.
    assert {f"arena/v1/{p.name}" for p in PROTO_FILES} <= names
    unpacked = tmp_path / "unpacked"
    zipfile.ZipFile(wheel).extractall(unpacked)
    include = str(Path(grpc_tools.__file__).parent / "_proto")
    out = tmp_path / "compiled"
    out.mkdir()
    compiled = protoc.main(
        ["protoc", f"-I{unpacked}", f"-I{include}", f"--python_out={out}", "arena/v1/bot.proto"]
    )
    assert compiled == 0 and (out / "arena/v1/bot_pb2.py").is_file()
    assert "arena/web/static/site.css" in names  # the leaderboard's, served from the package
    assert "arena/py.typed" in names
    assert any(n.endswith("entry_points.txt") for n in names)


def test_the_bot_contract_states_what_the_referee_holds_bots_to() -> None:
    """The numbers a bot author needs are in bot.proto, and they are the referee's own."""
    text = (PROTO_DIR / "arena/v1/bot.proto").read_text()
    for game in all_games():
        assert f'"{game.info.name}"' in text
    assert f"deadline of {HELLO_TIMEOUT_S:g} s or the match's move deadline" in text
    assert f"waits at most {MATCH_ENDED_TIMEOUT_S:g} s" in text
    assert f"at most {MAX_MESSAGE_BYTES // 2**20} MiB" in text
    # What the warnings are about: ids past a double's integers, and a real action 0.
    offered = set().union(*(offered_ids(game) for game in all_games()))
    assert max(offered) > 2**53 and "exceed 2^53" in text
    assert 0 in offered and "0 is a real" in text


def offered_ids(game: Game, decisions: int = 300) -> set[int]:
    """The action ids offered in the first ``decisions`` of one random playout."""
    rng = random.Random(7)
    state = game.new_state(7, {})
    offered: set[int] = set()
    for _ in range(decisions):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        offered.update(legal)
        state.apply(rng.choice(legal))
    return offered


def test_the_api_and_referee_state_the_limits_they_hold_callers_to() -> None:
    """The 1 MiB request limit, the 16 MiB package and the read budget are the servers'
    own numbers."""
    for name in ("arena", "referee"):
        text = (PROTO_DIR / f"arena/v1/{name}.proto").read_text()
        assert f"over {MAX_REQUEST_BYTES // 2**20} MiB" in text
        assert f"past {MAX_PACKAGE_BYTES // 2**20} MiB" in text
    assert PIECE_BYTES < MAX_REQUEST_BYTES
    api = (PROTO_DIR / "arena/v1/arena.proto").read_text()
    assert f"{PIECE_BYTES // 2**10} KiB makes a good piece" in api
    # And the budget of costly reads: the API's defaults.
    assert f"at most {READS_PER_S:g} a second, in bursts\n// of {BURST}" in api
