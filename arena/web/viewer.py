"""The replay viewer: its frames as JSON.

The page is a shell: ``static/viewer.js`` fetches ``/api/replays/{t}/{m}/frames``
(``arena.replay.frames``) and draws the table; the replay as text stays in the page for
readers without JavaScript. The static files ship in the package (``arena/web/static``,
served at ``/static/``) and nothing is loaded from elsewhere.
"""

from __future__ import annotations

from typing import Any

from arena.replay.frames import FramesRefused, build_frames, check_version
from arena.replay.verify import ReplayMismatch
from arena.web.data import Replay
from arena.web.errors import HttpError


def checked(replay: Replay) -> None:
    """A replay of another format or version is refused, saying which (502: the referee
    sent what this site cannot read)."""
    try:
        check_version(replay.document)
    except FramesRefused as error:
        raise HttpError(
            502, f"replay unavailable: {replay.record.replay_id} cannot be shown: {error}"
        ) from None


def seat_names(replay: Replay) -> list[str] | None:
    """Each seat's bot by its registered name: the result's entry of the seat's team (a
    tournament plays one entry per team); None leaves the names the replay records."""
    entries = list(replay.record.entries)
    seats = replay.document.get("seats")
    if not isinstance(seats, list) or not all(isinstance(s, dict) for s in seats):
        return None
    teams = [s.get("team") for s in seats]
    if not entries or not all(isinstance(t, int) and 0 <= t < len(entries) for t in teams):
        return None
    return [entries[t] for t in teams]


def frames(replay: Replay) -> dict[str, Any]:
    """The viewer's frames of a replay; one that does not verify is a 502 saying where."""
    checked(replay)
    try:
        return build_frames(replay.document, seat_names(replay))
    except ReplayMismatch as error:
        raise HttpError(
            502, f"replay unavailable: {replay.record.replay_id} does not verify: {error}"
        ) from None
