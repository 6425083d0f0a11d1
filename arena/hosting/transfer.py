"""A hosted bot's package in pieces, to the API (SubmitBot) and to a referee
(UploadPackage).

No arena server reads a message over ``arena.limits.MAX_REQUEST_BYTES`` (1 MiB) from
anyone, since a message is read before its caller is known; a package may be 16 MiB,
so it travels as a client stream of pieces, which a server reads only once the token
has been checked, and stops reading as soon as the pieces pass the package limit.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import TypeVar

from arena.hosting.package import MAX_PACKAGE_BYTES
from arena.v1 import arena_pb2, referee_pb2

PIECE_BYTES = 512 * 1024
"""Half the message limit: a piece and the first message's other fields always fit."""

Message = TypeVar("Message")


class Oversize(ValueError):
    """The pieces passed ``MAX_PACKAGE_BYTES``; the message says so."""


def pieces(blob: bytes) -> Iterator[bytes]:
    """``blob`` cut to ``PIECE_BYTES``; one empty piece for an empty blob, so that a
    stream always has a first message."""
    yield blob[:PIECE_BYTES]
    for at in range(PIECE_BYTES, len(blob), PIECE_BYTES):
        yield blob[at : at + PIECE_BYTES]


def submission(request: arena_pb2.SubmitBotRequest) -> Iterator[arena_pb2.SubmitBotRequest]:
    """A whole ``request`` as SubmitBot's stream: its fields with the first piece, then
    one message a piece."""
    parts = pieces(request.package)
    first = arena_pb2.SubmitBotRequest()
    first.CopyFrom(request)
    first.package = next(parts)
    yield first
    for part in parts:
        yield arena_pb2.SubmitBotRequest(package=part)


def upload(sha256: str, blob: bytes) -> Iterator[referee_pb2.UploadPackageRequest]:
    """The package ``blob`` as a referee's UploadPackage stream."""
    for index, part in enumerate(pieces(blob)):
        yield referee_pb2.UploadPackageRequest(package_sha256="" if index else sha256, data=part)


async def assemble(
    first: bytes, rest: AsyncIterator[Message], piece: Callable[[Message], bytes]
) -> bytes:
    """The package whose first piece is ``first`` and whose others are ``piece`` of each
    message of ``rest``; ``piece`` raises ValueError for a message that is not just a
    piece. Oversize as soon as the pieces pass the limit, without reading further."""
    parts = [first]
    size = len(first)
    async for message in rest:
        part = piece(message)
        size += len(part)
        if size > MAX_PACKAGE_BYTES:
            raise Oversize(
                f"the package is more than {MAX_PACKAGE_BYTES:,} bytes; at most "
                f"{MAX_PACKAGE_BYTES:,} are allowed"
            )
        parts.append(part)
    return b"".join(parts)
