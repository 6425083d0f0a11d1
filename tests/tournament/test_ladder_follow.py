"""Ladders people can follow, end to end with real processes: an open ladder's matches
are replayable as soon as each has ended (a trusted one's only once it ends), and a
ladder stops pairing an entry that only forfeits, says why wherever it is read, and
pairs it again once its Hello answers (a remote bot at its address, a hosted one
started by a referee)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest

from arena.processes import arena_command, start_service
from arena.store import TournamentStore, keys
from arena.tournament.fair_play import PUBLIC_ID
from arena.v1 import arena_pb2
from tests.support.arena import Arena
from tests.support.cli import cli
from tests.support.hosted_tournaments import HOUSE, package, submit
from tests.support.leaderboard import get, web

STUCK_S = 240
"""How long a test waits for what should happen before it says where it is stuck."""


def wait_for(what: str, check: Callable[[], object]) -> None:
    deadline = time.monotonic() + STUCK_S
    while not check():
        assert time.monotonic() < deadline, f"stuck waiting for {what}"
        time.sleep(0.2)


def test_an_open_ladder_publishes_each_match_once_it_has_ended(arena: Arena) -> None:
    worker = arena.start_worker("w", concurrency=2, env={"ARENA_SCHEDULE_WINDOW": "4"})
    arena.start_bot("house", "house")
    arena.start_bot("r1", "random", "--seed", "1")
    site = web(arena)
    ladder = arena.submit([], games=["seep"], format=arena_pb2.FORMAT_LADDER)
    trusted = arena.submit(
        [], games=["seep"], format=arena_pb2.FORMAT_LADDER, fair_play=arena_pb2.FAIR_PLAY_TRUSTED
    )
    arena.wait_until(ladder.id, done=4)
    arena.wait_until(trusted.id, done=4)
    worker.stop()  # the ladders stay running, and can be read at leisure

    def playing(t: arena_pb2.Tournament) -> int:
        return int(arena.redis.zcount(keys.playing(t.id), f"({time.time()!r}", "+inf"))

    wait_for("the last leases to lapse", lambda: playing(ladder) == playing(trusted) == 0)
    assert arena.get(ladder.id).state == arena_pb2.TOURNAMENT_STATE_RUNNING
    records = arena.stub.ListResults(arena_pb2.ListResultsRequest(tournament_id=ladder.id)).results
    published = [r for r in records if r.HasField("seed")]
    assert len(records) >= 4 and published == list(records)  # no attempt holds a lease
    for r in published:
        assert r.replay_id and r.deal_salt and r.referee_match_id
        # Still named by public ids only: no schedule id, deal number or deal key.
        assert PUBLIC_ID.fullmatch(r.match_id) and r.pair_key == r.match_id
        assert not r.HasField("deal") and r.deal_key == ""
    assert "-ladder-" not in str(records)
    shown = published[0]
    replay = arena.stub.GetMatchReplay(
        arena_pb2.GetMatchReplayRequest(tournament_id=ladder.id, match_id=shown.match_id)
    )
    document = json.loads(replay.json)
    assert replay.replay_id == shown.match_id and "-ladder-" not in replay.json
    assert document["seed"] == shown.seed and document["deal_salt"] == shown.deal_salt
    # By a schedule id, the running ladder's secret, it is refused.
    schedule_ids = [r.match_id for r in TournamentStore(arena.redis).results(ladder.id)]
    with pytest.raises(grpc.RpcError) as refused:
        arena.stub.GetMatchReplay(
            arena_pb2.GetMatchReplayRequest(tournament_id=ladder.id, match_id=schedule_ids[0])
        )
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "name its match by its public id" in str(refused.value.details())
    # The site links and serves it.
    page = get(f"{site}/api/replays/{ladder.id}/{shown.match_id}")
    assert json.loads(page)["seed"] == shown.seed
    listed = json.loads(get(f"{site}/api/matches?limit=100&tournament={ladder.id}"))["matches"]
    assert any(m["replay_json_url"] for m in listed)

    # A trusted ladder plays duplicate pairs: nothing is published while it runs.
    hidden = arena.stub.ListResults(arena_pb2.ListResultsRequest(tournament_id=trusted.id)).results
    assert hidden and not any(r.HasField("seed") or r.replay_id for r in hidden)
    with pytest.raises(grpc.RpcError) as secret:
        arena.stub.GetMatchReplay(
            arena_pb2.GetMatchReplayRequest(tournament_id=trusted.id, match_id=hidden[0].match_id)
        )
    assert secret.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert get(f"{site}/api/replays/{trusted.id}/{hidden[0].match_id}").startswith("404")
    for t in (ladder, trusted):
        arena.stub.CancelTournament(arena_pb2.CancelTournamentRequest(id=t.id))
    wait_for("the trusted ladder's seeds", lambda: arena.get(trusted.id).seed.revealed)
    ended = arena.stub.ListResults(arena_pb2.ListResultsRequest(tournament_id=trusted.id)).results
    assert ended and all(r.HasField("seed") and r.replay_id for r in ended)


def test_a_ladder_suspends_an_entry_that_only_forfeits_and_resumes_it_when_it_answers(
    arena: Arena,
) -> None:
    window = 4
    arena.start_worker(
        "w",
        concurrency=2,
        env={
            "ARENA_SCHEDULE_WINDOW": str(window),
            "ARENA_LADDER_SUSPEND_AFTER": "3",
            "ARENA_LADDER_PROBE_HOLD": "1",
            "ARENA_LADDER_PROBE_EVERY": "1",
        },
    )
    arena.start_bot("house", "house")
    arena.start_bot("r1", "random", "--seed", "1")
    flaky = arena.start_bot("flaky", "random", "--seed", "2")
    port = flaky.address.rsplit(":", 1)[1]
    flaky.stop()  # registered, then gone: every match of it is a forfeit
    site = web(arena)
    ladder = arena.submit([], games=["seep"], format=arena_pb2.FORMAT_LADDER)
    store = TournamentStore(arena.redis)

    def suspended() -> list[arena_pb2.LadderSuspension]:
        return list(arena.get(ladder.id).standings.ladder.suspended)

    def flaky_results() -> list[str]:
        return [r.end for r in store.results(ladder.id) if "flaky" in r.entries]

    wait_for("flaky's suspension", suspended)
    (held,) = suspended()
    assert held.entry == "flaky" and held.times == 1
    assert held.reason.startswith(
        "its last 3 matches were all forfeited or faulted by it: 3 forfeited"
    )
    assert held.probe_from.ToNanoseconds() > held.since.ToNanoseconds()
    # Said wherever the ladder is read: its status, its page, the bot's page.
    status = cli(arena, "tournament", "status", ladder.id).stdout
    assert "entries every registered bot that plays its games;" in status
    assert "  flaky: since " in status and held.reason in status
    page = get(f"{site}/tournaments/{ladder.id}")
    assert 'id="ladder-suspended"' in page and 'data-entry="flaky"' in page
    assert 'id="bot-suspensions"' in get(f"{site}/bots/flaky")

    # While nothing answers at its address it is not paired: the ladder plays on
    # without it, and its matches are those already out when it was suspended.
    done = arena.get(ladder.id).matches_done
    arena.wait_until(ladder.id, done=done + 3 * window)
    assert suspended() and len(flaky_results()) <= 3 + window
    assert set(flaky_results()) == {"forfeit"}
    probes = arena.redis.hgetall(keys.probes(ladder.id))
    assert json.loads(probes[b"flaky"])["times"] == 1  # said Hello to, unanswered

    # It comes back at its address: its Hello answers and it is paired again.
    arena.bots["flaky-again"] = start_service(
        arena_command("bot", "serve", "random", "--port", port)
    )
    wait_for("flaky's resumption", lambda: not suspended())
    wait_for("a match flaky plays out", lambda: "completed" in flaky_results())
    # Its record stayed: every forfeit is on the board with what it played since.
    board = arena.stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(tournament_id=ladder.id))
    assert "flaky" in {row.bot for row in board.rows}


BROKEN = """
    from arena.bots.examples.random_bot import RandomBot
    from arena.bots.sdk import serve


    class Broken(RandomBot):
        def act(self, request):
            raise RuntimeError("broken on purpose")


    serve(Broken(seed=1))
