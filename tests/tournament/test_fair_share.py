"""Running tournaments share the workers (``workers.scheduler.fair_share``): a small
tournament submitted behind a big one, or beside a ladder that never ends, is played
after the matches already out, not after the other's backlog. Measured in matches, not
seconds: how many of the other's results are stored while the small one runs. One
worker of two processes: the queue holds at most 2 matches a process (4), the two
tournaments then 2 each."""

from __future__ import annotations

import pytest

from arena.v1 import arena_pb2
from tests.support.arena import Arena

PROCESSES = 2
OUT_ALONE = 2 * PROCESSES
"""What a tournament alone may have queued or playing (``PER_PROCESS`` a process)."""


def _others_while_small_runs(arena: Arena, other: str, games: list[str]) -> tuple[int, int]:
    """Submit a small round robin once ``other`` is under way; the other's results
    stored from then until the small one finished, and the small one's matches."""
    arena.wait_until(other, done=OUT_ALONE)
    before = arena.get(other).matches_done
    small = arena.submit(["s1", "s2"], deals=1, games=games, name="small")
    finished = arena.wait_until(small.id)
    return arena.get(other).matches_done - before, finished.matches_total


@pytest.mark.parametrize("kind", ["behind a big tournament", "beside a ladder"])
def test_a_small_tournament_is_played_after_what_is_out_not_after_a_backlog(
    arena: Arena, kind: str
) -> None:
    # The shipped window (256) would queue the big one's whole schedule ahead of it.
    arena.start_worker("w", concurrency=PROCESSES)
    for name in ("b1", "b2", "b3", "b4"):
        arena.start_bot(name, "random", "--seed", name[1])
    arena.start_bot("s1", "house")
    arena.start_bot("s2", "random", "--seed", "9")
    if kind == "beside a ladder":  # every registered bot plays in it, s1 and s2 too
        other = arena.submit([], games=["seep"], format=arena_pb2.FORMAT_LADDER).id
    else:
        other = arena.submit(["b1", "b2", "b3", "b4"], deals=8, games=["seep"], name="big").id
        assert arena.get(other).matches_total == 96
    others, small_matches = _others_while_small_runs(arena, other, ["seep"])
    assert small_matches == 2
    # What was out when it came (at most OUT_ALONE), then the other's half of the
    # workers while the small one's two matches play (about one round each): a few
    # more. Without sharing it was the other's whole window (here up to 96).
    assert others <= OUT_ALONE + 2 * PROCESSES, f"{others} of the other's matches came first"
    assert arena.get(other).state == arena_pb2.TOURNAMENT_STATE_RUNNING
