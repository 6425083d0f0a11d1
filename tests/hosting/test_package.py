"""Package checks: what a submission may hold, and what its command may start."""

from __future__ import annotations

import gzip
import io
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from arena.hosting import example_packages
from arena.hosting.package import (
    MAX_EXTENSION_BYTES,
    MAX_FILES,
    MAX_NAME_BYTES,
    MAX_PACKAGE_BYTES,
    MAX_PATH_BYTES,
    MAX_RATIO,
    MAX_UNPACKED_BYTES,
    InvalidPackage,
    command_argv,
    digest,
    members,
    pack,
    scan,
    unpack,
)
from arena.hosting.runtimes import runtime

KiB, MiB = 1 << 10, 1 << 20
DEFLATE_MAX_RATIO = 1032
"""The most a deflate stream can inflate per byte: bounds what a refusal inflated by the
packed bytes it read."""


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


def header(name: str, size: int = 0) -> bytes:
    """One file's ustar header block, for archives too large to write member by member."""
    info = tarfile.TarInfo(name)
    info.size = size
    return info.tobuf(format=tarfile.USTAR_FORMAT)


class CountingReader(io.BytesIO):
    """The packed bytes, counting how many of them the reader asked for."""

    consumed = 0

    def read(self, size: int | None = -1) -> bytes:
        data = super().read(size)
        self.consumed += len(data)
        return data


def refused_reading(blob: bytes) -> tuple[str, int]:
    """Why the package is refused, and how many of its packed bytes were read first."""
    source = CountingReader(blob)
    with pytest.raises(InvalidPackage) as refused:
        scan(source)
    return str(refused.value), source.consumed


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
    # Named, not by their bytes: a gzip header holds the time it was made, and xdist's
    # workers must collect the same ids whenever each of them does.
    ids=["absolute", "dot-dot", "symlink", "hard-link", "fifo", "not-tar", "too-big", "bomb"],
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


def test_400000_empty_members_are_refused_at_the_member_limit_after_a_bounded_prefix() -> None:
    # The bomb: 400,000 empty members, as 400 gzip members of 1,000 headers each
    # (gzip allows concatenated members), so that building it costs one chunk's work.
    chunks = [gzip.compress(b"".join(header(f"c{c}-{i}") for i in range(1000))) for c in range(6)]
    blob = b"".join(chunks + chunks[-1:] * 394)
    assert len(blob) > 2 * MiB
    message, consumed = refused_reading(blob)
    assert message == (
        f"the package has more than {MAX_FILES:,} entries (files and directories, those its "
        f"paths imply included); at most {MAX_FILES:,} are allowed"
    )
    assert consumed <= 64 * KiB  # the headers of 5,001 members, and one read ahead


def test_a_gigabyte_of_zeros_is_refused_having_inflated_a_bounded_prefix() -> None:
    # 1 GiB of zeros, packed lazily: one gzip member of 1 MiB of zeros, 1,024 times.
    mebibyte_of_zeros = gzip.compress(bytes(MiB))
    zeros = mebibyte_of_zeros * 1024
    # A member that says so is refused at its header.
    message, consumed = refused_reading(gzip.compress(header("zeros", 1 << 30)) + zeros)
    assert message == f"the package unpacks to more than {MAX_UNPACKED_BYTES:,} bytes"
    assert consumed <= 16 * KiB
    # One that claims a size within the limit inflates no further than the ratio allows.
    message, consumed = refused_reading(gzip.compress(header("zeros", MAX_UNPACKED_BYTES)) + zeros)
    assert message.startswith(f"the package inflates more than {MAX_RATIO} to 1: ")
    assert consumed <= 64 * KiB
    assert consumed * DEFLATE_MAX_RATIO <= 64 * MiB  # inflated, at most, of the 1 GiB


