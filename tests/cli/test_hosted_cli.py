"""``arena author add`` and ``arena bot submit|versions|logs|list`` for hosted bots, run
as a user runs them, against a real API that starts each submission in a sandbox."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.hosting.package import digest, pack
from arena.local_redis import LocalRedis
from arena.processes import arena_command
from arena.store import BotRegistry, RegisteredBot, TournamentStore, keys
from arena.store.bot_logs import BotLogStore, SeatOutput
from arena.store.tournaments import FINISHED
from arena.tournament.schedule import ScheduledMatch
from tests.api.hosted import OPERATOR, HostedApi, python_bot, start_api
from tests.records import spec


@pytest.fixture(scope="module")
def api(local_redis: LocalRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostedApi]:
    started = start_api(local_redis, tmp_path_factory.mktemp("hosted-cli"))
    yield started
    started.stop()


def arena(*args: str, token: str = "") -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "ARENA_API_TOKEN"}
    if token:
        environment["ARENA_API_TOKEN"] = token
    return subprocess.run(
        arena_command(*args), capture_output=True, text=True, timeout=120, env=environment
    )


def one_line_error(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("arena: error: "), done.stderr
    return done.stderr.removeprefix("arena: error: ").rstrip("\n")


def test_an_author_submits_a_directory_and_lists_its_versions(
    api: HostedApi, tmp_path: Path
) -> None:
    added = arena("author", "add", "ana", "--api", api.address, "--token", OPERATOR)
    assert added.returncode == 0, added.stderr
    token = added.stdout.strip()
    assert added.stdout == f"{token}\n" and token.startswith("author-")
    assert "shown only now" in added.stderr

    directory = python_bot(tmp_path / "ana-bot")
    # Over gRPC's default message size of 4 MiB: the CLI sends it and the API takes it.
    (directory / "weights.bin").write_bytes(os.urandom(5 << 20))
    blob = pack(directory)
    submit = ("bot", "submit", "ana-bot", str(directory), "--api", api.address,
              "--runtime", "python3.11", "--command", "python3 bot.py")  # fmt: skip
    first = arena(*submit, token=token)
    assert first.returncode == 0, first.stderr
    shown = re.fullmatch(
        r"submitted ana-bot@(\d{8}T\d{6}Z): sha256 ([0-9a-f]{12}), ([\d,]+) bytes, "
        r"random 1, plays .*seep.*\n",
        first.stdout,
    )
    assert shown is not None, first.stdout
    default_label = shown.group(1)
    assert shown.group(2) == digest(blob)[:12]
    assert int(shown.group(3).replace(",", "")) == len(blob) > 4 << 20

    (tmp_path / "token").write_text(token + "\n")
    second = arena(*submit, "--version", "v2", "--token-file", str(tmp_path / "token"))
    assert second.returncode == 0, second.stderr
    assert second.stdout.startswith("submitted ana-bot@v2: ")

    listed = arena("bot", "versions", "ana-bot", "--api", api.address)
    assert listed.returncode == 0, listed.stderr
    header, newest, older, note = listed.stdout.splitlines()
    assert header.split() == [
        "VERSION", "SUBMITTED", "(UTC)", "RUNTIME", "SHA256", "BYTES", "AUTHOR", "COMMAND",
    ]  # fmt: skip
    assert newest.split()[:2] == ["v2", "*"] and older.split()[0] == default_label
    assert newest.split()[4:] == [
        "python3.11", digest(blob)[:12], f"{len(blob):,}", "ana", "python3", "bot.py",
    ]  # fmt: skip
    assert note.startswith("* the version tournaments play")

    bots = arena("bot", "list", "--api", api.address).stdout.splitlines()
    (line,) = [b for b in bots if b.startswith("ana-bot ")]
    assert line.split()[1:3] == ["hosted", "(ana)"]


def test_logs_print_each_seat_under_a_header(api: HostedApi) -> None:
    tournament, match = "t0000000c11a0", "t0000000c11a0-seep-0-0-a"
    entries = ("logger@v1", "other")
    BotRegistry(api.redis).put(RegisteredBot("logger", "", ("seep",), "l", "1", 0.0, True))
    TournamentStore(api.redis).create(
        tournament, spec(entries), ["seep"], [ScheduledMatch(match, "seep", entries, 0, 1, match)]
    )
    TournamentStore(api.redis).set_state(tournament, FINISHED)
    BotLogStore(api.redis).put(
        tournament,
        match,
        [
            SeatOutput(0, "logger@v1", "listening\nplayed 7H\n", False, "killed at the end"),
            SeatOutput(2, "logger@v1", "listening", True, "SIGXCPU: its CPU time limit"),
        ],
    )
    done = arena("bot", "logs", "logger", match, "--api", api.address, "--token", OPERATOR)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "=== logger@v1, seat 0: killed at the end ===",
        "listening",
        "played 7H",
        "=== logger@v1, seat 2: SIGXCPU: its CPU time limit ===",
        "listening",
        "[arena: the output was longer; the middle was dropped]",
    ]


def test_submit_errors_are_one_line(api: HostedApi, tmp_path: Path) -> None:
    directory = python_bot(tmp_path / "linked")
    (directory / "book.py").symlink_to("/etc/passwd")
    api_flags = ("--api", api.address, "--runtime", "python3.11", "--command", "python3 bot.py")
    linked = arena("bot", "submit", "linked", str(directory), *api_flags, token=OPERATOR)
    assert one_line_error(linked) == (
        f"cannot pack {directory}: 'book.py' is a symbolic link; pack the file it points to"
    )
    missing = arena("bot", "submit", "x", str(tmp_path / "nowhere"), *api_flags, token=OPERATOR)
    assert one_line_error(missing).startswith(f"{tmp_path / 'nowhere'} is not a directory")

    plain = python_bot(tmp_path / "plain")
    anonymous = arena("bot", "submit", "plain", str(plain), *api_flags)
    assert one_line_error(anonymous).startswith(
        "UNAUTHENTICATED: SubmitBot needs an author's token or the operator's"
    )
    cobol = arena(
        "bot", "submit", "plain", str(plain), "--api", api.address, "--runtime", "cobol",
        "--command", "python3 bot.py", token=OPERATOR,
    )  # fmt: skip
    assert one_line_error(cobol) == (
        "INVALID_ARGUMENT: unknown runtime 'cobol'; allowed: python3.11, node20, binary"
    )
    author = arena("author", "add", "x", "--api", api.address)
    assert one_line_error(author).startswith("UNAUTHENTICATED: AddAuthor changes the arena")


def test_an_author_removes_a_version_then_the_bot_and_hears_what_was_deleted(
    api: HostedApi, tmp_path: Path
) -> None:
    token = arena("author", "add", "rem", "--api", api.address, "--token", OPERATOR).stdout.strip()
    blobs = []
    for label in ("v1", "v2"):
        directory = python_bot(tmp_path / label)
        (directory / "marker.txt").write_text(label)  # a package of its own
        blobs.append(pack(directory))
        done = arena("bot", "submit", "rem-bot", str(directory), "--api", api.address,
                     "--runtime", "python3.11", "--command", "python3 bot.py",
                     "--version", label, token=token)  # fmt: skip
        assert done.returncode == 0, done.stderr
    other = arena("author", "add", "oth", "--api", api.address, "--token", OPERATOR).stdout.strip()
    refused = arena(
        "bot", "remove", "rem-bot", "--version", "v1", "--api", api.address, token=other
    )
    assert one_line_error(refused) == (
        "PERMISSION_DENIED: bot 'rem-bot' belongs to author 'rem': an author may remove bots "
        "of their own, and their versions, only (you are 'oth'); the operator's token "
        "removes any bot"
    )

    one = arena("bot", "remove", "rem-bot", "--version", "v1", "--api", api.address, token=token)
    assert one.returncode == 0, one.stderr
    assert one.stdout == f"removed rem-bot@v1; {len(blobs[0]):,} bytes of packages deleted\n"
    assert not api.redis.exists(keys.package(digest(blobs[0])))

    whole = arena("bot", "remove", "rem-bot", "--api", api.address, token=token)
    assert whole.returncode == 0, whole.stderr
    assert whole.stdout == (
        f"removed rem-bot and its version v2; {len(blobs[1]):,} bytes of packages deleted\n"
    )
    assert not api.redis.exists(keys.package(digest(blobs[1])))
    gone = arena("bot", "remove", "rem-bot", "--api", api.address, token=token)
    assert one_line_error(gone) == "NOT_FOUND: no bot 'rem-bot'"


def test_quota_flags_that_are_not_numbers_are_usage_errors() -> None:
    done = arena("api", "serve", "--port", "0", "--author-max-bytes", "lots")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "arena: error: --author-max-bytes ($ARENA_AUTHOR_MAX_BYTES) must be a number of "
        "bytes, optionally with a unit (KiB, MiB, GiB: 64MiB), not 'lots'\n"
    )


def test_a_new_token_is_random_private_and_never_written_over(tmp_path: Path) -> None:
    printed = arena("token", "new")
    assert printed.returncode == 0 and re.fullmatch(r"[0-9a-f]{64}\n", printed.stdout)
    assert arena("token", "new").stdout != printed.stdout
    out = tmp_path / "op-token"
    made = arena("token", "new", "--out", str(out))
    assert made.returncode == 0 and made.stdout == ""
    assert f"--token-file {out}" in made.stderr
    assert re.fullmatch(r"[0-9a-f]{64}\n", out.read_text())
    assert out.stat().st_mode & 0o777 == 0o600
    kept = out.read_text()
    again = arena("token", "new", "--out", str(out))
    assert one_line_error(again) == f"{out} exists: a token file is never overwritten"
    assert out.read_text() == kept


def test_templates_lay_out_packages_submit_takes_as_they_are(tmp_path: Path) -> None:
    for kind, runtime in (("python", "python3.11"), ("node", "node20")):
        made = arena("bot", "template", kind, str(tmp_path / kind))
        assert made.returncode == 0, made.stderr
        assert made.stdout.startswith(
            f"arena bot submit NAME {tmp_path / kind} --runtime {runtime}"
        )
        pack(tmp_path / kind)  # what `arena bot submit` packs: no link, nothing refused
    assert (tmp_path / "node" / "proto" / "arena" / "v1" / "bot.proto").is_file()
    assert not (tmp_path / "node" / "node_modules" / ".bin").exists()
    again = arena("bot", "template", "python", str(tmp_path / "python"))
    assert one_line_error(again) == f"{tmp_path / 'python'} exists: give a directory to make"
