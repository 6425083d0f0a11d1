"""One author, one voice: remote bots are registered for an author, tournaments hold
authors to an entry limit, one author's entries are played against each other but never
rated so, and the organisers' collusion report leaves those pairs out. Real API,
workers, referee and bot processes."""

from __future__ import annotations

import grpc
import pytest

from arena.processes import arena_command, start_service
from arena.store import keys
from arena.store.authors import AuthorStore
from arena.v1 import arena_pb2
from tests.support.arena import Arena

SHARED = True  # one referee and API for the module (tests/tournament/conftest.py)

OWNERS = {"a1": "alice", "a2": "alice", "b1": "bob", "house": ""}


def register_all(arena: Arena) -> None:
    for author in ("alice", "bob"):  # a token-less arena refuses AddAuthor: the store's
        AuthorStore(arena.redis).add(author)
    for seed, (name, author) in enumerate(OWNERS.items(), start=1):
        bot = start_service(
            arena_command("bot", "serve", "random", "--port", "0", "--seed", str(seed))
        )
        arena.bots[name] = bot
        arena.stub.RegisterBot(
            arena_pb2.RegisterBotRequest(name=name, address=bot.address, author=author)
        )


def refusal(call: object) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as refused:
        call()  # type: ignore[operator]
    return refused.value.code(), refused.value.details() or ""


def test_bad_owners_and_limits_are_refused_and_nothing_is_stored(arena: Arena) -> None:
    register_all(arena)
    listed = arena.stub.ListBots(arena_pb2.ListBotsRequest()).bots
    assert {b.name: b.author for b in listed} == OWNERS
    code, details = refusal(
        lambda: arena.stub.RegisterBot(
            arena_pb2.RegisterBotRequest(
                name="sock", address=arena.bots["a1"].address, author="mallory"
            )
        )
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert details.startswith("unknown author 'mallory': add the author first")
    assert "sock" not in {b.name for b in arena.stub.ListBots(arena_pb2.ListBotsRequest()).bots}
    code, details = refusal(lambda: arena.submit(["a1", "a2", "b1"], max_entries_per_author=1))
    assert (code, details) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "at most 1 entry per author in this tournament (max_entries_per_author); over it: "
        "alice: a1, a2. Enter fewer of their bots, or raise max_entries_per_author (house "
        "bots, with no author, do not count)",
    )
    for bad in (-1, 65):
        code, details = refusal(
            lambda bad=bad: arena.submit(["a1", "b1"], max_entries_per_author=bad)
        )
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert details == (
            "max_entries_per_author must be 1 to 64, or 0 for the default (1 in a ladder or a "
            f"sealed tournament, else no limit), got {bad}"
        )
    assert arena.redis.keys(keys.pattern("t")) == []
    # A ladder holds every author to one entry unless told otherwise.
    ladder = arena.submit([], games=["bridgette"], format=arena_pb2.FORMAT_LADDER)
    assert ladder.spec.max_entries_per_author == 1
    arena.stub.CancelTournament(arena_pb2.CancelTournamentRequest(id=ladder.id))


def test_one_authors_entries_meet_but_are_never_rated_against_each_other(arena: Arena) -> None:
    register_all(arena)
    arena.start_worker("w", concurrency=2)
    tournament = arena.submit(list(OWNERS), games=["bridgette"])
    assert tournament.spec.max_entries_per_author == 0  # a round robin: no limit
    arena.wait_until(tournament.id)
    results = arena.stub.ListResults(
        arena_pb2.ListResultsRequest(tournament_id=tournament.id)
    ).results
    assert len(results) == 12  # 6 pairings, each deal in both seatings
    assert sum(set(r.entries) == {"a1", "a2"} for r in results) == 2  # played all the same
    board = arena.stub.GetLeaderboard(
        arena_pb2.GetLeaderboardRequest(tournament_id=tournament.id, game="bridgette")
    )
    rated = {row.bot: row.pairs for row in board.rows}
    assert rated == {"a1": 4, "a2": 4, "b1": 6, "house": 6}
    report = arena.stub.GetCollusionReport(
        arena_pb2.GetCollusionReportRequest(tournament_id=tournament.id)
    )
    met = {(p.a, p.b) for p in report.pairs}
    assert ("a1", "a2") not in met and len(met) == 5
    assert report.flag_z > 0 and not report.partial
