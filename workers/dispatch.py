"""What the API asks of the workers: step a tournament's scheduler (``workers.scheduler``),
and play again the matches it handed out that have no result."""

from __future__ import annotations

from collections.abc import Sequence

from workers.app import app
from workers.broker import PLAY_MATCH

ADVANCE = "arena.advance_tournament"
"""The task ``workers.scheduler.advance_tournament``, by the name it is registered under;
``workers.broker.PLAY_MATCH`` is ``workers.tasks.play_match``'s."""


def start(tournament_id: str, again: Sequence[str] = ()) -> None:
    """Queue ``again`` (a resumed tournament's matches without a result) and a scheduler
    step. Second halves the scheduler holds back are left out: a step queues each once
    its first half has ended."""
    if again:
        from workers.scheduler import held_back  # the API loads it only to resume
        from workers.stores import tournaments

        held = held_back(tournaments().get(tournament_id))
        again = [m for m in again if m not in held]
    for match_id in again:
        app.send_task(PLAY_MATCH, args=[tournament_id, match_id])
    app.send_task(ADVANCE, args=[tournament_id])
