"""Fair play end to end: a tournament's seeds stay secret in every read while it runs
(gRPC, CLI, web, metrics, logs at INFO), are revealed when it ends, and then verify;
trusted and operator-seeded tournaments, and remote partners who share a process, say so
wherever they are read."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import grpc
import pytest

from arena.processes import Service, free_port
from arena.store import keys
from arena.v1 import arena_pb2
from tests.support.arena import Arena
from tests.support.cli import cli
from tests.support.leaderboard import get, web


def logs(*services: Service) -> str:
    return "\n".join(line for s in services for line in s.output)


def test_no_read_shows_a_seed_until_the_tournament_ends_and_then_it_verifies(
    arena: Arena, monkeypatch: pytest.MonkeyPatch
) -> None:
    metrics_port = free_port()
    monkeypatch.setenv("ARENA_TEST_LOGLEVEL", "INFO")
    worker = arena.start_worker("w", extra=("--metrics-port", str(metrics_port)))
    arena.start_bot("a", "house")
    arena.start_bot("b", "random", "--seed", "2")
    site = web(arena)
    submitted = arena.submit(["a", "b"], deals=2, games=["bid-euchre", "seep"])
    assert submitted.fair_play == arena_pb2.FAIR_PLAY_OPEN
    assert not submitted.spec.HasField("master_seed")
    assert submitted.seed.source == arena_pb2.SEED_SOURCE_ARENA
    assert re.fullmatch("[0-9a-f]{64}", submitted.seed.commitment)
    assert not submitted.seed.revealed and not submitted.seed.HasField("master_seed")

    arena.wait_until(submitted.id, done=2)
    scraped = get(f"http://127.0.0.1:{metrics_port}/metrics")
    assert f'tournament="{submitted.id}"' in scraped
    worker.stop()  # half-played, so it can be read at leisure while it runs
    running = arena.get(submitted.id)
    assert running.state == arena_pb2.TOURNAMENT_STATE_RUNNING
    assert 2 <= running.matches_done < running.matches_total
    tid = submitted.id
    listed = arena.stub.ListResults(arena_pb2.ListResultsRequest(tournament_id=tid)).results
    assert listed and all(
        not r.HasField("seed") and not r.replay_id and not r.deal_salt and r.deal_commitment
        for r in listed
    )
    hidden = listed[0].match_id
    reads = [
        str(arena.get(tid)),
        str(arena.stub.ListTournaments(arena_pb2.ListTournamentsRequest())),
        str(listed),
        cli(arena, "tournament", "status", tid).stdout,
        cli(arena, "tournament", "list").stdout,
        cli(arena, "tournament", "results", tid).stdout,
        cli(arena, "tournament", "results", tid, "--csv").stdout,
        get(f"{site}/"),
        get(f"{site}/api/matches?limit=100"),
        get(f"{site}/api/replays/{tid}/{hidden}"),
        get(f"{site}/replays/{tid}/{hidden}"),
        scraped,
    ]
    assert "is not published yet" in reads[9] and reads[9].startswith("404")
    assert all(m["replay_json_url"] is None for m in json.loads(reads[8])["matches"])

    later = arena.start_worker("w2", extra=("--metrics-port", str(free_port())))
    finished = arena.wait_until(tid)
    assert finished.seed.revealed and finished.seed.HasField("master_seed")
    results = arena.stub.ListResults(arena_pb2.ListResultsRequest(tournament_id=tid)).results
    seeds = {str(finished.seed.master_seed), finished.seed.salt}
    seeds |= {str(r.seed) for r in results} | {r.deal_salt for r in results}
    assert all(r.HasField("seed") and r.replay_id for r in results)
    # Not one of them appeared in a read while it ran, nor in any log at INFO.
    everything = "\n".join(reads) + logs(worker, later, arena.api, arena.referee)
    assert "succeeded" in logs(worker)  # INFO lines really were logged
    assert [s for s in seeds if s in everything] == []

    verified = cli(arena, "tournament", "verify", tid)
    assert verified.returncode == 0, verified.stderr
    assert verified.stdout.startswith(f"verified: tournament {tid} (open, arena seed)")
    # A stored seed changed after the fact is caught, by name.
    key = keys.results(tid)
    record = json.loads(arena.redis.hget(key, results[2].match_id))  # type: ignore[arg-type]
    record["seed"] += 1
    arena.redis.hset(key, results[2].match_id, json.dumps(record))
    tampered = cli(arena, "tournament", "verify", tid)
    assert tampered.returncode == 1 and tampered.stdout == ""
    assert tampered.stderr.startswith(
        f"arena: error: tournament {tid} does not verify: {results[2].match_id}: seed "
    )


def test_a_cancelled_tournament_reveals_nothing_while_a_match_of_it_is_still_played(
    arena: Arena,
) -> None:
    arena.start_worker("w")
    arena.start_bot("a", "house")
    arena.start_bot("b", "paced", "--delay-ms", "40")  # Seep against the house bot: short
    tournament = arena.submit(["a", "b"], games=["seep"])
    playing = keys.playing(tournament.id)
    deadline = time.monotonic() + 60
    while not arena.redis.zcard(playing):
        assert time.monotonic() < deadline, "no match started"
        time.sleep(0.05)
    cancelled = arena.stub.CancelTournament(arena_pb2.CancelTournamentRequest(id=tournament.id))
    assert cancelled.state == arena_pb2.TOURNAMENT_STATE_CANCELLED
    assert not cancelled.seed.revealed and not cancelled.seed.HasField("master_seed")
    while arena.redis.zcard(playing):  # the match in flight plays on to its end
        assert time.monotonic() < deadline + 120, "the match never ended"
        time.sleep(0.05)
    after = arena.get(tournament.id)
    assert after.seed.revealed and after.seed.HasField("master_seed")
    assert 1 <= after.matches_done < after.matches_total


def test_trusted_and_operator_seeded_tournaments_say_so_wherever_they_are_read(
    arena: Arena,
) -> None:
    arena.start_worker("w")
    arena.start_bot("a", "random", "--seed", "1")
    arena.start_bot("b", "random", "--seed", "2")
    tournament = arena.submit(
        ["a", "b"], games=["bid-euchre"], fair_play=arena_pb2.FAIR_PLAY_TRUSTED, master_seed=5
    )
    assert tournament.seed.source == arena_pb2.SEED_SOURCE_OPERATOR
    assert not tournament.seed.HasField("master_seed")  # secret while it runs, all the same
    status = cli(arena, "tournament", "status", tournament.id).stdout
    assert "fair play trusted (the operator vouches for the entries), operator's seed" in status
    arena.wait_until(tournament.id)
    board = arena.stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest())
    assert len(board.caveats) == 3  # and the partners' (test_remote_partners_...)
    assert board.caveats[0].startswith("2 of these results were played in FAIR_PLAY_TRUSTED")
    assert board.caveats[1].startswith("2 of these results were dealt from an operator's")
    page = get(f"{web(arena)}/")
    assert page.count('class="caveat"') == 3 and "the operator vouches" in page
    assert "Note: 2 of these results were played in FAIR_PLAY_TRUSTED" in cli(
        arena, "leaderboard"
    ).stdout.replace("\n", " ").replace("  ", " ")


def test_remote_partners_who_share_a_process_are_caveated_wherever_they_are_read(
    arena: Arena,
) -> None:
    metrics_port = free_port()
    arena.start_worker("w", extra=("--metrics-port", str(metrics_port)))
    arena.start_bot("a", "random", "--seed", "1")
    arena.start_bot("b", "random", "--seed", "2")
    tournament = arena.submit(["a", "b"], games=["bid-euchre", "bridgette"])
    caveat = "partners share one process: each may see the other's hand"
    assert tournament.partners == arena_pb2.PARTNERS_SHARED
    assert list(tournament.caveats) == [f"{caveat} (a, b)"]
    status = cli(arena, "tournament", "status", tournament.id).stdout.replace("\n", " ")
    assert f"{caveat} (a, b)" in " ".join(status.split())
    arena.wait_until(tournament.id)
    euchre = arena.stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="bid-euchre"))
    assert f"{caveat} (a in 2, b in 2 of these results)" in euchre.caveats
    assert {r.bot: r.shared_partners for r in euchre.rows} == {"a": 2, "b": 2}
    duel = arena.stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="bridgette"))
    assert not any(caveat in c for c in duel.caveats)  # two seats: nobody's partner
    assert caveat in " ".join(" ".join(cli(arena, "leaderboard").stdout.split()).split())
    site = web(arena)
    for path in ("/", f"/tournaments/{tournament.id}", "/bots/a", "/games/bid-euchre"):
        assert caveat in get(site + path).replace("&#x27;", "'"), path
    for path in ("/api/leaderboard", f"/api/tournaments/{tournament.id}"):
        assert caveat in json.dumps(json.loads(get(site + path))), path
    # Metrics label the boards' rows with the count.
    scraped = get(f"http://127.0.0.1:{metrics_port}/metrics")
    assert 'arena_rating_shared_partners{bot="a",game="bid-euchre"} 2.0' in scraped


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            {"partners": arena_pb2.PARTNERS_ISOLATED, "games": ["seep", "bridgette"]},
            "PARTNERS_ISOLATED seats each partner in a sandbox of its own, so every entry that "
            "plays a partnership game (seep) must be a hosted bot; remote: a, b. Use "
            'PARTNERS_SHARED (every read then says "partners share one process: each may see '
            "the other's hand\"), or leave those games out",
        ),
        (
            {"partners": 3},
            "unknown partners 3; allowed: PARTNERS_SHARED (a remote entry's one process plays "
            "both seats of its team, and reads say so), PARTNERS_ISOLATED (hosted entries "
            "only, each seat its own sandbox) or unset (isolated when sealed, else shared)",
        ),
        (
            {"broadcast_delay": {"seconds": -1}},
            "broadcast_delay must be 0 to 3600 s (an hour), got -1 s",
        ),
        (
            {"fair_play": arena_pb2.FAIR_PLAY_SEALED},
            "FAIR_PLAY_SEALED plays duplicate pairs, so every entry must be a hosted bot that "
            "cannot remember one half in the other; not hosted: a, b. Use FAIR_PLAY_OPEN for "
            "remote bots, or FAIR_PLAY_TRUSTED if you vouch for them",
        ),
        (
            {"fair_play": 4},
            "unknown fair_play 4; allowed: FAIR_PLAY_OPEN (the default, for remote bots), "
            "FAIR_PLAY_SEALED (duplicate pairs, every entry hosted) or FAIR_PLAY_TRUSTED "
            "(duplicate pairs between entries the operator vouches for)",
        ),
    ],
)
def test_a_fair_play_mode_the_entries_cannot_have_is_refused_and_nothing_stored(
    arena: Arena, spec: dict[str, Any], message: str
) -> None:
    arena.start_bot("a", "random")
    arena.start_bot("b", "random")
    with pytest.raises(grpc.RpcError) as refused:
        arena.submit(["a", "b"], **spec)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.value.details() == message
    assert arena.redis.keys(keys.pattern("t")) == []


def test_the_cli_refuses_a_master_seed_out_of_range_in_one_line(arena: Arena) -> None:
    done = cli(arena, "tournament", "run", "--entry", "a", "--entry", "b", "--seed", str(2**64))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "arena tournament run: error: argument --seed: a master seed is 0..2^64-1 "
        f"({2**64 - 1}), got {2**64} (see arena tournament run --help)"
    ]
