"""Hosted bots in tournaments, end to end: packages submitted through the API, played by
real workers through a referee that starts each seat in a sandbox of its own; sealed
tournaments of hosted bots play duplicate pairs, one half after the other, and authors
read their logs after."""

from __future__ import annotations

import os
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from arena.access import bearer
from arena.hosting.example_packages import python_package
from arena.hosting.package import pack
from arena.local_redis import LocalRedis
from arena.processes import arena_command, start_service
from arena.store import TournamentStore
from arena.store.authors import AuthorStore
from arena.tournament.fair_play import PUBLIC_ID
from arena.v1 import arena_pb2
from tests.support.arena import Arena, start_arena
from tests.support.hosted_tournaments import HOUSE, package, submit
from tests.support.sandbox import assert_at_chance, channel_package

RANDOM = """
    from arena.bots.examples.random_bot import RandomBot
    from arena.bots.sdk import serve
    serve(RandomBot(seed=3))
"""


@pytest.fixture(scope="module")
def arena(local_redis: LocalRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    stack = start_arena(local_redis, tmp_path_factory.mktemp("hosted"))
    stack.start_worker("hosted", concurrency=2)
    yield stack
    stack.stop()


def test_a_sealed_tournament_of_hosted_bots_plays_duplicate_pairs_and_logs_for_authors(
    arena: Arena, tmp_path: Path
) -> None:
    # A token-less arena refuses AddAuthor (anyone is the operator there): the store's.
    token = AuthorStore(arena.redis).add("ada")
    submit(arena, "sealed-house", package(tmp_path / "house", HOUSE), token)
    submit(arena, "sealed-random", package(tmp_path / "random", RANDOM))
    tournament = arena.submit(
        ["sealed-house", "sealed-random"],
        games=["bid-euchre"],
        fair_play=arena_pb2.FAIR_PLAY_SEALED,
    )
    assert tournament.fair_play == arena_pb2.FAIR_PLAY_SEALED
    assert list(tournament.spec.entries) == ["sealed-house@v1", "sealed-random@v1"]
    done = arena.wait_until(tournament.id)
    assert done.matches_done == 2 and done.forfeits == 0
    results = arena.stub.ListResults(
        arena_pb2.ListResultsRequest(tournament_id=tournament.id)
    ).results
    assert [r.end for r in results] == [arena_pb2.RESULT_END_COMPLETED] * 2
    assert results[0].pair_key == results[1].pair_key  # one duplicate pair: the same deal
    assert results[0].seed == results[1].seed
    assert [list(r.entries) for r in results] == [
        ["sealed-house@v1", "sealed-random@v1"],
        ["sealed-random@v1", "sealed-house@v1"],
    ]
    # The second half started once the first had ended and its sandboxes were gone.
    first, second = TournamentStore(arena.redis).results(tournament.id)
    assert first.match_id.endswith("-a") and second.match_id.endswith("-b")
    assert first.finished_at is not None and second.started_at is not None
    assert first.finished_at <= second.started_at

    logs = arena.stub.GetBotLogs(
        arena_pb2.GetBotLogsRequest(bot="sealed-house", match_id=results[0].match_id),
        metadata=(bearer(token),),
    )
    assert logs.version == "v1"
    assert [s.seat for s in logs.seats] == [0, 2]  # team 0 of Bid Euchre: its seats alone
    for seat in logs.seats:
        assert "house bot starting" in seat.output
        assert "listening on unix:" in seat.output


def test_hosted_and_remote_bots_meet_in_an_open_tournament(arena: Arena, tmp_path: Path) -> None:
    submit(arena, "open-house", package(tmp_path / "house", HOUSE))
    arena.start_bot("remote-random", "random", "--seed", "5")
    with pytest.raises(grpc.RpcError) as refused:
        arena.submit(["open-house", "remote-random"], fair_play=arena_pb2.FAIR_PLAY_SEALED)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "not hosted: remote-random" in str(refused.value.details())

    tournament = arena.submit(["open-house", "remote-random"], games=["seep"])
    done = arena.wait_until(tournament.id)
    assert done.matches_done == 2 and done.forfeits == 0
    results = arena.stub.ListResults(
        arena_pb2.ListResultsRequest(tournament_id=tournament.id)
    ).results
    assert {tuple(r.entries) for r in results} == {
        ("open-house@v1", "remote-random"),
        ("remote-random", "open-house@v1"),
    }
    assert results[0].pair_key != results[1].pair_key  # open: every match rated alone


def test_packages_too_big_to_travel_together_reach_the_referee_one_by_one(
    arena: Arena, tmp_path: Path
) -> None:
    for name in ("big-a", "big-b"):  # two ~10 MiB packages: 20 MiB, over one request's 17
        directory = python_package(tmp_path / name, RANDOM)
        (directory / "weights.bin").write_bytes(os.urandom(10 << 20))
        submit(arena, name, pack(directory))
    tournament = arena.submit(["big-a", "big-b"], games=["seep"])
    done = arena.wait_until(tournament.id)
    assert done.matches_done == 2 and done.forfeits == 0


def test_the_halves_of_a_sealed_pair_pass_no_bit_through_the_host(
    arena: Arena, tmp_path: Path
) -> None:
    """A sender and a receiver (``channel_bot.py``) meet in a sealed duplicate pair. The
    receiver's seats of the second half read the host for the bits the sender's seats
    set in the first (and every receiver for the slots it measured): none reaches it."""
    token = AuthorStore(arena.redis).add("eve")
    blob = pack(channel_package(tmp_path / "channel"))
    submit(arena, "chan-send", blob, token, "python3 bot.py send 0.12 12")
    submit(arena, "chan-receive", blob, token, "python3 bot.py receive 0.12 12")
    tournament = arena.submit(
        ["chan-send", "chan-receive"], games=["bid-euchre"], fair_play=arena_pb2.FAIR_PLAY_SEALED
    )
    done = arena.wait_until(tournament.id)
    assert done.matches_done == 2 and done.forfeits == 0
    first, second = TournamentStore(arena.redis).results(tournament.id)
    assert first.finished_at is not None and second.started_at is not None
    assert first.finished_at <= second.started_at

    def outputs(bot: str, match_id: str) -> list[str]:
        logs = arena.stub.GetBotLogs(
            arena_pb2.GetBotLogsRequest(bot=bot, match_id=match_id), metadata=(bearer(token),)
        )
        assert not any(seat.truncated for seat in logs.seats)
        return [seat.output for seat in logs.seats]

    sent = outputs("chan-send", first.match_id)
    received = outputs("chan-receive", second.match_id)
    assert all("SENT" in x for x in sent) and all("TURN" in x for x in received)
    assert_at_chance([[*sent, *received], outputs("chan-receive", first.match_id)])


def test_every_formats_match_ids_lead_to_logs_replays_and_pages(
    local_redis: LocalRedis, tmp_path: Path
) -> None:
    """A match id as `arena tournament results` lists it, in a round robin, a Swiss, a
    knockout and a ladder: `arena bot logs`, `arena replay show` and the web take it."""
    stack = start_arena(local_redis, tmp_path)
    web = None
    try:
        stack.start_worker("formats", concurrency=2)
        submit(stack, "fmt-house", package(tmp_path / "house", HOUSE))
        submit(stack, "fmt-random", package(tmp_path / "random", RANDOM))
        entries = ["fmt-house", "fmt-random"]
        played = {
            "round robin": stack.submit(entries, games=["seep"]).id,
            "swiss": stack.submit(
                entries,
                games=["seep"],
                format=arena_pb2.FORMAT_SWISS,
                swiss=arena_pb2.SwissParams(rounds=1),
            ).id,
            "knockout": stack.submit(entries, games=["seep"], format=arena_pb2.FORMAT_KNOCKOUT).id,
        }
        for tournament_id in played.values():
            stack.wait_until(tournament_id)
        ladder = stack.submit([], games=["seep"], format=arena_pb2.FORMAT_LADDER).id
        stack.wait_until(ladder, done=1)
        # While the open ladder runs: an ended match's logs by its public id and the ladder.
        public = (
            stack.stub.ListResults(arena_pb2.ListResultsRequest(tournament_id=ladder))
            .results[0]
            .match_id
        )
        assert PUBLIC_ID.fullmatch(public), public
        alone = cli("bot", "logs", "fmt-house", public, "--api", stack.api.address)
        assert alone.returncode == 1 and "--tournament" in alone.stderr, alone.stderr
        for _ in range(600):  # once no attempt at it holds a lease
            logs = cli(
                "bot", "logs", "fmt-house", public, "--tournament", ladder,
                "--api", stack.api.address,
            )  # fmt: skip
            if logs.returncode == 0 or "still being played" not in logs.stderr:
                break
            time.sleep(0.1)
        assert logs.returncode == 0 and "house bot starting" in logs.stdout, logs.stderr
        stack.stub.CancelTournament(arena_pb2.CancelTournamentRequest(id=ladder))
        for _ in range(600):  # its schedule's ids are published once no match is in play
            if stack.get(ladder).seed.revealed:
                break
            time.sleep(0.1)
        played["ladder"] = ladder
        web = start_service(
            arena_command("leaderboard", "serve", "--port", "0", "--api", stack.api.address)
        )
        for form, tournament_id in played.items():
            match_id = (
                stack.stub.ListResults(
                    arena_pb2.ListResultsRequest(tournament_id=tournament_id, page_size=1)
                )
                .results[0]
                .match_id
            )
            assert f"-{form.split()[-1]}-" in match_id or form == "round robin", match_id
            logs = cli("bot", "logs", "fmt-house", match_id, "--api", stack.api.address)
            assert logs.returncode == 0 and "house bot starting" in logs.stdout, (form, logs)
            shown = cli(
                "replay", "show", match_id, "--tournament", tournament_id,
                "--api", stack.api.address,
            )  # fmt: skip
            assert shown.returncode == 0 and "Result: " in shown.stdout, (form, shown.stderr)
            with urllib.request.urlopen(
                f"{web.address}/replays/{tournament_id}/{match_id}"
            ) as page:
                assert page.status == 200 and match_id in page.read().decode(), form
    finally:
        if web is not None:
            web.stop()
        stack.stop()


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(arena_command(*args), capture_output=True, text=True, timeout=120)
