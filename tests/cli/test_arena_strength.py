"""``arena test NEW --vs OLD --games N`` against a whole arena (Redis, the API, a worker,
a referee and two bots as processes): exactly N units, as a round robin of the two, and
the report counts what the arena stored."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.cli.common import CliError
from arena.cli.sprt import Strength, tally
from arena.local_redis import LocalRedis
from arena.processes import arena_command
from arena.v1 import arena_pb2
from tests.support.arena import Arena, start_arena


@pytest.fixture
def arena(local_redis: LocalRedis, tmp_path: Path) -> Iterator[Arena]:
    stack = start_arena(local_redis, tmp_path)
    stack.start_worker("w1", concurrency=2)
    stack.start_bot("house", "house")
    stack.start_bot("rand", "random", "--seed", "3")
    yield stack
    stack.stop()


def house_outcomes(records: list[arena_pb2.MatchRecord]) -> tuple[int, int, int]:
    """House's wins, draws and losses, unit by unit: its points less rand's, summed over
    the matches of a unit (both halves of a pair share its pair key)."""
    margins: dict[str, int] = {}
    for r in records:
        assert r.end == arena_pb2.RESULT_END_COMPLETED, r
        house = list(r.entries).index("house")
        margins[r.pair_key] = margins.get(r.pair_key, 0) + r.scores[house] - r.scores[1 - house]
    won = sum(m > 0 for m in margins.values())
    drawn = sum(m == 0 for m in margins.values())
    return won, drawn, len(margins) - won - drawn


@pytest.mark.parametrize(
    ("flags", "unit", "units", "matches"),
    [
        ((), "match", "matches", 6),
        (("--fair-play", "trusted"), "duplicate pair", "duplicate pairs", 12),
    ],
)
def test_games_plays_n_units_and_reports_what_the_arena_stored(
    arena: Arena, flags: tuple[str, ...], unit: str, units: str, matches: int
) -> None:
    command = arena_command(
        "test", "house", "--vs", "rand", "--game", "bid-euchre", "--games", "6",
        "--api", arena.api.address, *flags,
    )  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    (tournament,) = arena.stub.ListTournaments(arena_pb2.ListTournamentsRequest()).tournaments
    assert tournament.state == arena_pb2.TOURNAMENT_STATE_FINISHED
    assert tournament.spec.format == arena_pb2.FORMAT_ROUND_ROBIN
    assert tournament.matches_done == matches
    records = list(
        arena.stub.ListResults(arena_pb2.ListResultsRequest(tournament_id=tournament.id)).results
    )
    counts = house_outcomes(records)
    assert sum(counts) == 6
    found, void = tally(records, "house", "rand")
    assert ((found.wins, found.draws, found.losses), void) == (counts, 0)
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"tournament {tournament.id} ")
    assert lines[-2:] == Strength(*counts).lines("house", "rand", unit)
    won, drawn, lost = counts
    assert lines[-2].startswith(
        f"house vs rand, 6 {units}: won {won}, drawn {drawn}, lost {lost}; "
    )


def record(
    match_id: str, pair_key: str, entries: tuple[str, str], scores: tuple[int, int], **more: Any
) -> arena_pb2.MatchRecord:
    """A stored result as ListResults gives it, with the fields the tally reads."""
    return arena_pb2.MatchRecord(
        match_id=match_id, pair_key=pair_key, entries=entries, scores=scores, **more
    )


def test_tally_scores_units_as_the_arena_rates_them() -> None:
    records = [
        # A pair NEW wins on the total margin though it lost one half.
        record("t-1-a", "t-1", ("new@v2", "old"), (10, 2)),
        record("t-1-b", "t-1", ("old", "new@v2"), (5, 1)),
        # A pair drawn on the margin.
        record("t-2-a", "t-2", ("new@v2", "old"), (3, 4)),
        record("t-2-b", "t-2", ("old", "new@v2"), (2, 3)),
        # A forfeit loses the pair whatever the points.
        record("t-3-a", "t-3", ("new@v2", "old"), (30, 0)),
        record(
            "t-3-b",
            "t-3",
            ("old", "new@v2"),
            (0, 9),
            end=arena_pb2.RESULT_END_FORFEIT,
            forfeit_team=1,
        ),
        # A half without a contest voids its pair.
        record("t-4-a", "t-4", ("new@v2", "old"), (1, 0)),
        record("t-4-b", "t-4", ("old", "new@v2"), (0, 0), end=arena_pb2.RESULT_END_NO_CONTEST),
    ]
    found, void = tally(records, "new", "old")
    assert ((found.wins, found.draws, found.losses), void) == ((1, 1, 1), 1)
    opened = [record("t-5-a", "t-5-a", ("old", "new"), (0, 3))]  # open play: a match a unit
    assert tally(opened, "new", "old") == (Strength(1, 0, 0), 0)
    with pytest.raises(CliError, match="is not between new and old"):
        tally([record("t-6-a", "t-6-a", ("new", "other"), (1, 0))], "new", "old")
