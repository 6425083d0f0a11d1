"""What a stored result shows while its tournament runs: nothing that deals its cards,
and for a duplicate half not even the id that opens its events on the referee."""

from __future__ import annotations

from dataclasses import replace

from arena.api.service import record_message
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


def test_a_duplicate_half_hides_its_referee_id_until_the_tournament_ends() -> None:
    half = stored("t-seep-0-a", "t-seep-0")
    running = record_message(half, revealed=False)
    assert running.referee_match_id == "" and running.replay_id == ""
    assert not running.HasField("seed") and running.deal_salt == ""
    assert running.deal_commitment == "c" * 64
    ended = record_message(half, revealed=True)
    assert ended.referee_match_id == "t-seep-0-a-0a1b2c3d" and ended.seed == 77


def test_a_match_with_its_own_deal_shows_its_referee_id_while_it_runs() -> None:
    alone = record_message(stored("t-seep-3", "t-seep-3"), revealed=False)
    assert alone.referee_match_id == "t-seep-3-0a1b2c3d"  # its events show only its own deal
    assert alone.replay_id == "" and not alone.HasField("seed")


def test_when_a_result_started_and_was_stored_is_shown_when_it_was_kept() -> None:
    kept = replace(
        stored("t-seep-3", "t-seep-3"), started_at=1_699_999_990.5, finished_at=1_700_000_000.25
    )
    shown = record_message(kept, revealed=False)
    assert shown.started_at.ToMilliseconds() == 1_699_999_990_500
    assert shown.finished_at.ToMilliseconds() == 1_700_000_000_250
    unkept = replace(stored("t-seep-3", "t-seep-3"), started_at=None, finished_at=None)
    older = record_message(unkept, revealed=True)
    # stored before the arena kept the times
    assert not older.HasField("finished_at") and not older.HasField("started_at")
