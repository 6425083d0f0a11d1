"""Costly anonymous reads (replay pages, frames, sent requests) have a budget per client:
a burst goes through, then 429 with when to retry, while another client is served; and
a published replay, which never changes, costs the arena once."""

from __future__ import annotations

import asyncio

import pytest
from starlette.testclient import TestClient

from arena.throttle import Throttle
from arena.v1 import arena_pb2
from arena.web.app import create_app
from arena.web.data import ArenaData, Replay
from tests.support.fake_source import FakeSource

COSTLY = (
    "/replays/t1/m1",
    "/api/replays/t1/m1",
    "/api/replays/t1/m1/frames",
    "/api/replays/t1/m1/frames/0/sent",
)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_lets_a_burst_through_then_refills_at_its_rate() -> None:
    clock = Clock()
    throttle = Throttle(rate_per_s=2.0, burst=3, clock=clock)
    assert [throttle.take("a") for _ in range(4)] == [None, None, None, 1]
    assert throttle.take("b") is None  # another client has a budget of its own
    clock.now += 0.5  # one read's worth back
    assert throttle.take("a") is None and throttle.take("a") == 1
    clock.now += 60  # never more than the burst
    assert [throttle.take("a") for _ in range(4)] == [None, None, None, 1]


def test_a_slow_rate_says_how_long_to_wait() -> None:
    throttle = Throttle(rate_per_s=0.1, burst=1, clock=Clock())
    assert throttle.take("a") is None and throttle.take("a") == 10


def test_forgetting_idle_clients_keeps_memory_bounded() -> None:
    throttle = Throttle(rate_per_s=1.0, burst=1, clock=Clock(), clients=2)
    for client in ("a", "b", "c"):
        throttle.take(client)
    assert throttle.take("c") == 1 and len(throttle) == 2


def test_a_greedy_client_is_refused_with_retry_after_and_another_is_served() -> None:
    app = create_app("api:1", FakeSource(), costly=Throttle(rate_per_s=0.01, burst=4))
    greedy = TestClient(app, raise_server_exceptions=False, client=("198.51.100.7", 4000))
    honest = TestClient(app, raise_server_exceptions=False, client=("198.51.100.8", 4000))
    with greedy, honest:
        served = [greedy.get(path).status_code for path in COSTLY]
        assert 429 not in served  # FakeSource has no replay to give: 404 or 502
        for path in COSTLY:
            refused = greedy.get(path)
            assert refused.status_code == 429, path
            assert refused.headers["retry-after"] == "100"
        assert "faster than 0.01 a second (bursts of 4)" in greedy.get(COSTLY[1]).json()["error"]
        assert honest.get(COSTLY[3]).status_code != 429
        assert greedy.get("/livez").status_code == 200  # cheap reads are not counted


def test_a_published_replay_is_fetched_once_by_either_of_its_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fetched: list[str] = []

    async def fetch(self: ArenaData, tournament_id: str, match_id: str) -> Replay:
        fetched.append(match_id)
        record = arena_pb2.MatchRecord(match_id="t1-seep-0-a", public_id="p" + "0" * 20, seed=7)
        return Replay(tournament_id, record, "{}", {})

    monkeypatch.setattr(ArenaData, "_fetch_replay", fetch)

    async def scenario() -> list[Replay]:
        data = ArenaData("127.0.0.1:1")
        try:
            names = ["t1-seep-0-a", "p" + "0" * 20, "t1-seep-0-a"]
            return [await data.replay("t1", name) for name in names]
        finally:
            await data.close()

    replays = asyncio.run(scenario())
    assert fetched == ["t1-seep-0-a"] and all(r is replays[0] for r in replays)
