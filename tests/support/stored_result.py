"""A complete stored match result, as the store keeps it."""

from __future__ import annotations

from arena.store.results import MatchResult
from tests.records import result


def stored(match_id: str, pair_key: str) -> MatchResult:
    return result(
        match_id=match_id,
        game="seep",
        pair_key=pair_key,
        deal=0,
        entries=["a", "b"],
        scores=[3, 1],
        winner_team=0,
        end="completed",
        forfeit_team=None,
        team_faults=[0, 0],
        decisions=40,
        duration_ms=12,
        referee="127.0.0.1:1",
        deal_commitment="c" * 64,
        referee_match_id=f"{match_id}-0a1b2c3d",
        seed=77,
        replay_id=f"{match_id}-0a1b2c3d",
        deal_salt="5" * 32,
    )
