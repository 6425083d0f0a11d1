"""Form posts read within bounds: the body (refused past a size as soon as it passes),
``application/x-www-form-urlencoded`` fields, and ``multipart/form-data`` with one file.

Multipart bodies are parsed by python-multipart (what Starlette's ``Request.form`` uses);
around it, the author's few forms (a sign-in, a sign-out, an upload) are read strictly:
the body bounded before parsing, a known set of fields, each once, each bounded, and
anything else a ``FormError`` saying what was wrong. Pure: no Starlette.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection
from dataclasses import dataclass, field
from urllib.parse import parse_qsl

from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import Field, File, FormParser, parse_options_header

MAX_FIELD_CHARS = 2000
"""A text field (a name, a token, a command)."""
MAX_PARTS = 16


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


def multipart(body: bytes, content_type: str, allowed: Collection[str], file: str) -> Form:
    """The fields (only ``allowed`` ones) and the one file, field ``file``, of a
    ``multipart/form-data`` body (RFC 7578), parsed by python-multipart (Starlette's own
    form parser): at most ``MAX_PARTS`` parts, the file kept in memory (the body is
    already bounded by ``read_body``)."""
    kind, params = parse_options_header(content_type)
    boundary = params.get(b"boundary", b"")
    if kind != b"multipart/form-data":
        raise FormError("this form is sent as multipart/form-data (it carries a file)")
    if not boundary:
        raise FormError("the multipart form has no boundary")
    fields: dict[str, str] = {}
    files: dict[str, Upload] = {}
    parts: list[str] = []
    ended: list[bool] = []

    def part(raw: bytes | None) -> str:
        parts.append(name := _text("field name", raw or b""))
        if len(parts) > MAX_PARTS:
            raise FormError(f"the form has more than {MAX_PARTS} parts")
        return name

    def on_field(found: Field) -> None:
        name = part(found.field_name)
        _add(fields, allowed, name, _text(name, found.value or b""))

    def on_file(found: File) -> None:
        name = part(found.field_name)
        if name != file:
            raise FormError(f"unexpected file in the field {name[:40]!r}; this form takes {file!r}")
        if name in files:
            raise FormError(f"the field {name!r} was sent twice")
        found.file_object.seek(0)
        data = found.file_object.read()
        files[name] = Upload(_text("filename", found.file_name or b""), data)

    parser = FormParser(
        "multipart/form-data",
        on_field,
        on_file,
        on_end=lambda: ended.append(True),
        boundary=boundary,
        config={"MAX_MEMORY_FILE_SIZE": len(body) + 1, "MAX_BODY_SIZE": len(body)},
    )
    try:
        parser.write(body)
        parser.finalize()
    except MultipartParseError as error:
        raise FormError(f"the multipart form cannot be read: {error}") from None
    if not ended:
        raise FormError("the multipart form is cut short (no closing boundary)")
    return Form(fields, files)
