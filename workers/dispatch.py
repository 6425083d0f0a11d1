"""Queue a tournament's matches: one ``play_match`` task each. Nothing waits for the set
to complete: the match that completes the schedule finalises the tournament, and the
watchdog (``workers.watchdog``) does if that worker died."""

from __future__ import annotations

from collections.abc import Sequence

from workers.tasks import finalize_tournament, play_match


def queue_matches(tournament_id: str, match_ids: Sequence[str]) -> None:
    if not match_ids:
        finalize_tournament.delay(tournament_id)
    for match_id in match_ids:
        play_match.delay(tournament_id, match_id)
