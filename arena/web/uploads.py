"""The upload form's submission, checked before it is sent: what ``arena bot submit``
checks on the author's machine (the package's size), and what the API will check
first (names, the runtime, the package's members and the command,
``arena.hosting.package``), so that a bad package is refused by the site, with the
same words, without a call. The API checks everything again: it trusts no client.
Pure: no Starlette, no gRPC.
"""

from __future__ import annotations

import time

from arena import limits
from arena.hosting.package import MAX_PACKAGE_BYTES, InvalidPackage, command_argv, members
from arena.hosting.runtimes import NAMES as RUNTIMES
from arena.hosting.runtimes import declared
from arena.v1 import arena_pb2
from arena.web.forms import Form

FIELDS = ("csrf", "name", "version", "runtime", "command")
FILE = "package"
NAMES_ALLOWED = "1 to 40 letters, digits, '-', '_' or '.'"
"""As the API words it (``arena.api.hosted``)."""


class BadUpload(ValueError):
    """The submission is refused before it is sent; the message says why."""


def submission(form: Form, now: float | None = None) -> arena_pb2.SubmitBotRequest:
    """The SubmitBot request the form describes, once it passes the checks; BadUpload
    saying what is wrong. An empty version is labelled with the time, as the command
    labels it."""
    name = form.get("name").strip()
    label = form.get("version").strip() or time.strftime(
        "%Y%m%dT%H%M%SZ", time.gmtime(time.time() if now is None else now)
    )
    for value, what in ((name, "bot name"), (label, "version")):
        if not limits.BOT_NAME.match(value):
            raise BadUpload(f"bad {what} {value!r}: use {NAMES_ALLOWED}")
    runtime = form.get("runtime")
    if runtime not in RUNTIMES:
        raise BadUpload(f"unknown runtime {runtime!r}; allowed: {', '.join(RUNTIMES)}")
    upload = form.files.get(FILE)
    if upload is None or not upload.data:
        raise BadUpload("no package: choose the bot's .tar.gz file")
    blob = upload.data
    if len(blob) > MAX_PACKAGE_BYTES:
        raise BadUpload(
            f"{upload.filename or 'the package'} is {len(blob):,} bytes; the arena takes at "
            f"most {MAX_PACKAGE_BYTES:,}: leave out what the bot does not need to run"
        )
    command = form.get("command").strip()
    try:
        command_argv(command, declared(runtime), members(blob))
    except InvalidPackage as error:
        raise BadUpload(f"cannot submit {upload.filename or 'the package'}: {error}") from None
    return arena_pb2.SubmitBotRequest(
        name=name, version=label, runtime=runtime, command=command, package=blob
    )
