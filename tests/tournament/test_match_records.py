"""Each match's record is stored with its result, on a real arena: replays come from the
arena with no referee (the one that played is stopped and its directory gone),
``arena tournament verify`` re-runs every record and names a tampered, truncated or
missing one, and ``arena replay import`` brings old replay files in, all or nothing."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import grpc
import pytest

from arena.local_redis import free_port
from arena.processes import arena_command, start_service
from arena.replay.match_log import decode, encode, replay
from arena.replay.verify import verify_replay
from arena.store import keys as redis_keys
from arena.v1 import arena_pb2, arena_pb2_grpc, referee_pb2
from tests.support.arena import Arena
from tests.support.metrics import samples, scrape


def arena_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(arena_command(*args), capture_output=True, text=True, timeout=120)


def verify(arena: Arena, tournament_id: str) -> subprocess.CompletedProcess[str]:
    return arena_cli("tournament", "verify", tournament_id, "--api", arena.api.address)


def test_records_are_stored_with_results_and_verify_without_any_referee(
    arena: Arena, tmp_path: Path
) -> None:
    arena.start_worker("w", concurrency=2)
    arena.start_bot("a", "random", "--seed", "1")
    arena.start_bot("b", "house")
    tournament = arena.submit(["a", "b"], deals=1, games=["seep", "persian-rummy", "baloot"])
    t = arena.wait_until(tournament.id).id
    client = arena.redis
    logs_key = redis_keys.match_logs(t)
    results: dict[bytes, bytes] = client.hgetall(redis_keys.results(t))  # type: ignore[assignment]
    logs: dict[bytes, bytes] = client.hgetall(logs_key)  # type: ignore[assignment]
    assert len(results) == 6 and set(logs) == set(results)

    # The referee that played them, and the files it kept, are gone.
    old_files = tmp_path / "old-replays"
    shutil.copytree(arena.replay_dir, old_files)
    arena.referee.stop()
    shutil.rmtree(arena.replay_dir)
    ids = sorted(m.decode() for m in results)
    for match_id in ids:
        reply = arena.stub.GetMatchReplay(
            arena_pb2.GetMatchReplayRequest(tournament_id=t, match_id=match_id)
        )
        document = json.loads(reply.json)
        verify_replay(document)
        stored = json.loads(results[match_id.encode()])
        assert document["result"]["scores"] == stored["scores"]
        assert document["deal_commitment"] == stored["deal_commitment"]
        # The referee's own copy was built from the same record.
        referee_copy = json.loads((old_files / f"{stored['replay_id']}.json").read_text())
        assert document == referee_copy
    shown = arena_cli("replay", "verify", ids[0], "--tournament", t, "--api", arena.api.address)
    assert shown.returncode == 0 and shown.stdout.startswith("verified: "), shown.stderr
    ok = verify(arena, t)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "6 match records re-run to their results" in ok.stdout

    # A record changed by one decision: named, with the decision. The victim is a match
    # where some other legal choice re-runs to other scores. Not every match has one: when
    # one Baloot team loses every round, each round's points all go to the other team
    # whichever cards are played, and a changed bid changes how long the match runs.
    victim_id, changed = next(
        (m, found) for m in ids if (found := _another_legal_game(decode(logs[m.encode()])))
    )
    victim = victim_id.encode()
    kept = logs[victim]
    log = decode(kept)
    tampered = referee_pb2.MatchLog()
    tampered.CopyFrom(log)
    tampered.choices[3] = 200  # no game offers 201 actions there
    client.hset(logs_key, victim, encode(tampered))
    bad = verify(arena, t)
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1
    assert f"{victim_id}: its record does not re-run: decision 3 (seat " in bad.stderr
    assert "choice 200, but the engine has only" in bad.stderr

    # Another legal choice: it re-runs, but not to the stored result.
    client.hset(logs_key, victim, encode(changed))
    bad = verify(arena, t)
    assert bad.returncode == 1 and f"{victim_id}: its record re-runs to " in bad.stderr
    assert "but the stored result says" in bad.stderr

    client.hset(logs_key, victim, kept[: len(kept) // 2])  # truncated
    bad = verify(arena, t)
    assert bad.returncode == 1 and victim_id in bad.stderr, bad.stderr
    with pytest.raises(grpc.RpcError) as gone:
        arena.stub.GetMatchReplay(
            arena_pb2.GetMatchReplayRequest(tournament_id=t, match_id=victim_id)
        )
    assert gone.value.code() == grpc.StatusCode.DATA_LOSS

    # Results from before records: named, then imported from the referee's old files.
    client.delete(logs_key)
    missing = verify(arena, t)
    assert missing.returncode == 1 and "no record of its decisions is stored" in missing.stderr
    broken = old_files / f"{json.loads(results[victim])['replay_id']}.json"
    good_text = broken.read_text()
    good = json.loads(good_text)
    for damaged, why in (
        (json.dumps({**good, "seed": good["seed"] + 1}), "does not verify: deal commitment"),
        (good_text[: len(good_text) // 2], "cannot be read as JSON"),
    ):
        broken.write_text(damaged)
        refused = arena_cli("replay", "import", str(old_files), "--redis", arena.redis_url)
        assert refused.returncode == 1 and refused.stderr.count("\n") == 1
        assert f"nothing imported: {broken}: {why}" in refused.stderr
        assert client.hlen(logs_key) == 0  # all or nothing
    broken.write_text(good_text)
    imported = arena_cli("replay", "import", str(old_files), "--redis", arena.redis_url)
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.startswith("6 records imported from ")
    assert client.hgetall(logs_key) == logs  # the very records the referee handed back
    assert verify(arena, t).returncode == 0
    again = arena_cli("replay", "import", str(old_files), "--redis", arena.redis_url)
    assert again.stdout.startswith("0 records imported") and "6 results already had" in again.stdout


def _another_legal_game(log: referee_pb2.MatchLog) -> referee_pb2.MatchLog | None:
    """``log`` with one decision changed to another legal action such that it still
    re-runs to the end, to other scores (late decisions first, where few others follow),
    or None if no such change exists."""
    from arena.replay.verify import ReplayMismatch

    scores = replay(log).scores

    for index in reversed(range(len(log.choices))):
        for other in range(8):
            if other == log.choices[index]:
                continue
            changed = referee_pb2.MatchLog()
            changed.CopyFrom(log)
            changed.choices[index] = other
            try:
                if replay(changed).scores != scores:
                    return changed
            except ReplayMismatch:
                continue
    return None


def test_records_are_secret_while_the_tournament_runs_and_come_a_page_at_a_time(
    arena: Arena,
) -> None:
    from arena.store import TournamentStore
    from tests.records import spec

    TournamentStore(arena.redis).create("t-run", spec(("a", "b"), ("seep",)), ["seep"], total=2)
    for call, request, code, said in (
        (
            arena.stub.GetMatchReplay,
            arena_pb2.GetMatchReplayRequest(tournament_id="t-run", match_id="t-run-seep-0-0-a"),
            grpc.StatusCode.FAILED_PRECONDITION,
            "tournament t-run is still running: its match records (every card dealt) are "
            "published when it ends, as its seeds are",
        ),
        (
            arena.stub.ListResults,
            arena_pb2.ListResultsRequest(tournament_id="t-run", with_logs=True, page_size=10),
            grpc.StatusCode.FAILED_PRECONDITION,
            "tournament t-run is still running",
        ),
        (
            arena.stub.ListResults,
            arena_pb2.ListResultsRequest(tournament_id="t-run", with_logs=True),
            grpc.StatusCode.INVALID_ARGUMENT,
            "with_logs needs a page_size (1 to 1000)",
        ),
        (
            arena.stub.GetMatchReplay,
            arena_pb2.GetMatchReplayRequest(tournament_id="nosuch", match_id="m"),
            grpc.StatusCode.NOT_FOUND,
            "no tournament 'nosuch'",
        ),
    ):
        with pytest.raises(grpc.RpcError) as refused:
            call(request)  # type: ignore[arg-type]
        assert refused.value.code() == code
        assert (refused.value.details() or "").startswith(said)


def test_a_popular_replay_is_re_run_once_and_a_changed_record_again(
    arena: Arena, tmp_path: Path
) -> None:
    """The API keeps replays it re-ran, by their record's bytes: asked again, a replay
    costs no re-run; once its record is changed, it is re-run (and refused) at once."""
    arena.start_worker("w", concurrency=2)
    arena.start_bot("a", "random", "--seed", "1")
    arena.start_bot("b", "house")
    t = arena.wait_until(arena.submit(["a", "b"], deals=1, games=["seep"]).id).id
    port = free_port()
    api = start_service(
        arena_command(
            "api", "serve", "--port", "0", "--redis", arena.redis_url,
            "--metrics-port", str(port),
        )
    )  # fmt: skip
    try:
        keys: list[bytes] = arena.redis.hkeys(redis_keys.results(t))  # type: ignore[assignment]
        ids = sorted(m.decode() for m in keys)
        with grpc.insecure_channel(api.address) as channel:
            stub = arena_pb2_grpc.ArenaStub(channel)

            def replay(match_id: str) -> str:
                ask = arena_pb2.GetMatchReplayRequest(tournament_id=t, match_id=match_id)
                return str(stub.GetMatchReplay(ask).json)

            first = [replay(ids[0]) for _ in range(3)]
            assert len(set(first)) == 1
            replay(ids[1])
            assert served(port) == {"rerun": 2, "cached": 2}
            logs_key = redis_keys.match_logs(t)
            kept: bytes = arena.redis.hget(logs_key, ids[0])  # type: ignore[assignment]
            arena.redis.hset(logs_key, ids[0], kept[: len(kept) // 2])
            with pytest.raises(grpc.RpcError) as gone:
                replay(ids[0])
            assert gone.value.code() == grpc.StatusCode.DATA_LOSS
            assert served(port) == {"rerun": 3, "cached": 2}
    finally:
        api.stop()


def served(port: int) -> dict[str, float]:
    """The API's GetMatchReplay answers so far, by how they were made."""
    values = samples(scrape(f"http://127.0.0.1:{port}/metrics"))
    return {
        labels[0][1]: value
        for (name, labels), value in values.items()
        if name == "arena_api_replays_total"
    }
