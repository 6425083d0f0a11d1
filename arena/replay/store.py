"""Replays on local disk, one JSON file per match, written atomically: a referee's
optional cache and ``arena match``'s output (the record kept with a result is the
replay's source: ``arena.replay.match_log``)."""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}\Z")


class ReplayNotFound(LookupError):
    """``str()`` names the directory, for its owner; ``public`` does not, for anyone."""

    def __init__(self, message: str, public: str = "") -> None:
        super().__init__(message)
        self.public = public or message


class ReplayStore:
    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    def _path(self, replay_id: str) -> Path:
        if not _ID.match(replay_id):
            raise ReplayNotFound(
                f"bad replay id {replay_id!r}: use 1 to 64 letters, digits, '-' or '_'"
            )
        return self.directory / f"{replay_id}.json"

    def save(self, replay_id: str, document: dict[str, Any]) -> Path:
        path = self._path(replay_id)
        self.directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                # Compact: the C encoder is ten times faster than indented output.
                out.write(json.dumps(document, separators=(",", ":")))
                out.write("\n")
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)  # a full disk leaves no half-written file
            raise
        return path

    def __str__(self) -> str:
        return str(self.directory)

    def exists(self, replay_id: str) -> bool:
        return self._path(replay_id).exists()

    def load_text(self, replay_id: str) -> str:
        path = self._path(replay_id)
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ReplayNotFound(
                f"no replay {replay_id!r} in {self.directory}",
                f"no replay {replay_id!r} here: a referee keeps only what it played itself, "
                "and only while its replay cache does",
            ) from None

    def load(self, replay_id: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.load_text(replay_id))
        return data
