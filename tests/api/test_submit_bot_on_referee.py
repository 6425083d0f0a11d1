"""SubmitBot with ``--referee``: the bot is started on a referee (Referee.CheckBot), with
the referee's token, and never on the API's host; CheckBot is for token holders only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from arena.access import bearer
from arena.hosting.package import digest
from arena.hosting.transfer import submission
from arena.local_redis import LocalRedis
from arena.processes import Service, arena_command, start_service
from arena.v1 import referee_pb2, referee_pb2_grpc
from tests.api.hosted import OPERATOR, HostedApi, as_, python_package, refusal, request, start_api

OP = as_(OPERATOR)
REFEREE_TOKEN = "referee-token-for-checks"


@pytest.fixture(scope="module")
def hosting_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("referee-hosting")


@pytest.fixture(scope="module")
def referee(tmp_path_factory: pytest.TempPathFactory, hosting_dir: Path) -> Iterator[Service]:
    directory = tmp_path_factory.mktemp("referee")
    (directory / "token").write_text(REFEREE_TOKEN + "\n")
    started = start_service(
        arena_command(
            "referee", "serve", "--port", "0", "--replay-dir", str(directory / "replays"),
            "--hosting-dir", str(hosting_dir), "--token-file", str(directory / "token"),
        ),
        env={"ARENA_REFEREE_TOKEN": ""},
    )  # fmt: skip
    yield started
    started.stop()


@pytest.fixture(scope="module")
def api(
    local_redis: LocalRedis, tmp_path_factory: pytest.TempPathFactory, referee: Service
) -> Iterator[HostedApi]:
    directory = tmp_path_factory.mktemp("api-with-referee")
    (directory / "referee-token").write_text(REFEREE_TOKEN + "\n")
    started = start_api(
        local_redis,
        directory,
        extra=(
            # An unreachable referee first: the check moves on to the next one.
            "--referee", "127.0.0.1:1",
            "--referee", referee.address,
            "--referee-token-file", str(directory / "referee-token"),
        ),
    )  # fmt: skip
    yield started
    started.stop()


def test_a_submitted_bot_is_checked_on_the_referee(
    api: HostedApi, hosting_dir: Path, tmp_path: Path
) -> None:
    blob = python_package(tmp_path / "good")
    assert not (hosting_dir / "packages" / digest(blob)).exists()
    kept = api.stub.SubmitBot(submission(request("checked", blob)), metadata=OP)
    assert (kept.name, kept.hello_name, kept.package_sha256) == ("checked", "random", digest(blob))
    assert "seep" in kept.games
    # The referee was sent the package (it had none) and started it there.
    assert (hosting_dir / "packages" / digest(blob)).is_dir()
    # A second version of the same package: the referee already holds it.
    again = api.stub.SubmitBot(submission(request("checked", blob, version="v2")), metadata=OP)
    assert again.hello_name == "random"


def test_a_crashing_bot_is_refused_with_its_own_words_from_the_referee(
    api: HostedApi, hosting_dir: Path, tmp_path: Path
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
    code, message = refusal(api.stub.SubmitBot, submission(request("crasher", crash)), metadata=OP)
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert message.startswith("the bot did not start: the bot exited with status 3"), message
    assert message.endswith("loading the opening book\nbook.bin: no such file, giving up")
    # it ran on the referee, which keeps nothing of a package whose check failed
    assert not (hosting_dir / "packages" / digest(crash)).exists()


def test_check_bot_needs_the_referees_token(referee: Service, tmp_path: Path) -> None:
    blob = python_package(tmp_path / "bot")
    bot = referee_pb2.HostedBot(
        package_sha256=digest(blob), runtime="python3.11", command="python3 bot.py", package=blob
    )
    with grpc.insecure_channel(referee.address) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)
        code, message = refusal(stub.CheckBot, referee_pb2.CheckBotRequest(bot=bot))
        assert code == grpc.StatusCode.UNAUTHENTICATED
        assert message.startswith(
            "CheckBot makes the referee start a hosted bot and needs the operator's token"
        )
        code, _ = refusal(
            stub.CheckBot, referee_pb2.CheckBotRequest(bot=bot), metadata=[bearer("guess")]
        )
        assert code == grpc.StatusCode.PERMISSION_DENIED
        token = (bearer(REFEREE_TOKEN),)
        bare = referee_pb2.HostedBot()
        bare.CopyFrom(bot)
        bare.package = b""
        fresh = referee_pb2.HostedBot(
            package_sha256="0" * 64, runtime="python3.11", command="python3 bot.py"
        )
        code, message = refusal(
            stub.CheckBot, referee_pb2.CheckBotRequest(bot=fresh), metadata=token
        )
        assert code == grpc.StatusCode.FAILED_PRECONDITION
        assert message.startswith(f"package {'0' * 64} is not on this referee")
        answer = stub.CheckBot(referee_pb2.CheckBotRequest(bot=bot), metadata=token)
        assert (answer.name, "seep" in answer.games) == ("random", True)
        # Now the referee holds the package: the bytes need not come again.
        assert stub.CheckBot(referee_pb2.CheckBotRequest(bot=bare), metadata=token).name == "random"
        code, message = refusal(
            stub.CheckBot,
            referee_pb2.CheckBotRequest(
                bot=referee_pb2.HostedBot(package_sha256="x", runtime="python3.11")
            ),
            metadata=token,
        )
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert message.startswith("bot.package_sha256 'x' is not a SHA-256")
