"""The workers advance competitions' phases by the clock: real worker processes, a
timeline of a few seconds, each transition recorded once however many workers run."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from arena.processes import Service, arena_command, start_service
from arena.store.competitions import CompetitionStore
from arena.v1 import arena_pb2
from tests.competition.helpers import Api, spec
from tests.support.waiting import wait_until
from workers.competitions import advance

CLOCK_PHASES = [
    arena_pb2.COMPETITION_PHASE_OPEN,
    arena_pb2.COMPETITION_PHASE_CLOSED,
    arena_pb2.COMPETITION_PHASE_FINAL,
    arena_pb2.COMPETITION_PHASE_FINISHED,
]


@pytest.fixture
def workers(api: Api) -> Iterator[list[Service]]:
    started = [
        start_service(
            arena_command(
                "worker",
                "--redis",
                api.redis_url,
                "--referee",
                "127.0.0.1:1",
                "--concurrency",
                "1",
                "--name",
                f"w{i}@competition-test",
                "--loglevel",
                "WARNING",
            ),
            env={"ARENA_WATCHDOG_INTERVAL": "0.5"},
        )
        for i in range(2)
    ]
    yield started
    for worker in started:
        worker.kill()


def _get(api: Api, name: str) -> arena_pb2.Competition:
    found: arena_pb2.Competition = api.stub.GetCompetition(
        arena_pb2.GetCompetitionRequest(name=name)
    )
    return found


def test_two_workers_record_each_transition_once_and_a_cancelled_one_never_moves(
    api: Api, workers: list[Service]
) -> None:
    api.create(spec("season", opens_in=1, open_for=1.5, final_for=1.5))
    api.create(spec("called-off-season", opens_in=1, open_for=1, final_for=1))
    api.stub.CancelCompetition(
        arena_pb2.CancelCompetitionRequest(name="called-off-season"), metadata=api.operator()
    )
    seen = []

    def finished() -> bool:
        found = _get(api, "season")
        seen.append(found.phase)
        return found.phase == arena_pb2.COMPETITION_PHASE_FINISHED

    wait_until(finished, 60, "the season to finish by the clock")
    season = _get(api, "season")
    assert [t.phase for t in season.transitions] == CLOCK_PHASES
    timeline = season.spec.timeline
    due = [timeline.opens_at, timeline.submissions_close_at, timeline.submissions_close_at,
           timeline.final_ends_at]  # fmt: skip
    assert [t.due_at for t in season.transitions] == due
    for step in season.transitions:
        assert step.recorded_at.ToNanoseconds() >= step.due_at.ToNanoseconds()
    assert arena_pb2.COMPETITION_PHASE_OPEN in seen  # read between rounds, phase by phase
    cancelled = _get(api, "called-off-season")
    assert cancelled.phase == arena_pb2.COMPETITION_PHASE_CANCELLED
    assert [t.phase for t in cancelled.transitions] == [arena_pb2.COMPETITION_PHASE_CANCELLED]


def test_advancing_at_once_from_many_threads_records_each_transition_once(api: Api) -> None:
    api.create(spec("raced", opens_in=0.2, open_for=0.2, final_for=0.2))
    store = CompetitionStore(api.redis)
    wait_until(lambda: time.time() > store.get("raced").spec.timeline.final_ends_at, 10, "the end")  # type: ignore[union-attr]
    recorded: list[tuple[str, str]] = []
    start = threading.Barrier(8)

    def run() -> None:
        start.wait()
        mine = advance(CompetitionStore(api.redis))
        recorded.extend(r for r in mine if r[0] == "raced")

    threads = [threading.Thread(target=run) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(recorded) == sorted(("raced", p) for p in ("open", "closed", "final", "finished"))
    record = store.get("raced")
    assert record is not None and [t.phase for t in record.transitions] == [
        "open", "closed", "final", "finished"
    ]  # fmt: skip
