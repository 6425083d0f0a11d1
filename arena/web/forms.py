"""Form posts read within bounds: the body (refused past a size as soon as it passes),
``application/x-www-form-urlencoded`` fields, and ``multipart/form-data`` with one file.

The project has no form parser (Starlette's needs python-multipart, which it does not
depend on), and the author's forms are small and few: a sign-in, a sign-out, an upload.
So this reads them itself, strictly: a known set of fields, each once, each bounded,
and anything else is a ``FormError`` saying what was wrong. Pure: no Starlette.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Collection
from dataclasses import dataclass, field
from email.message import Message
from email.utils import collapse_rfc2231_value
from urllib.parse import parse_qsl

MAX_FIELD_CHARS = 2000
"""A text field (a name, a token, a command)."""
MAX_PARTS = 16
MAX_HEADER_BYTES = 2048
"""One part's headers."""
_BOUNDARY = re.compile(r"^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]\Z")


class FormError(ValueError):
    """A post that cannot be read; ``status`` (400 or 413) and a message saying why."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Upload:
    """A file sent with a form: its name as the browser gave it, and its bytes."""

    filename: str
    data: bytes = field(repr=False)


@dataclass(frozen=True)
class Form:
    fields: dict[str, str]
    files: dict[str, Upload] = field(default_factory=dict)

    def get(self, name: str) -> str:
        return self.fields.get(name, "")


async def read_body(chunks: AsyncIterator[bytes], limit: int, declared: str | None) -> bytes:
    """The whole body, refused (413) as soon as it passes ``limit`` bytes, or at once
    when its ``Content-Length`` says it will."""
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise FormError(f"the post is {int(declared):,} bytes; at most {limit:,} are read", 413)
    parts: list[bytes] = []
    size = 0
    async for chunk in chunks:
        size += len(chunk)
        if size > limit:
            raise FormError(
                f"the post is more than {limit:,} bytes; at most {limit:,} are read", 413
            )
        parts.append(chunk)
    return b"".join(parts)


def _text(name: str, raw: bytes | str) -> str:
    try:
        value = raw.decode() if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        raise FormError(f"the field {name!r} is not UTF-8 text") from None
    if len(value) > MAX_FIELD_CHARS:
        raise FormError(f"the field {name!r} is longer than {MAX_FIELD_CHARS} characters")
    return value


def _add(fields: dict[str, str], allowed: Collection[str], name: str, value: str) -> None:
    if name not in allowed:
        raise FormError(f"unexpected field {name[:40]!r}; this form takes {', '.join(allowed)}")
    if name in fields:
        raise FormError(f"the field {name!r} was sent twice")
    fields[name] = value


def urlencoded(body: bytes, allowed: Collection[str]) -> Form:
    """The fields of an ``application/x-www-form-urlencoded`` body, only ``allowed`` ones."""
    try:
        text = body.decode("ascii")
        pairs = parse_qsl(text, keep_blank_values=True, strict_parsing=bool(text),
                          max_num_fields=MAX_PARTS, errors="strict")  # fmt: skip
    except (UnicodeDecodeError, ValueError):
        raise FormError("the form's body is not a URL-encoded form") from None
    fields: dict[str, str] = {}
    for name, value in pairs:
        _add(fields, allowed, name, _text(name, value))
    return Form(fields)


def _params(header: str) -> tuple[str, dict[str, str]]:
    """A header's value and parameters, as the email package parses them (quoted
    strings, RFC 2231)."""
    message = Message()
    message["x"] = header
    params = message.get_params(header="x") or []
    value = params[0][0].lower() if params else ""
    found = {key.lower(): collapse_rfc2231_value(raw) for key, raw in params[1:]}
    return value, found


def boundary_of(content_type: str) -> str:
    """The boundary of a ``multipart/form-data`` content type; FormError for another."""
    kind, params = _params(content_type)
    if kind != "multipart/form-data":
        raise FormError("this form is sent as multipart/form-data (it carries a file)")
    boundary = params.get("boundary", "")
    if not _BOUNDARY.match(boundary):
        raise FormError("the multipart form has no valid boundary")
    return boundary


def multipart(body: bytes, content_type: str, allowed: Collection[str], file: str) -> Form:
    """The fields (only ``allowed`` ones) and the one file, field ``file``, of a
    ``multipart/form-data`` body (RFC 7578): each part's headers bounded, at most
    ``MAX_PARTS`` parts."""
    delimiter = b"--" + boundary_of(content_type).encode()
    sections = (b"\r\n" + body).split(b"\r\n" + delimiter)
    if len(sections) < 2 or not sections[-1].startswith(b"--"):
        raise FormError("the multipart form is cut short (no closing boundary)")
    if len(sections) - 2 > MAX_PARTS:
        raise FormError(f"the form has more than {MAX_PARTS} parts")
    fields: dict[str, str] = {}
    files: dict[str, Upload] = {}
    for section in sections[1:-1]:
        head, separator, content = section.partition(b"\r\n\r\n")
        if not separator or not head.startswith(b"\r\n") or len(head) > MAX_HEADER_BYTES:
            raise FormError("a part of the multipart form has no readable headers")
        disposition = ""
        for line in head[2:].split(b"\r\n"):
            header, colon, value = line.partition(b":")
            if not colon:
                raise FormError("a part of the multipart form has a malformed header")
            if header.strip().lower() == b"content-disposition":
                disposition = value.decode("utf-8", "replace").strip()
        kind, params = _params(disposition)
        if kind != "form-data" or not params.get("name"):
            raise FormError("a part of the multipart form names no field")
        name = params["name"]
        if name == file:
            if name in files:
                raise FormError(f"the field {name!r} was sent twice")
            files[name] = Upload(_text("filename", params.get("filename", "")), content)
        else:
            _add(fields, allowed, name, _text(name, content))
    return Form(fields, files)