@pytest.mark.parametrize("tar_format", [tarfile.PAX_FORMAT, tarfile.GNU_FORMAT])
def test_over_long_names_and_paths_are_refused_and_the_longest_allowed_pass(
    tar_format: int,
) -> None:
    def packed(name: str) -> bytes:
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz", format=tar_format) as archive:
            archive.addfile(tarfile.TarInfo(name), io.BytesIO(b""))
        return buffer.getvalue()

    longest_name = "n" * MAX_NAME_BYTES
    longest_path = "/".join(["d" * 99] * 10) + "/" + "f" * (MAX_PATH_BYTES - 1000)
    assert len(longest_path) == MAX_PATH_BYTES
    for name in (longest_name, longest_path, "é" * (MAX_NAME_BYTES // 2)):
        assert [m.path for m in members(packed(name))] == [name]
    with pytest.raises(InvalidPackage, match=r"has a name of 256 bytes; at most 255 are allowed"):
        members(packed("lib/" + "n" * (MAX_NAME_BYTES + 1)))
    with pytest.raises(InvalidPackage, match=r"has a name of 256 bytes"):
        members(packed("é" * 128))  # 128 characters, 256 bytes
    with pytest.raises(InvalidPackage, match=r"is 1,025 bytes long; at most 1,024 are allowed"):
        members(packed(longest_path + "f"))


def test_hostile_headers_are_refused_before_what_they_announce_is_read() -> None:
    huge_pax = tarfile.TarInfo("bot.py")
    huge_pax.pax_headers = {"comment": "x" * MiB}
    message, consumed = refused_reading(gzip.compress(huge_pax.tobuf(tarfile.PAX_FORMAT)))
    assert message.startswith("an extended header (pax or GNU long name) holds 1,048,")
    assert message.endswith(f"at most {MAX_EXTENSION_BYTES:,} are allowed")
    assert consumed <= 16 * KiB
    sparse = tarfile.TarInfo("table.bin")
    sparse.pax_headers = {"GNU.sparse.major": "1", "GNU.sparse.minor": "0"}
    message, _ = refused_reading(gzip.compress(sparse.tobuf(tarfile.PAX_FORMAT) + bytes(1024)))
    assert message.startswith("the package holds a sparse file")
    again = tar_gz(("bot.py", b"1", 0o644), ("bot.py", b"2", 0o644))
    with pytest.raises(InvalidPackage, match=r"'bot.py' is in the package twice: keep one"):
        members(again)
    clash = tar_gz(("lib", b"", 0o644), ("lib/x.py", b"", 0o644))
    with pytest.raises(InvalidPackage, match=r"'lib' is both a file and a directory"):
        members(clash)
    cut = tar_gz(("bot.py", b"x" * 10_000, 0o644))[:-100]
    with pytest.raises(InvalidPackage, match=r"not a readable tar.gz: its gzip stream is cut"):
        members(cut)


def test_the_example_packages_are_accepted(tmp_path: Path) -> None:
    house = pack(example_packages.house_package(tmp_path / "house"))
    (tmp_path / "unpacked").mkdir()
    assert unpack(house, tmp_path / "unpacked") == members(house)
    assert (tmp_path / "unpacked" / "bot.py").read_text() == example_packages.HOUSE_BOT
    try:
        node = pack(example_packages.node_package(tmp_path / "node"))
    except FileNotFoundError:
        pytest.skip("examples/node-bot/node_modules is missing: run `make node`")
    files = {m.path for m in members(node)}
    assert {"bot.js", "package.json", "proto/arena/v1/bot.proto"} <= files


@pytest.mark.skipif(shutil.which("tar") is None, reason="needs GNU tar")
@pytest.mark.parametrize("tar_format", ["gnu", "posix"])
def test_a_package_made_by_tar_from_inside_its_directory_is_accepted(
    tar_format: str, tmp_path: Path
) -> None:
    source = example_packages.python_package(tmp_path / "bot", "print('hi')\n")
    deep = source / "lib" / ("d" * 120)  # past ustar's 100 bytes: a long-name header
    deep.mkdir(parents=True)
    (deep / "run").write_bytes(b"#!/bin/sh\n")
    (deep / "run").chmod(0o755)
    blob = subprocess.run(
        ["tar", "-C", str(source), f"--format={tar_format}", "-czf", "-", "."],
        check=True,
        capture_output=True,
    ).stdout
    into = tmp_path / "unpacked"
    into.mkdir()
    found = {m.path: m.executable for m in unpack(blob, into)}
    assert found == {"bot.py": False, f"lib/{'d' * 120}/run": True}
    assert (into / "lib" / ("d" * 120) / "run").read_bytes() == b"#!/bin/sh\n"


def test_a_refusal_midway_through_unpacking_leaves_the_directory_empty(tmp_path: Path) -> None:
    blob = tar_gz(
        ("bot.py", b"print('hi')\n", 0o644),
        ("lib/util.py", b"", 0o644),
        special("lib/shadow", tarfile.SYMTYPE, "/etc/shadow"),
    )
    with pytest.raises(InvalidPackage, match=r"'lib/shadow' is a symbolic link"):
        unpack(blob, tmp_path)
    assert list(tmp_path.iterdir()) == []
