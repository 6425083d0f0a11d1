"""One referee, 64 matches at once, bots that think about 50 ms under a 150 ms deadline:
no match is lost to a spurious timeout forfeit. (Under a 100 ms deadline a slow 2-core
CI machine missed enough deadlines to forfeit a match now and then.)

The referee and the bots run ahead of the rest of the machine (``nice -n -10``, where
the user may raise priority): this is the referee's own load, as on a referee host, while
the suite's other workers share the cores and would otherwise take turns the clock is
measured against."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path

import grpc
import pytest

from arena import wire
from arena.processes import Service, arena_command, start_service
from arena.v1 import referee_pb2, referee_pb2_grpc
from tests.support.bots import bot_command

CONCURRENT = 64
AHEAD = ("nice", "-n", "-10")
"""Run ahead of the suite's other processes (only a warning where that is not allowed)."""


@pytest.fixture
def own_referee(tmp_path: Path) -> Iterator[referee_pb2_grpc.RefereeStub]:
    """A referee of this test's own: the session's has served every earlier test, and
    what it still holds (idle connections, feeds) is not part of this load."""
    referee = _ahead(
        arena_command("referee", "serve", "--port", "0", "--replay-dir", str(tmp_path))
    )
    try:
        with grpc.insecure_channel(referee.address) as channel:
            yield referee_pb2_grpc.RefereeStub(channel)
    finally:
        referee.stop()


def test_64_concurrent_matches_of_thinking_bots_lose_nothing_to_the_clock(
    own_referee: referee_pb2_grpc.RefereeStub,
) -> None:
    referee_stub = own_referee
    bots = [_ahead(bot_command("paced", "--delay-ms", "50", "--seed", str(s))) for s in (1, 2)]
    try:
        results = _play_all(referee_stub, [b.address for b in bots])
    finally:
        for bot in bots:
            bot.stop()

    timeouts = sum(1 for r in results for f in r.faults if f.kind == referee_pb2.FAULT_KIND_TIMEOUT)
    forfeits = [r.match_id for r in results if r.end != referee_pb2.MATCH_END_COMPLETED]
    assert not forfeits, f"{len(forfeits)} matches forfeited; {timeouts} timeouts in all"
    assert all(r.decisions > 100 for r in results)
    # The matches really ran at once: the last one started before the first one ended.
    spans = []
    for result in results:
        replay = json.loads(
            referee_stub.GetReplay(referee_pb2.GetReplayRequest(replay_id=result.replay_id)).json
        )
        started = datetime.fromisoformat(replay["started_at"])
        spans.append((started, started + result.duration.ToTimedelta()))
    assert max(start for start, _ in spans) < min(end for _, end in spans)


def _ahead(command: list[str]) -> Service:
    """Start ``command`` ahead of the machine's other processes. ``nice`` alone is not
    enough where the kernel groups processes by session (autogroups, on by default): it
    ranks processes within their session only, and each service has a session of its own,
    so the session's group is raised too."""
    service = start_service([*AHEAD, *command])
    with contextlib.suppress(OSError):
        Path(f"/proc/{service.process.pid}/autogroup").write_text("-10")
    return service


def _play_all(
    referee_stub: referee_pb2_grpc.RefereeStub, bots: list[str]
) -> list[referee_pb2.MatchResult]:
    def play(seed: int) -> referee_pb2.MatchResult:
        result: referee_pb2.MatchResult = referee_stub.PlayMatch(
            referee_pb2.PlayMatchRequest(
                game="persian-rummy",  # about 200 decisions: 10 s of thinking a match
                bots=bots,
                seed=seed,
                move_deadline=wire.duration(0.15),
            ),
            timeout=600,
        )
        return result

    with ThreadPoolExecutor(CONCURRENT) as pool:
        return list(pool.map(play, range(1000, 1000 + CONCURRENT)))
