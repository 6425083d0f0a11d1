"""Calls to a referee that name hosted bots' packages: the one way every caller sends a
referee a package it lacks (the workers' PlayMatch, the watchdog's CheckBot of a suspended
ladder entry, the API's CheckBot of a submitted bot).

A referee keeps the packages it is given (``Referee.UploadPackage``), and each is sent
only when the referee says it has not got it, so that each referee receives each package
once: a call naming a package the referee lacks fails FAILED_PRECONDITION with
``missing_package`` (both sides' words are here), naming it; the caller uploads that
package (``arena.hosting.transfer.upload``: a client stream of pieces) and calls again.
A call needs at most one upload for each hosted bot it names, so the caller says how
many it allows; past them, the call's failure is the caller's to handle.

The workers call with blocking gRPC, the API with ``grpc.aio``: ``call_with_packages``
and ``call_with_packages_async`` are the same steps for each.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, TypeVar

import grpc

from arena.hosting.transfer import upload
from arena.v1 import referee_pb2

if TYPE_CHECKING:
    from arena.v1.referee_pb2_grpc import RefereeAsyncStub, RefereeStub

MISSING_PACKAGE = re.compile(r"^package ([0-9a-f]{64}) is not on this referee")
"""The start of the FAILED_PRECONDITION message for a package the referee lacks."""


def missing_package(sha256: str, where: str) -> str:
    """The referee's words for a package it lacks; ``where`` names the request's
    HostedBot, e.g. ``hosted[0]``. Callers match its start (``MISSING_PACKAGE``)."""
    return (
        f"package {sha256} is not on this referee: upload it (UploadPackage), or send "
        f"its bytes in {where}.package if it is small, then call again"
    )


Reply = TypeVar("Reply")
Metadata = tuple[tuple[str, str], ...] | None
Blobs = Callable[[str], bytes | None]
"""A package's bytes by its SHA-256, or None if the caller has not got it."""


class PackageGone(RuntimeError):
    """A referee asked for a package the caller has not got; the message says which."""


def lacked(error: grpc.RpcError) -> str | None:
    """The SHA-256 of the package a referee's failed call says it lacks, or None if the
    call failed otherwise."""
    if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
        return None
    missing = MISSING_PACKAGE.match(error.details() or "")
    return None if missing is None else missing[1]


def call_with_packages(
    call: Callable[[], Reply],
    stub: RefereeStub,
    blobs: Blobs,
    *,
    uploads: int,
    metadata: Metadata,
    timeout: float,
) -> Reply:
    """``call()``, sending the referee behind ``stub`` each package it says it lacks
    (at most ``uploads`` of them, each within ``timeout``) and calling again."""
    for _ in range(uploads):
        try:
            return call()
        except grpc.RpcError as error:
            sha256 = lacked(error)
            if sha256 is None:
                raise
        stub.UploadPackage(_upload(sha256, blobs), metadata=metadata, timeout=timeout)
    return call()


async def call_with_packages_async(
    call: Callable[[], Awaitable[Reply]],
    stub: RefereeAsyncStub,
    blobs: Blobs,
    *,
    uploads: int,
    metadata: Metadata,
    timeout: float,
) -> Reply:
    """``call_with_packages`` on a ``grpc.aio`` channel."""
    for _ in range(uploads):
        try:
            return await call()
        except grpc.RpcError as error:  # grpc.aio.AioRpcError is one
            sha256 = lacked(error)
            if sha256 is None:
                raise
        await stub.UploadPackage(_upload(sha256, blobs), metadata=metadata, timeout=timeout)
    return await call()


def _upload(sha256: str, blobs: Blobs) -> Iterator[referee_pb2.UploadPackageRequest]:
    blob = blobs(sha256)
    if blob is None:  # never, while versions are kept: say so rather than loop
        raise PackageGone(f"package {sha256} is missing from the store")
    return upload(sha256, blob)
