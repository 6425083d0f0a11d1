"""What the API asks of the workers: step a tournament's scheduler (``workers.scheduler``),
and play again the matches it handed out that have no result."""

from __future__ import annotations

from collections.abc import Sequence

from workers.app import app
from workers.broker import PLAY_MATCH

ADVANCE = "arena.advance_tournament"


def start(tournament_id: str, again: Sequence[str] = ()) -> None:
    for match_id in again:
        app.send_task(PLAY_MATCH, args=[tournament_id, match_id])
    app.send_task(ADVANCE, args=[tournament_id])
