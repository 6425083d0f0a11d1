"""Removing hosted bots, end to end with real workers and a referee: a tournament that
entered a version removed while it runs still plays it (the workers fetch its kept
package for the referee), and once it has finished its results, leaderboard and replays
outlive the packages, which are then deleted."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from arena.hosting.example_packages import python_package
from arena.hosting.package import digest, pack
from arena.hosting.transfer import submission
from arena.local_redis import LocalRedis
from arena.store import keys
from arena.v1 import arena_pb2, referee_pb2, referee_pb2_grpc
from tests.support.arena import Arena, start_arena

RANDOM = """
    from arena.bots.examples.random_bot import RandomBot
    from arena.bots.sdk import serve
    serve(RandomBot(seed={seed}))
"""


@pytest.fixture(scope="module")
def arena(local_redis: LocalRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    stack = start_arena(local_redis, tmp_path_factory.mktemp("hosted-removal"))
    yield stack  # with no worker until a test starts one
    stack.stop()


def submit(arena: Arena, name: str, blob: bytes) -> None:
    arena.stub.SubmitBot(
        submission(
            arena_pb2.SubmitBotRequest(
                name=name,
                version="v1",
                runtime="python3.11",
                command="python3 bot.py",
                package=blob,
            )
        )
    )


def test_a_version_removed_mid_tournament_is_played_and_its_results_outlive_its_package(
    arena: Arena, tmp_path: Path
) -> None:
    blobs = {
        name: pack(python_package(tmp_path / name, RANDOM.format(seed=seed)))
        for name, seed in (("gone-a", 3), ("gone-b", 5))
    }
    for name, blob in blobs.items():
        submit(arena, name, blob)
    tournament = arena.submit(["gone-a", "gone-b"], games=["seep"])

    removed = arena.stub.RemoveBot(arena_pb2.RemoveBotRequest(name="gone-a"))
    assert list(removed.packages.kept_for) == [tournament.id]
    assert removed.packages.kept_bytes == len(blobs["gone-a"])
    # Only now does a worker start: the referee, which has never had the package, gets
    # the kept bytes from it.
    arena.start_worker("removal", concurrency=1)
    done = arena.wait_until(tournament.id)
    assert done.matches_done == 2 and done.forfeits == 0

    # Removing the other sweeps too: the finished tournament keeps neither package.
    arena.stub.RemoveBot(arena_pb2.RemoveBotRequest(name="gone-b"))
    for blob in blobs.values():
        assert not arena.redis.exists(keys.package(digest(blob)))

    results = arena.stub.ListResults(
        arena_pb2.ListResultsRequest(tournament_id=tournament.id)
    ).results
    assert {tuple(r.entries) for r in results} == {
        ("gone-a@v1", "gone-b@v1"),
        ("gone-b@v1", "gone-a@v1"),
    }
    board = arena.stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(tournament_id=tournament.id))
    assert {row.bot for row in board.rows} == {"gone-a@v1", "gone-b@v1"}
    with grpc.insecure_channel(arena.referee.address) as channel:
        referee = referee_pb2_grpc.RefereeStub(channel)
        for result in results:
            replay = referee.GetReplay(referee_pb2.GetReplayRequest(replay_id=result.replay_id))
            assert "gone-a@v1" in replay.json and "gone-b@v1" in replay.json
