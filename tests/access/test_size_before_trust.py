"""Size before trust: no call to the API or a referee may carry a message over
``MAX_REQUEST_BYTES`` (1 MiB), whoever sends it; a package travels in pieces, read only
once the caller's token has been checked (SubmitBot on the API, UploadPackage on a
referee), so an anonymous caller cannot make either hold a package-sized message."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from arena.access import bearer
from arena.hosting.package import MAX_PACKAGE_BYTES, digest, pack
from arena.hosting.transfer import PIECE_BYTES, submission, upload
from arena.limits import MAX_REQUEST_BYTES
from arena.local_redis import LocalRedis
from arena.processes import Service, arena_command, start_service
from arena.v1 import arena_pb2, referee_pb2, referee_pb2_grpc
from tests.api.hosted import OPERATOR, HostedApi, as_, python_bot, refusal, request, start_api
from tests.support.waiting import wait_until

OP = as_(OPERATOR)
REFEREE_TOKEN = "referee-token-for-sizes"
MiB = 1 << 20


@pytest.fixture(scope="module")
def api(local_redis: LocalRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostedApi]:
    started = start_api(local_redis, tmp_path_factory.mktemp("sizes-api"))
    yield started
    started.stop()


@pytest.fixture(scope="module")
def referee(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    directory = tmp_path_factory.mktemp("sizes-referee")
    (directory / "token").write_text(REFEREE_TOKEN + "\n")
    started = start_service(
        arena_command(
            "referee", "serve", "--port", "0", "--hosting-dir", str(directory / "hosting"),
            "--token-file", str(directory / "token"),
        ),
        env={"ARENA_REFEREE_TOKEN": ""},
    )  # fmt: skip
    yield started
    started.stop()


def big_package(directory: Path, size: int = 3 * MiB) -> bytes:
    """A bot that plays, with ``size`` bytes of data no compression shrinks."""
    python_bot(directory)
    (directory / "weights.bin").write_bytes(os.urandom(size))
    return pack(directory)


def resident_bytes(service: Service) -> int:
    status = Path(f"/proc/{service.process.pid}/status").read_text()
    (line,) = [line for line in status.splitlines() if line.startswith("VmRSS:")]
    return int(line.split()[1]) * 1024


def anonymous_pieces() -> Iterator[arena_pb2.SubmitBotRequest]:
    """What an anonymous caller would send: a 16 MiB package, a piece a message."""
    piece = os.urandom(PIECE_BYTES)
    yield arena_pb2.SubmitBotRequest(
        name="hog", version="v1", runtime="python3.11", command="python3 bot.py", package=piece
    )
    for _ in range(MAX_PACKAGE_BYTES // PIECE_BYTES):
        yield arena_pb2.SubmitBotRequest(package=piece)


def test_no_call_to_the_api_carries_more_than_a_mebibyte(api: HostedApi) -> None:
    oversized = "x" * (MAX_REQUEST_BYTES + 1)
    for call, message in (
        (api.stub.GetTournament, arena_pb2.GetTournamentRequest(id=oversized)),
        (api.stub.RegisterBot, arena_pb2.RegisterBotRequest(name="n", address=oversized)),
    ):
        for metadata in ((), OP):  # the operator too: no call needs more
            code, said = refusal(call, message, metadata=metadata)
            assert code == grpc.StatusCode.RESOURCE_EXHAUSTED, said
            assert f"vs. {MAX_REQUEST_BYTES})" in said, said  # gRPC's words: size vs. limit
    # Just under the limit is read, and answered on its merits.
    code, said = refusal(
        api.stub.GetTournament,
        arena_pb2.GetTournamentRequest(id="t" * (MAX_REQUEST_BYTES - 64)),
    )
    assert code == grpc.StatusCode.NOT_FOUND


def test_an_anonymous_package_is_refused_before_it_is_read(api: HostedApi) -> None:
    before = resident_bytes(api.service)
    for _ in range(40):
        code, said = refusal(api.stub.SubmitBot, anonymous_pieces())
        assert code == grpc.StatusCode.UNAUTHENTICATED
        assert said.startswith("SubmitBot needs an author's token or the operator's"), said
    # 40 times 16 MiB offered; before pieces, 40 such calls kept 245 MiB. What grows now is
    # at most the transport's buffers, whatever the number of calls.
    assert resident_bytes(api.service) - before < 40 * MiB


def test_a_package_larger_than_a_message_comes_in_pieces(api: HostedApi, tmp_path: Path) -> None:
    blob = big_package(tmp_path / "big")
    assert len(blob) > 3 * MAX_REQUEST_BYTES
    kept = api.stub.SubmitBot(submission(request("big", blob)), metadata=OP)
    assert (kept.package_bytes, kept.package_sha256) == (len(blob), digest(blob))
    # Whole, in one message, it does not fit: the pieces are the only way.
    code, said = refusal(api.stub.SubmitBot, iter([request("big", blob, "v2")]), metadata=OP)
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "larger than max" in said, said


def test_a_package_past_the_limit_is_refused_as_it_arrives(api: HostedApi) -> None:
    sent = 0
    answered = threading.Event()

    def pieces() -> Iterator[arena_pb2.SubmitBotRequest]:
        nonlocal sent
        for message in anonymous_pieces():
            sent += len(message.package)
            yield message
        # 8 MiB more if the server kept reading, a piece a second at most: the transport
        # buffers megabytes the server has not read yet, and on a busy machine the server
        # may take seconds to read up to the limit.
        for _ in range(16):
            if answered.wait(1.0):
                return
            sent += PIECE_BYTES
            yield arena_pb2.SubmitBotRequest(package=os.urandom(PIECE_BYTES))

    try:
        code, said = refusal(api.stub.SubmitBot, pieces(), metadata=OP)
    finally:
        answered.set()
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert said == (
        f"the package is more than {MAX_PACKAGE_BYTES:,} bytes; at most "
        f"{MAX_PACKAGE_BYTES:,} are allowed"
    )
    assert sent < MAX_PACKAGE_BYTES + 8 * MiB  # the client stopped sending


def test_later_pieces_carry_only_the_package(api: HostedApi, tmp_path: Path) -> None:
    blob = big_package(tmp_path / "mixed", size=MiB)
    messages = list(submission(request("mixed", blob)))
    messages[1].name = "other"
    code, said = refusal(api.stub.SubmitBot, iter(messages), metadata=OP)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert said.startswith("only SubmitBot's first message names the bot"), said
    code, said = refusal(api.stub.SubmitBot, iter([]), metadata=OP)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "got no message" in said


def test_an_author_sends_one_package_at_a_time(api: HostedApi, tmp_path: Path) -> None:
    ann = as_(api.stub.AddAuthor(arena_pb2.AddAuthorRequest(name="ann"), metadata=OP).token)
    blob = big_package(tmp_path / "slow", size=MiB)
    held = threading.Event()
    release = threading.Event()

    def slowly() -> Iterator[arena_pb2.SubmitBotRequest]:
        messages = submission(request("slow", blob))
        yield next(messages)
        held.set()
        release.wait(60)
        yield from messages

    outcome: list[object] = []
    first = threading.Thread(
        target=lambda: outcome.append(api.stub.SubmitBot(slowly(), metadata=ann))
    )
    first.start()

    def under_way() -> bool:
        """Whether the API holds ann's first call: ``held`` says only that the client sent
        its first message. An empty call is answered at once either way, storing nothing."""
        code, said = refusal(api.stub.SubmitBot, iter([]), metadata=ann)
        if code == grpc.StatusCode.INVALID_ARGUMENT and "got no message" in said:
            return False
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED, (code, said)
        return True

    try:
        assert held.wait(30)
        wait_until(under_way, 30, "the API to hold ann's first SubmitBot")
        code, said = refusal(
            api.stub.SubmitBot, submission(request("slow", blob, "v2")), metadata=ann
        )
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert said.startswith("another SubmitBot of yours is still in progress"), said
        # Another author is not held up by ann.
        ben = as_(api.stub.AddAuthor(arena_pb2.AddAuthorRequest(name="ben"), metadata=OP).token)
        assert api.stub.SubmitBot(submission(request("ben-bot", blob)), metadata=ben).name
    finally:
        release.set()
        first.join(120)
    assert [getattr(o, "version", None) for o in outcome] == ["v1"]
    # Answered, ann may send the next.
    assert api.stub.SubmitBot(submission(request("slow", blob, "v2")), metadata=ann).version


def test_a_referee_takes_packages_in_pieces_from_token_holders_only(
    referee: Service, tmp_path: Path
) -> None:
    blob = big_package(tmp_path / "ref")
    sha256 = digest(blob)
    token = (bearer(REFEREE_TOKEN),)
    named = referee_pb2.HostedBot(
        package_sha256=sha256, runtime="python3.11", command="python3 bot.py"
    )
    with grpc.insecure_channel(referee.address) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)
        # Anyone: no message over the limit, on any call, open or guarded.
        huge = referee_pb2.WatchMatchRequest(match_id="m" * (MAX_REQUEST_BYTES + 1))
        code, said = refusal(lambda: list(stub.WatchMatch(huge)))
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "larger than max" in said, said
        code, said = refusal(
            stub.CheckBot,
            referee_pb2.CheckBotRequest(bot=referee_pb2.HostedBot(package=blob)),
            metadata=token,
        )
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "larger than max" in said, said
        # Without the token, the pieces are refused before one is read.
        code, said = refusal(stub.UploadPackage, upload(sha256, blob))
        assert code == grpc.StatusCode.UNAUTHENTICATED
        assert said.startswith("UploadPackage gives the referee a hosted bot's package to keep")
        code, said = refusal(stub.CheckBot, referee_pb2.CheckBotRequest(bot=named), metadata=token)
        assert code == grpc.StatusCode.FAILED_PRECONDITION
        assert said.startswith(f"package {sha256} is not on this referee: upload it"), said
        # Bytes that are not the package named, or not a package: refused, nothing kept.
        other = os.urandom(MiB)
        code, said = refusal(stub.UploadPackage, upload(sha256, other), metadata=token)
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert said.startswith(f"package: its SHA-256 is {digest(other)}, not the package_sha256")
        code, said = refusal(stub.UploadPackage, upload("beef", blob), metadata=token)
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "64 lowercase hex digits" in said
        # With the token: kept, and a check names it without its bytes.
        kept = stub.UploadPackage(upload(sha256, blob), metadata=token)
        assert (kept.package_sha256, kept.package_bytes) == (sha256, len(blob))
        answer = stub.CheckBot(referee_pb2.CheckBotRequest(bot=named), metadata=token)
        assert answer.name == "random"
        again = stub.UploadPackage(upload(sha256, blob), metadata=token)  # harmless
        assert again.package_bytes == len(blob)