"""


def test_a_hosted_entry_that_answers_hello_but_fails_every_match_waits_longer_each_time(
    arena: Arena, tmp_path: Path
) -> None:
    arena.start_worker(
        "w",
        concurrency=2,
        env={
            "ARENA_SCHEDULE_WINDOW": "2",
            "ARENA_LADDER_SUSPEND_AFTER": "2",
            "ARENA_LADDER_PROBE_HOLD": "1",
            "ARENA_LADDER_PROBE_EVERY": "1",
        },
    )
    submit(arena, "steady", package(tmp_path / "house", HOUSE))
    submit(arena, "broken", package(tmp_path / "broken", BROKEN))  # its Hello answers
    ladder = arena.submit([], games=["seep"], format=arena_pb2.FORMAT_LADDER)

    def held() -> list[arena_pb2.LadderSuspension]:
        return list(arena.get(ladder.id).standings.ladder.suspended)

    # Suspended, then started by a referee (CheckBot), whose Hello answers: paired
    # again, it fails again, and its second suspension waits twice as long.
    wait_for("a second suspension", lambda: any(s.times >= 2 for s in held()))
    (second,) = held()
    assert second.entry == "broken@v1"
    assert "rpc error" in second.reason  # its answers are errors
    wait = second.probe_from.ToNanoseconds() - second.since.ToNanoseconds()
    assert abs(wait - 2 ** (second.times - 1) * 1e9) < 1e6  # 1 s, doubled each time
    results = TournamentStore(arena.redis).results(ladder.id)
    assert all(r.forfeit_by == "broken@v1" for r in results)
