"""A referee's replay directory is a cache: when it cannot take a replay (a full disk,
here a file size limit of 1 KiB on the referee process) the match is still played and
answered with its record, no half-written file is left behind, and the referee says
so in its log and its metrics."""

from __future__ import annotations

import shlex
import time
import urllib.request
from pathlib import Path

import grpc
import pytest

from arena import wire
from arena.processes import Service, arena_command, free_port, start_service
from arena.replay.match_log import replay
from arena.v1 import referee_pb2, referee_pb2_grpc


def test_a_replay_the_cache_cannot_take_costs_the_match_nothing(
    tmp_path: Path, basic_bot: Service, random_bot: Service
) -> None:
    replays = tmp_path / "replays"
    metrics_port = free_port()
    command = arena_command(
        "referee", "serve", "--port", "0", "--replay-dir", str(replays),
        "--metrics-port", str(metrics_port),
    )  # fmt: skip
    # Python ignores SIGXFSZ: a write past the limit fails with EFBIG, as on a full disk.
    referee = start_service(["bash", "-c", "ulimit -f 1 && exec " + shlex.join(command)])
    try:
        with grpc.insecure_channel(referee.address) as channel:
            result: referee_pb2.MatchResult = referee_pb2_grpc.RefereeStub(channel).PlayMatch(
                referee_pb2.PlayMatchRequest(
                    game="bid-euchre",
                    bots=[basic_bot.address, random_bot.address],
                    seed=5,
                    move_deadline=wire.duration(2.0),
                ),
                timeout=120,
            )
        assert result.end == referee_pb2.MATCH_END_COMPLETED
        assert list(replay(result.log).scores) == [t.score for t in result.teams]
        assert list(replays.iterdir()) == []  # no replay, and no .tmp-* file either
        deadline = time.monotonic() + 10
        while not any("not cached" in line for line in referee.output):
            assert time.monotonic() < deadline, list(referee.output)
            time.sleep(0.05)
        scraped = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics").read()
        assert b"arena_referee_replay_cache_errors_total 1.0" in scraped
    finally:
        referee.stop()


def test_an_unknown_replay_names_no_path_on_the_referees_host(
    referee_stub: referee_pb2_grpc.RefereeStub, replay_dir: Path
) -> None:
    with pytest.raises(grpc.RpcError) as missing:
        referee_stub.GetReplay(referee_pb2.GetReplayRequest(replay_id="no-such-replay"))
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND
    details = missing.value.details() or ""
    assert details.startswith("no replay 'no-such-replay' here") and str(replay_dir) not in details
    assert "/" not in details
