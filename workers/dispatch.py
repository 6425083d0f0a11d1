"""Queue a tournament's matches as one Celery canvas: a chord of ``play_match`` tasks
whose callback rates the tournament."""

from __future__ import annotations

from collections.abc import Sequence

from celery import chord, group

from workers.tasks import finalize_tournament, play_match


def queue_matches(tournament_id: str, match_ids: Sequence[str]) -> None:
    callback = finalize_tournament.si(tournament_id)
    if not match_ids:
        callback.apply_async()
        return
    header = group(play_match.si(tournament_id, match_id) for match_id in match_ids)
    chord(header)(callback)
