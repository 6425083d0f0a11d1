"""Package checks: what a submission may hold, and what its command may start."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from arena.hosting.package import (
    MAX_PACKAGE_BYTES,
    MAX_UNPACKED_BYTES,
    InvalidPackage,
    command_argv,
    digest,
    members,
    pack,
    unpack,
)
from arena.hosting.runtimes import runtime


def tar_gz(*entries: tarfile.TarInfo | tuple[str, bytes, int]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for entry in entries:
            if isinstance(entry, tarfile.TarInfo):
                archive.addfile(entry)
                continue
            name, data, mode = entry
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), mode
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def special(name: str, kind: bytes, target: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info


GOOD = tar_gz(("bot.py", b"print('hi')\n", 0o644), ("bin/engine", b"\x7fELF", 0o755))


def test_a_good_package_unpacks_with_its_modes(tmp_path: Path) -> None:
    assert [(m.path, m.executable) for m in members(GOOD)] == [
        ("bot.py", False),
        ("bin/engine", True),
    ]
    unpack(GOOD, tmp_path)
    assert (tmp_path / "bot.py").read_text() == "print('hi')\n"
    assert (tmp_path / "bin" / "engine").stat().st_mode & 0o100
    assert digest(GOOD) == digest(bytes(GOOD)) and len(digest(GOOD)) == 64


@pytest.mark.parametrize(
    ("blob", "message"),
    [
        (tar_gz(("/etc/cron.d/x", b"", 0o644)), "'/etc/cron.d/x' would land outside the package"),
        (tar_gz(("a/../../x", b"", 0o644)), "'a/../../x' would land outside the package"),
        (tar_gz(special("l", tarfile.SYMTYPE, "/etc/shadow")), "symbolic link (to '/etc/shadow')"),
        (tar_gz(("a", b"", 0o644), special("b", tarfile.LNKTYPE, "a")), "hard link (to 'a')"),
        (tar_gz(special("p", tarfile.FIFOTYPE)), "'p' is a device or special file"),
        (b"not a tarball", "the package is not a readable tar.gz"),
        (b"\0" * (MAX_PACKAGE_BYTES + 1), f"at most {MAX_PACKAGE_BYTES:,} are allowed"),
        (
            tar_gz(("zeros", b"\0" * (MAX_UNPACKED_BYTES + 1), 0o644)),
            f"unpacks to more than {MAX_UNPACKED_BYTES:,} bytes",
        ),
    ],
)
def test_a_bad_package_is_refused_and_says_why(blob: bytes, message: str, tmp_path: Path) -> None:
    with pytest.raises(InvalidPackage) as refused:
        unpack(blob, tmp_path)
    assert message in str(refused.value)
    assert list(tmp_path.iterdir()) == []  # nothing was written


def test_a_command_must_start_something_the_package_has() -> None:
    files = members(GOOD)
    python, binary = runtime("python3.11"), runtime("binary")
    assert command_argv("python3 -u bot.py --fast", python, files) == [
        "python3", "-u", "bot.py", "--fast",
    ]  # fmt: skip
    assert command_argv("./bin/engine --threads 1", binary, files)[0] == "./bin/engine"
    for command, runtime_, message in [
        ("python3 missing.py", python, "runs 'missing.py', which is not in the package"),
        ("bash bot.py", python, "starts 'bash', which is not in the package"),
        ("bot.py", binary, "'bot.py' is not executable"),
        ("python3 bot.py", binary, "starts 'python3', which is not in the package"),
        ("", python, "the command is empty"),
        ("python3 'bot.py", python, "the command does not parse"),
    ]:
        with pytest.raises(InvalidPackage) as refused:
            command_argv(command, runtime_, files)
        assert message in str(refused.value), command


def test_only_the_documented_runtimes_exist() -> None:
    with pytest.raises(
        ValueError, match=r"unknown runtime 'ruby3'; allowed: python3\.11, node20, binary"
    ):
        runtime("ruby3")


def test_packing_a_directory_gives_the_same_digest_for_the_same_files(tmp_path: Path) -> None:
    for copy in ("one", "two"):
        (tmp_path / copy / "lib").mkdir(parents=True)
        (tmp_path / copy / "bot.py").write_text("print('hi')\n")
        (tmp_path / copy / "lib" / "run").write_bytes(b"#!/bin/sh\n")
        (tmp_path / copy / "lib" / "run").chmod(0o755)
    one, two = pack(tmp_path / "one"), pack(tmp_path / "two")
    assert digest(one) == digest(two)
    found = {m.path: m.executable for m in members(one)}
    assert found == {"bot.py": False, "lib/run": True}


def test_packing_refuses_a_link(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("")
    (tmp_path / "secret").symlink_to("/etc/shadow")
    with pytest.raises(InvalidPackage, match="'secret' is a symbolic link"):
        pack(tmp_path)
