"""The workers' final steps (``workers.competition_final.finals``) on a real Redis, with
the clock in the test's hands and no worker processes: the final starts once however
many callers race, the timeline cuts a running final short, its board waits until no
result can still arrive, then freezes once with the matches left unplayed; a cancelled
competition's final is cancelled."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
import redis

from arena.competition.final import MARKED, NEWEST
from arena.competition.final_deals import choose_deals
from arena.competition.spec import CompetitionSpec, check
from arena.local_redis import LocalRedis
from arena.ratings.leaderboard import leaderboard
from arena.store import BotRegistry, TournamentStore, keys
from arena.store.bots import Published, RegisteredBot
from arena.store.competitions import CompetitionStore
from arena.store.packages import HostedVersion, PackageStore
from arena.store.results import MatchResult
from arena.store.tournaments import CANCELLED, RUNNING
from arena.tournament.fair_play import SEALED
from arena.v1 import arena_pb2
from tests.competition.helpers import spec
from tests.support.database import next_database
from workers.competition_final import finals
from workers.competitions import advance

GAME = "bid-euchre"


@pytest.fixture
def client(local_redis: LocalRedis) -> Iterator[redis.Redis]:
    found = redis.Redis.from_url(local_redis.url(next_database()))
    yield found
    found.close()


def _competition(
    client: redis.Redis, name: str, authors: dict[str, list[str]], final_deals: int = 3
) -> CompetitionSpec:
    """A competition whose ``authors`` joined and submitted these versions, in order."""
    now = time.time()
    rules = arena_pb2.CompetitionRules(active_versions=2, final_deals=final_deals, final_los=0.9)
    competition = check(
        spec(
            name, opens_in=10, open_for=10, final_for=10,
            games=[arena_pb2.CompetitionGame(game=GAME)], rules=rules,
        ),
        now,
    )  # fmt: skip
    store = CompetitionStore(client)
    assert store.create(competition, now)
    registry = BotRegistry(client)
    for author, labels in authors.items():
        client.hset(keys.competitors(name), author, "{}")
        seen = None
        for i, label in enumerate(labels):
            bot = RegisteredBot(
                f"{author}-bot", "", (GAME,), "house", "1", now + i, hosted=True, author=author
            )
            sha = f"{abs(hash((author, label))):064x}"[-64:]
            version = HostedVersion(
                bot.name, label, "python3.11", "python3 bot.py", sha, 1, author, now + i,
                (GAME,), "house", "1",
            )  # fmt: skip
            assert registry.publish(bot, version, b"x", seen) is Published.DONE
            seen = bot
    return competition


def _finals(client: redis.Redis, clock: float = 0.0) -> list[tuple[str, str]]:
    return finals(
        CompetitionStore(client),
        TournamentStore(client),
        BotRegistry(client),
        PackageStore(client),
        clock=(lambda: clock) if clock else time.time,
    )


def _result(tournament_id: str, match_id: str, entries: tuple[str, str], won: bool) -> MatchResult:
    return MatchResult(
        match_id=match_id, tournament_id=tournament_id, game=GAME, pair_key=f"{match_id}-pair",
        deal=0, seed=1, entries=entries, scores=(10, 0) if won else (0, 10),
        winner_team=0 if won else 1, end="completed", forfeit_team=None, team_faults=(0, 0),
        team_fault_kinds=None, decisions=10, duration_ms=1.0, replay_id="", referee="",
        finished_at=None, deal_key="k", paired=False, deal_commitment="", deal_salt="",
        referee_match_id="", fair_play=SEALED, operator_seed=False,
    )  # fmt: skip


def test_a_final_starts_once_is_cut_short_by_the_timeline_and_freezes_once(
    client: redis.Redis,
) -> None:
    competition = _competition(client, "cut", {"ada": ["v1", "v2"], "bob": ["v1"], "cy": ["v1"]})
    store = CompetitionStore(client)
    assert store.mark("cut", "ada", "ada-bot@v1") == "marked"
    timeline = competition.timeline
    advance(store, clock=lambda: timeline.submissions_close_at + 1)
    assert store.mark("cut", "bob", "bob-bot@v1") == "phase:final"  # too late: not stored
    assert store.marks("cut") == {"ada": "ada-bot@v1"}

    done: list[tuple[str, str]] = []
    start = threading.Barrier(6)

    def race() -> None:
        start.wait()
        done.extend(_finals(client))

    threads = [threading.Thread(target=race) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert done == [("cut", "started")]
    record = store.get("cut")
    assert record is not None and record.final_versions is not None
    assert [(v.author, v.version, v.chosen) for v in record.final_versions] == [
        ("ada", "ada-bot@v1", MARKED), ("bob", "bob-bot@v1", NEWEST), ("cy", "cy-bot@v1", NEWEST),
    ]  # fmt: skip
    tournaments = TournamentStore(client)
    final = tournaments.get(record.final)
    assert final is not None and final.state == RUNNING and final.total == 3 * 3 * 2
    # No ladder played, so no gap is known: the budget's ceiling, saying why.
    assert record.final_deals == final.spec.deals == 3
    assert record.final_deals_reason == (
        "the budget, 3 deals: ada-bot@v1, bob-bot@v1, cy-bot@v1 have no rating on the open "
        "ladder's board"
    )
    assert record.final_commitment == final.spec.published_commitment != ""
    assert _finals(client) == []  # running, and its time is not up

    tournaments.record_result(
        final.id, _result(final.id, "m1", ("ada-bot@v1", "bob-bot@v1"), True), b""
    )
    tournaments.record_result(
        final.id, _result(final.id, "m2", ("cy-bot@v1", "bob-bot@v1"), True), b""
    )
    advance(store, clock=lambda: timeline.final_ends_at + 1)
    assert _finals(client) == [("cut", "cut short")]
    assert tournaments.state(final.id) == CANCELLED
    # A lease may still be held: no board until the cancelled final's bookkeeping goes.
    client.zadd(keys.per_match(final.id)[2], {"m3": time.time() + 60})
    tournaments.trim_cancelled()
    assert _finals(client) == [] and store.get("cut").final_board is None  # type: ignore[union-attr]
    client.delete(keys.per_match(final.id)[2])
    assert tournaments.trim_cancelled() == 1

    assert _finals(client, clock=123.0) == [("cut", "frozen")]
    board = store.get("cut").final_board  # type: ignore[union-attr]
    assert board is not None
    assert (board.tournament_id, board.matches, board.unplayed, board.frozen_at) == (
        final.id, 2, 18 - 2, 123.0,
    )  # fmt: skip
    assert board.tie_los == 0.9  # the rules' final_los
    assert [(r.rank, r.version) for r in board.rows if not r.rank] == []
    assert {r.version: r.matches_won for r in board.rows} == {
        "ada-bot@v1": 1, "bob-bot@v1": 0, "cy-bot@v1": 1,
    }  # fmt: skip
    assert _finals(client, clock=456.0) == []  # frozen once, never again
    assert store.get("cut").final_board == board  # type: ignore[union-attr]
    assert [t.phase for t in store.get("cut").transitions][-1] == "finished"  # type: ignore[union-attr]


def test_a_cancelled_competitions_final_is_cancelled_and_never_frozen(
    client: redis.Redis,
) -> None:
    competition = _competition(client, "off", {"ada": ["v1"], "bob": ["v1"]})
    store = CompetitionStore(client)
    advance(store, clock=lambda: competition.timeline.submissions_close_at + 1)
    assert _finals(client) == [("off", "started")]
    assert store.cancel("off", time.time()) == "cancelled now"
    assert _finals(client) == [("off", "cut short")]
    record = store.get("off")
    assert record is not None and record.final_board is None
    assert TournamentStore(client).state(record.final) == CANCELLED


def test_with_one_version_no_final_is_played_and_the_board_waits_for_the_timeline(
    client: redis.Redis,
) -> None:
    competition = _competition(client, "alone", {"ada": ["v1"]})
    store = CompetitionStore(client)
    advance(store, clock=lambda: competition.timeline.submissions_close_at + 1)
    assert _finals(client) == []
    record = store.get("alone")
    assert record is not None and record.final == "" and record.final_versions is not None
    assert (record.final_deals, record.final_deals_reason) == (0, "")  # no final to play
    advance(store, clock=lambda: competition.timeline.final_ends_at + 1)
    assert _finals(client) == [("alone", "frozen")]
    board = store.get("alone").final_board  # type: ignore[union-attr]
    assert board is not None and board.tournament_id == ""
    assert [(r.rank, r.version, r.status) for r in board.rows] == [(0, "ada-bot@v1", "unplayed")]


def test_the_final_plays_the_deals_the_ladders_board_predicts_adjacent_ranks_need(
    client: redis.Redis,
) -> None:
    competition = _competition(
        client, "sized", {"ada": ["v1"], "bob": ["v1"], "cy": ["v1"]}, final_deals=50
    )
    store = CompetitionStore(client)
    tournaments = TournamentStore(client)
    assert store.set_ladder("sized", "tladder") == "tladder"
    for i in range(60):  # ada over bob 48-12, bob over cy 48-12, ada over cy 54-6
        for a, b, wins in (("ada", "bob", 48), ("bob", "cy", 48), ("ada", "cy", 54)):
            pairing = (f"{a}-bot@v1", f"{b}-bot@v1")
            tournaments.record_result(
                "tladder", _result("tladder", f"{a}{b}{i:02}", pairing, i < wins), b""
            )
    board = leaderboard(tournaments.results("tladder"))
    versions = ["ada-bot@v1", "bob-bot@v1", "cy-bot@v1"]
    expected = choose_deals(board, versions, 1, 50, 0.9)
    assert 1 < expected.deals < 50 and not expected.predicted_ties

    advance(store, clock=lambda: competition.timeline.submissions_close_at + 1)
    assert _finals(client) == [("sized", "started")]
    record = store.get("sized")
    assert record is not None
    assert (record.final_deals, record.final_deals_reason) == (expected.deals, expected.reason)
    assert record.final_deals_reason.startswith(f"{expected.deals} deals: what ")
    final = tournaments.get(record.final)
    assert final is not None and final.spec.deals == expected.deals
    assert final.total == 3 * expected.deals * 2
