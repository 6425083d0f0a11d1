"""The open phase end to end: real API (with an operator token), Redis, referee, Celery
workers and hosted bots started in sandboxes. A competition opening seconds from now:
the workers start its ladder of competitors' active versions only, a new version gets
its placement units, the board shows one row per author and the author's own view every
version, the daily limit refuses the next submission with when, and at the deadline (a
short season's, alongside) the ladder stops and a late submission is refused with the
phase."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import grpc
import pytest

from arena.access import bearer
from arena.competition.daily import DailyLimit
from arena.local_redis import LocalRedis
from arena.quotas import OverQuota
from arena.store import BotRegistry, TournamentStore
from arena.store.bots import Published, RegisteredBot
from arena.store.packages import HostedVersion
from arena.store.tournaments import CANCELLED
from arena.v1 import arena_pb2
from tests.competition.helpers import Api, competition, refused, season, spec, submit
from tests.support.hosted_tournaments import HOUSE, package
from tests.support.waiting import wait_until

GAME = "bid-euchre"
T = TypeVar("T")


@pytest.fixture(scope="module")
def stack(local_redis: LocalRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    with season(local_redis, tmp_path_factory.mktemp("open-phase"), "open-phase", 1, 2) as api:
        yield api


def _value(read: Callable[[], T | None], timeout: float, what: str) -> T:
    """What ``read`` returns once it is not None (``wait_until``, keeping the value)."""
    found: list[T] = []

    def seen() -> bool:
        value = read()
        if value is not None:
            found.append(value)
        return value is not None

    wait_until(seen, timeout, what)
    return found[-1]


def _board(api: Api, name: str, token: str = "") -> arena_pb2.CompetitionLeaderboard:
    found: arena_pb2.CompetitionLeaderboard = api.stub.GetCompetitionLeaderboard(
        arena_pb2.GetCompetitionLeaderboardRequest(name=name, mine=bool(token)),
        metadata=(bearer(token),) if token else None,
    )
    return found


def test_the_open_phase_from_opening_to_the_deadline(stack: Api, tmp_path: Path) -> None:
    api = stack
    blob = package(tmp_path / "house", HOUSE)
    rules = arena_pb2.CompetitionRules(daily_submissions=2, active_versions=1)
    games = [arena_pb2.CompetitionGame(game=GAME)]
    # The deadline is a short season's, run alongside: the long one's open phase outlasts
    # the test, so placement never races a deadline on a loaded machine.
    api.create(spec("short-season", opens_in=2, open_for=20, games=games, rules=rules))
    [short_code] = api.invites("short-season")
    late = api.join(short_code, "dee").author.token
    submit(api, late, "dee-bot", "v1", blob)
    made = api.create(
        spec("open-season", opens_in=4, open_for=600, final_for=600, games=games, rules=rules)
    )
    assert made.ladder_tournament_id == ""
    codes = api.invites("open-season", count=3)
    tokens = {
        who: api.join(code, who).author.token
        for who, code in zip(("ada", "bob", "cy"), codes, strict=True)
    }
    # Submitting while scheduled is allowed and counts; a house bot of the operator's
    # and an author who never joined take no part in the ladder.
    for who in tokens:
        submit(api, tokens[who], f"{who}-bot", "v1", blob)
    api.stub.SubmitBot(
        iter([arena_pb2.SubmitBotRequest(
            name="house", version="v1", runtime="python3.11", command="python3 bot.py",
            package=blob,
        )]),
        metadata=api.operator(),
    )  # fmt: skip

    opened = _value(
        lambda: competition(api, "open-season").ladder_tournament_id or None, 60, "the ladder"
    )
    ladder = TournamentStore(api.redis).get(opened)
    assert ladder is not None and ladder.spec.games == (GAME,)
    assert ladder.spec.max_entries_per_author == 1
    board = _value(
        lambda: b if len((b := _board(api, "open-season")).rows) == 3 else None,
        90,
        "a row for each of the three authors",
    )
    assert {(r.author, r.version) for r in board.rows} == {
        ("ada", "ada-bot@v1"), ("bob", "bob-bot@v1"), ("cy", "cy-bot@v1"),
    }  # fmt: skip

    # A new version: the second of two today; it replaces v1 (one active version) and
    # plays its placement units first.
    submit(api, tokens["ada"], "ada-bot", "v2", blob)
    details = refused(
        lambda: submit(api, tokens["ada"], "ada-bot", "v3", blob),
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "daily submission limit reached", "allows 2 versions", "the next is allowed at",
    )  # fmt: skip
    assert "Z" in details.rsplit("allowed at", 1)[1]

    def placed() -> arena_pb2.CompetitionLeaderboard | None:
        found = _board(api, "open-season", tokens["ada"])
        mine = {r.version: r for r in found.versions}
        v2 = mine.get("ada-bot@v2")
        return found if v2 is not None and v2.active and v2.rating.pairs >= 2 else None

    board = _value(placed, 90, "ada-bot@v2 placed")
    assert {r.author for r in board.versions} == {"ada"}
    assert {(r.version, r.active) for r in board.versions} == {
        ("ada-bot@v1", False), ("ada-bot@v2", True),
    }  # fmt: skip
    assert [r.version for r in board.rows if r.author == "ada"] == ["ada-bot@v2"]
    # Units handed out since v2 arrived went to it first.
    results = TournamentStore(api.redis).results(opened)
    entrants = {e for r in results for e in r.entries}
    assert entrants <= {"ada-bot@v1", "ada-bot@v2", "bob-bot@v1", "cy-bot@v1"}
    first_v2 = min(i for i, r in enumerate(results) if "ada-bot@v2" in r.entries)
    after = results[first_v2 : first_v2 + 4]
    assert all("ada-bot@v2" in r.entries for r in after), [r.entries for r in after]
    # A reader without a token sees the board, not anyone's versions.
    refused(
        lambda: api.stub.GetCompetitionLeaderboard(
            arena_pb2.GetCompetitionLeaderboardRequest(name="open-season", mine=True)
        ),
        grpc.StatusCode.UNAUTHENTICATED,
    )

    # The deadline: the ladder stops, a late submission is refused with the phase.
    wait_until(
        lambda: competition(api, "short-season").phase == arena_pb2.COMPETITION_PHASE_FINAL,
        90,
        "the deadline",
    )
    short = competition(api, "short-season")
    assert short.ladder_tournament_id, "the short season's ladder never started"
    assert [t.phase for t in short.transitions][:2] == [
        arena_pb2.COMPETITION_PHASE_OPEN,
        arena_pb2.COMPETITION_PHASE_CLOSED,
    ]
    stopped = TournamentStore(api.redis)
    wait_until(
        lambda: getattr(stopped.get(short.ladder_tournament_id), "state", "") == CANCELLED,
        30,
        "no ladder",
    )
    refused(
        lambda: submit(api, late, "dee-bot", "v2", blob),
        grpc.StatusCode.FAILED_PRECONDITION,
        "competition 'short-season' is final",
        "submissions closed at",
    )
    assert competition(api, "open-season").phase == arena_pb2.COMPETITION_PHASE_OPEN


def test_two_submissions_racing_for_the_last_slot_one_wins(stack: Api) -> None:
    registry = BotRegistry(stack.redis)
    now = time.time()
    limit = DailyLimit("race", 1, now)
    outcomes: list[object] = []

    def publish(name: str) -> None:
        sha = f"{abs(hash(name)):064x}"[-64:]
        version = HostedVersion(
            name, "v1", "python3.11", "", sha, 1, "racer", now, (GAME,), name, "1"
        )
        bot = RegisteredBot(name, "", (GAME,), name, "1", now, hosted=True, author="racer")
        for _ in range(3):
            try:
                done = registry.publish(bot, version, b"x", None, None, ("racer", limit))
            except OverQuota as over:
                outcomes.append(str(over))
                return
            if done is Published.DONE:
                outcomes.append(done)
                return

    threads = [threading.Thread(target=publish, args=(f"racer-{i}",)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes.count(Published.DONE) == 1, outcomes
    assert len(registry.submissions("racer", limit.since)) == 1
    refusal = next(o for o in outcomes if isinstance(o, str))
    assert "daily submission limit reached" in refusal
    assert len([b for b in registry.all() if b.author == "racer"]) == 1  # nothing else stored
