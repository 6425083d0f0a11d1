"""SubmitBot: a hosted bot's package is checked, started in a real sandbox and asked Hello
before anything is stored; every refusal says why and leaves the store as it was."""

from __future__ import annotations

import os
import tarfile
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from arena.hosting.package import MAX_PACKAGE_BYTES, digest
from arena.hosting.transfer import submission
from arena.local_redis import LocalRedis
from arena.store import BotRegistry, RegisteredBot, keys
from arena.v1 import arena_pb2
from tests.api.hosted import (
    OPERATOR,
    SERVES,
    HostedApi,
    as_,
    python_package,
    refusal,
    request,
    start_api,
    stored,
    tar_gz,
)

OP = as_(OPERATOR)
BOT_PY = ("bot.py", b"print('hi')\n")


@pytest.fixture(scope="module")
def api(local_redis: LocalRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostedApi]:
    started = start_api(local_redis, tmp_path_factory.mktemp("submit-bot"))
    yield started
    started.stop()


def versions(api: HostedApi, name: str) -> list[str]:
    listed = api.stub.ListBotVersions(arena_pb2.ListBotVersionsRequest(name=name))
    return [v.version for v in listed.versions]


def test_a_bot_that_answers_hello_is_kept_with_every_version(
    api: HostedApi, tmp_path: Path
) -> None:
    first = python_package(tmp_path / "one")
    kept = api.stub.SubmitBot(submission(request("alpha", first)), metadata=OP)
    assert (kept.name, kept.version, kept.runtime, kept.command) == (
        "alpha", "v1", "python3.11", "python3 bot.py",
    )  # fmt: skip
    assert kept.package_sha256 == digest(first) and kept.package_bytes == len(first)
    assert (kept.hello_name, kept.author) == ("random", "")
    assert "seep" in kept.games
    assert api.redis.get(keys.package(digest(first))) == first

    second = python_package(tmp_path / "two", "# v2\nfrom arena.bots.sdk import serve\n"
                            "from arena.bots.examples.house import HouseBot\nserve(HouseBot())\n")  # fmt: skip
    newer = api.stub.SubmitBot(submission(request("alpha", second, version="v2")), metadata=OP)
    assert newer.hello_name == "house"
    assert versions(api, "alpha") == ["v2", "v1"]  # newest first: the default
    (bot,) = [b for b in api.stub.ListBots(arena_pb2.ListBotsRequest()).bots if b.name == "alpha"]
    assert (bot.hosted, bot.address, bot.author, bot.hello_name) == (True, "", "", "house")
    assert bot.registered_at == newer.submitted_at
    assert list(bot.games) == list(newer.games)

    before = stored(api.redis)
    code, message = refusal(
        api.stub.SubmitBot, submission(request("alpha", second, "v1")), metadata=OP
    )
    assert code == grpc.StatusCode.ALREADY_EXISTS
    assert message == (
        "bot 'alpha' already has a version 'v1': versions are never replaced, give this one "
        "a new label (`arena bot versions alpha` lists them)"
    )
    assert stored(api.redis) == before


def _symlink() -> tarfile.TarInfo:
    link = tarfile.TarInfo("book.py")
    link.type, link.linkname = tarfile.SYMTYPE, "/etc/shadow"
    return link


BAD = {
    "unknown runtime": (
        request("bad", tar_gz(BOT_PY), runtime="python2"),
        grpc.StatusCode.INVALID_ARGUMENT,
        "unknown runtime 'python2'; allowed: python3.11, node20, binary",
    ),
    "package over the limit": (
        request("bad", os.urandom(MAX_PACKAGE_BYTES + 1)),
        grpc.StatusCode.INVALID_ARGUMENT,
        f"the package is more than {MAX_PACKAGE_BYTES:,} bytes; at most "
        f"{MAX_PACKAGE_BYTES:,} are allowed",
    ),
    "not a tar.gz": (
        request("bad", b"print('hi')\n"),
        grpc.StatusCode.INVALID_ARGUMENT,
        "the package is not a readable tar.gz",
    ),
    "path up and out": (
        request("bad", tar_gz(BOT_PY, ("../evil.py", b""))),
        grpc.StatusCode.INVALID_ARGUMENT,
        "'../evil.py' would land outside the package: use relative paths without '..'",
    ),
    "absolute path": (
        request("bad", tar_gz(BOT_PY, ("/etc/cron.d/evil", b""))),
        grpc.StatusCode.INVALID_ARGUMENT,
        "'/etc/cron.d/evil' would land outside the package",
    ),
    "symbolic link": (
        request("bad", tar_gz(BOT_PY, _symlink())),
        grpc.StatusCode.INVALID_ARGUMENT,
        "'book.py' is a symbolic link (to '/etc/shadow'); a package holds plain files and "
        "directories only",
    ),
    "command not in the package": (
        request("bad", tar_gz(BOT_PY), command="python3 main.py"),
        grpc.StatusCode.INVALID_ARGUMENT,
        "the command runs 'main.py', which is not in the package",
    ),
    "command of no runtime": (
        request("bad", tar_gz(BOT_PY), command="bash -c 'curl evil'"),
        grpc.StatusCode.INVALID_ARGUMENT,
        "the command starts 'bash', which is not in the package; start a file of the "
        "package or one of python3.11, python3, python",
    ),
    "bad name": (
        request("no spaces please", tar_gz(BOT_PY)),
        grpc.StatusCode.INVALID_ARGUMENT,
        "bad bot name 'no spaces please': use 1 to 40 letters, digits, '-', '_' or '.'",
    ),
    "empty version": (
        request("bad", tar_gz(BOT_PY), version=""),
        grpc.StatusCode.INVALID_ARGUMENT,
        "bad version '': use 1 to 40 letters, digits, '-', '_' or '.'",
    ),
    "version with a slash": (
        request("bad", tar_gz(BOT_PY), version="v1/../v2"),
        grpc.StatusCode.INVALID_ARGUMENT,
        "bad version 'v1/../v2'",
    ),
}


