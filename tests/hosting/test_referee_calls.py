"""The one way a caller sends a referee the packages it lacks (``arena.hosting.referee_calls``),
which the workers' PlayMatch, the watchdog's CheckBot and the API's CheckBot share: a
package is sent only when the referee names it, at most as many as the caller allows,
and every other failure is the caller's. A referee stand-in: the real ones are in
tests/hosting/test_hosted_tournaments.py and tests/api/test_submit_bot_on_referee.py."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Iterator
from contextlib import nullcontext
from types import SimpleNamespace
from typing import Any, cast

import grpc
import pytest

from arena.hosting.referee_calls import (
    PackageGone,
    call_with_packages,
    call_with_packages_async,
    lacked,
)
from arena.hosting.transfer import PIECE_BYTES
from arena.v1 import referee_pb2, referee_pb2_grpc
from workers import referees, watchdog_probes

A, B = "a" * 64, "b" * 64
BLOBS = {A: b"x" * (PIECE_BYTES + 1), B: b"y"}


class Failed(grpc.RpcError):
    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        self._code, self._details = code, details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details


def missing(sha256: str) -> Failed:
    return Failed(
        grpc.StatusCode.FAILED_PRECONDITION,
        f"package {sha256} is not on this referee: upload it with UploadPackage",
    )


class Referee:
    """Holds the packages uploaded to it; ``call`` fails with ``fails``, or for the
    first of ``needs`` it lacks, else answers."""

    def __init__(self, *needs: str, fails: Failed | None = None) -> None:
        self.needs = needs
        self.fails = fails
        self.held: dict[str, bytes] = {}
        self.calls = 0
        self.uploads: list[tuple[str, Any, float]] = []

    def call(self) -> str:
        self.calls += 1
        if self.fails is not None:
            raise self.fails
        for sha256 in self.needs:
            if sha256 not in self.held:
                raise missing(sha256)
        return "answer"

    def keep(self, pieces: Iterable[referee_pb2.UploadPackageRequest], **kwargs: Any) -> None:
        messages = list(pieces)
        sha256 = messages[0].package_sha256
        assert all(not m.package_sha256 for m in messages[1:])  # later pieces name none
        self.held[sha256] = b"".join(m.data for m in messages)
        self.uploads.append((sha256, kwargs["metadata"], kwargs["timeout"]))


class Stub:
    def __init__(self, referee: Referee) -> None:
        self.referee = referee

    def UploadPackage(
        self, pieces: Iterator[referee_pb2.UploadPackageRequest], **kwargs: Any
    ) -> None:
        self.referee.keep(pieces, **kwargs)


class AsyncStub(Stub):
    async def UploadPackage(  # type: ignore[override]
        self, pieces: Iterator[referee_pb2.UploadPackageRequest], **kwargs: Any
    ) -> None:
        self.referee.keep(pieces, **kwargs)


TOKEN = (("authorization", "Bearer t"),)


def sync_call(referee: Referee, uploads: int, blobs: Callable[[str], bytes | None]) -> str:
    return call_with_packages(
        referee.call,
        cast(Any, Stub(referee)),
        blobs,
        uploads=uploads,
        metadata=TOKEN,
        timeout=7.0,
    )


def async_call(referee: Referee, uploads: int, blobs: Callable[[str], bytes | None]) -> str:
    async def call() -> str:
        return referee.call()

    return asyncio.run(
        call_with_packages_async(
            call,
            cast(Any, AsyncStub(referee)),
            blobs,
            uploads=uploads,
            metadata=TOKEN,
            timeout=7.0,
        )
    )


BOTH = pytest.mark.parametrize("calling", [sync_call, async_call], ids=["blocking", "aio"])
Calling = Callable[[Referee, int, Callable[[str], bytes | None]], str]


@BOTH
def test_nothing_is_sent_to_a_referee_that_holds_the_packages(calling: Calling) -> None:
    referee = Referee()
    assert calling(referee, 2, BLOBS.get) == "answer"
    assert referee.calls == 1 and referee.uploads == []


@BOTH
def test_each_package_the_referee_names_is_sent_in_pieces_then_the_call_made_again(
    calling: Calling,
) -> None:
    referee = Referee(A, B)
    assert calling(referee, 2, BLOBS.get) == "answer"
    assert referee.calls == 3
    assert referee.uploads == [(A, TOKEN, 7.0), (B, TOKEN, 7.0)]
    assert referee.held == BLOBS


@BOTH
def test_past_the_uploads_allowed_the_referees_refusal_is_the_callers(calling: Calling) -> None:
    referee = Referee(A, B)
    with pytest.raises(grpc.RpcError) as refused:
        calling(referee, 1, BLOBS.get)
    assert lacked(refused.value) == B
    assert referee.calls == 2 and [u[0] for u in referee.uploads] == [A]


@BOTH
def test_a_package_the_caller_has_not_got_is_said_rather_than_sent(calling: Calling) -> None:
    referee = Referee(A)
    with pytest.raises(PackageGone, match=f"package {A} is missing from the store"):
        calling(referee, 1, lambda _: None)
    assert referee.uploads == []
    assert isinstance(PackageGone(""), RuntimeError)  # what a worker's match raised before


@BOTH
def test_other_failures_are_the_callers_at_once(calling: Calling) -> None:
    for error in (
        Failed(grpc.StatusCode.FAILED_PRECONDITION, "the bot did not start: exit 2"),
        Failed(grpc.StatusCode.UNAVAILABLE, f"package {A} is not on this referee"),
    ):
        referee = Referee(fails=error)
        with pytest.raises(grpc.RpcError) as raised:
            calling(referee, 3, BLOBS.get)
        assert raised.value is error and referee.calls == 1 and referee.uploads == []


def test_only_a_failed_precondition_naming_a_package_asks_for_one() -> None:
    assert lacked(missing(A)) == A
    assert lacked(Failed(grpc.StatusCode.FAILED_PRECONDITION, "package abc is not")) is None
    assert lacked(Failed(grpc.StatusCode.INVALID_ARGUMENT, missing(A).details())) is None


def test_the_watchdogs_check_of_a_hosted_entry_says_why_it_did_not_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``workers.watchdog_probes._check_on``: the bot's own failure and a package the
    referee keeps asking for are answers (the entry stays suspended); anything else
    sends the check to the next referee."""
    held: dict[str, bytes] = dict(BLOBS)
    monkeypatch.setattr(referees, "packages", lambda: SimpleNamespace(blob=held.get))
    monkeypatch.setattr(referees, "channel", lambda _: nullcontext())

    def check_on(referee: Referee) -> str | None:
        stub = Stub(referee)
        stub.CheckBot = lambda *_, **__: referee.call()  # type: ignore[attr-defined]
        monkeypatch.setattr(referee_pb2_grpc, "RefereeStub", lambda _: stub)
        return watchdog_probes._check_on("referee:50051", referee_pb2.CheckBotRequest())

    referee = Referee(A)
    assert check_on(referee) is None and [u[0] for u in referee.uploads] == [A]
    started = Failed(grpc.StatusCode.FAILED_PRECONDITION, "the bot did not start: exit 2")
    assert check_on(Referee(fails=started)) == "the bot did not start: exit 2"
    assert check_on(Referee(A, B)) == "the referee kept asking for the package"
    del held[A]
    assert check_on(Referee(A)) == f"package {A} is missing from the store"
    for error in (
        Failed(grpc.StatusCode.FAILED_PRECONDITION, "runtime node20 is not on this referee"),
        Failed(grpc.StatusCode.UNAVAILABLE, "gone"),
    ):
        with pytest.raises(grpc.RpcError) as raised:
            check_on(Referee(fails=error))
        assert raised.value is error
