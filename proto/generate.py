"""Generate the Python code for proto/arena/v1 into an output root (default: the repo).

Run as ``make proto``. The test suite runs it into a temporary directory and compares,
so stale generated code fails CI.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import grpc_tools
from grpc_tools import protoc  # type: ignore[import-untyped]

PROTO_ROOT = Path(__file__).resolve().parent


def generate(out: Path) -> None:
    files = sorted(
        str(p.relative_to(PROTO_ROOT)) for p in (PROTO_ROOT / "arena/v1").glob("*.proto")
    )
    include = str(Path(grpc_tools.__file__).parent / "_proto")
    bin_dir = Path(sys.executable).parent
    plugins = {}
    for name in ("protoc-gen-mypy", "protoc-gen-mypy_grpc"):
        found = shutil.which(name, path=str(bin_dir)) or shutil.which(name)
        if found is None:
            raise SystemExit(f"{name} not found: pip install mypy-protobuf")
        plugins[name] = found
    args = [
        "protoc",
        f"-I{PROTO_ROOT}",
        f"-I{include}",
        *(f"--plugin={name}={path}" for name, path in plugins.items()),
        f"--python_out={out}",
        f"--grpc_python_out={out}",
        f"--mypy_out={out}",
        f"--mypy_grpc_out={out}",
        *files,
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")


if __name__ == "__main__":
    generate(Path(sys.argv[1]) if len(sys.argv) > 1 else PROTO_ROOT.parent)