@pytest.mark.parametrize("case", BAD, ids=list(BAD))
def test_a_bad_submission_is_refused_and_nothing_is_stored(api: HostedApi, case: str) -> None:
    bad, code, message = BAD[case]
    before = stored(api.redis)
    refused, said = refusal(api.stub.SubmitBot, submission(bad), metadata=OP)
    assert refused == code and message in said, said
    assert stored(api.redis) == before


def test_a_bot_that_crashes_at_start_is_refused_with_its_own_words(
    api: HostedApi, tmp_path: Path
) -> None:
    crash = python_package(
        tmp_path / "crash",
        """
        import sys
        print("loading the opening book", flush=True)
        print("book.bin: no such file, giving up", file=sys.stderr)
        sys.exit(3)
        """,
    )
    before = stored(api.redis)
    code, message = refusal(api.stub.SubmitBot, submission(request("crasher", crash)), metadata=OP)
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert message.startswith("the bot did not start: the bot exited with status 3")
    assert message.endswith("loading the opening book\nbook.bin: no such file, giving up")
    assert stored(api.redis) == before


def test_the_end_of_a_long_traceback_is_what_the_author_reads(
    api: HostedApi, tmp_path: Path
) -> None:
    chatty = python_package(
        tmp_path / "chatty",
        """
        for n in range(200):
            print(f"warming up step {n} of a rather long initialisation", flush=True)
        raise RuntimeError("the model file is corrupt")
        """,
    )
    code, message = refusal(api.stub.SubmitBot, submission(request("chatty", chatty)), metadata=OP)
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert message.startswith("the bot did not start: the bot exited with status 1")
    assert message.endswith("RuntimeError: the model file is corrupt") and "[...]" in message


def test_a_bot_that_plays_no_game_of_the_arena_is_refused(api: HostedApi, tmp_path: Path) -> None:
    chess = python_package(
        tmp_path / "chess",
        """
        from arena.bots.sdk import Bot, serve

        class Chess(Bot):
            name = "chess"
            games = ("chess",)

        serve(Chess())
        """,
    )
    before = stored(api.redis)
    code, message = refusal(api.stub.SubmitBot, submission(request("chess", chess)), metadata=OP)
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert message.startswith("bot 'chess' plays none of the arena's games (it plays: chess;")
    assert stored(api.redis) == before


def test_remote_and_hosted_bots_never_share_a_name(api: HostedApi, tmp_path: Path) -> None:
    BotRegistry(api.redis).put(
        RegisteredBot("far", "127.0.0.1:5999", ("seep",), "random", "1", 0.0)
    )
    before = stored(api.redis)
    code, message = refusal(
        api.stub.SubmitBot,
        submission(request("far", python_package(tmp_path / "far"))),
        metadata=OP,
    )
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert message.startswith("'far' is a remote bot, registered at an address")
    assert stored(api.redis) == before

    api.stub.SubmitBot(submission(request("near", python_package(tmp_path / "near"))), metadata=OP)
    before = stored(api.redis)
    code, message = refusal(
        api.stub.RegisterBot,
        arena_pb2.RegisterBotRequest(name="near", address="127.0.0.1:5998"),
        metadata=OP,
    )
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert message.startswith("'near' is a hosted bot (of the operator)")
    assert stored(api.redis) == before


def test_removing_a_hosted_bot_forgets_its_versions_and_the_packages_only_it_used(
    api: HostedApi, tmp_path: Path
) -> None:
    blob = python_package(tmp_path / "gone", SERVES + "    # only 'gone' uses this\n")
    api.stub.SubmitBot(submission(request("gone", blob)), metadata=OP)
    removed = api.stub.RemoveBot(arena_pb2.RemoveBotRequest(name="gone"), metadata=OP)
    assert list(removed.versions) == ["v1"] and removed.packages.freed_bytes == len(blob)
    code, message = refusal(api.stub.ListBotVersions, arena_pb2.ListBotVersionsRequest(name="gone"))
    assert (code, message) == (grpc.StatusCode.NOT_FOUND, "no hosted bot 'gone'")
    assert not api.redis.exists(keys.package(digest(blob)))  # tests/api/test_bot_storage


def test_listing_versions_is_open_and_says_what_has_none(api: HostedApi) -> None:
    BotRegistry(api.redis).put(
        RegisteredBot("remote-only", "127.0.0.1:5997", ("seep",), "random", "1", 0.0)
    )
    code, message = refusal(
        api.stub.ListBotVersions, arena_pb2.ListBotVersionsRequest(name="remote-only")
    )
    assert code == grpc.StatusCode.NOT_FOUND
    assert message == "'remote-only' is a remote bot, registered at an address: it has no versions"
    code, message = refusal(api.stub.ListBotVersions, arena_pb2.ListBotVersionsRequest(name="../x"))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
