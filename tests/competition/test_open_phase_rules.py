"""The open phase's pure rules, without processes: which versions are active, the
competition's ladder lineup, the placement burst, the daily limit and the board by
author; and, on a real Redis, that one ladder is stored however many start it."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import redis

from arena.competition.board import by_author, versions_of
from arena.competition.daily import WINDOW_S, DailyLimit
from arena.competition.ladder import PLACEMENT_OUTCOMES, ladder_plan
from arena.local_redis import LocalRedis
from arena.ratings.board import PROVISIONAL, RATED, Leaderboard, Row
from arena.store.bots import RegisteredBot
from arena.store.tournaments import TournamentStore
from arena.tournament import formats
from arena.tournament.active_versions import active
from arena.tournament.formats.ladder import Ladder
from arena.tournament.spec import TournamentPlan
from tests.competition.fakes import GAMES, Roster, competition, version
from tests.support.database import next_database


def test_active_versions_are_the_newest_n_across_an_authors_bots_that_play_the_games() -> None:
    found = [
        version("a", "v1", 1, "ada"),
        version("b", "v1", 2, "ada"),
        version("a", "v2", 3, "ada"),
        version("c", "v1", 4, "ada", games=("bid-euchre",)),  # plays none of them
    ]
    assert [v.label for v in active(found, 2, GAMES)] == ["a@v2", "b@v1"]
    assert [v.label for v in active(found, 1, GAMES)] == ["a@v2"]
    assert [v.label for v in active(found, 5, ("bid-euchre",))] == ["c@v1"]


def test_the_competition_ladder_plays_competitors_active_versions_only() -> None:
    plan = ladder_plan(competition(active_versions=2))
    assert (
        plan.max_entries_per_author == 2 and plan.format_params["placement"] == PLACEMENT_OUTCOMES
    )
    bots = [
        RegisteredBot("a", "", GAMES, "a", "1", 1, hosted=True, author="ada"),
        RegisteredBot("b", "", GAMES, "b", "1", 1, hosted=True, author="bob"),
        RegisteredBot("x", "", GAMES, "x", "1", 1, hosted=True, author="eve"),  # not joined
        RegisteredBot("r", "127.0.0.1:1", GAMES, "r", "1", 1, author="ada"),  # remote
    ]
    roster = Roster(
        {
            "a": [version("a", f"v{i}", i, "ada") for i in range(1, 4)],
            "b": [version("b", "v1", 1, "bob")],
            "x": [version("x", "v1", 1, "eve")],
        },
        ["ada", "bob"],
    )
    lineup = formats.get(plan.format).lineup(plan, bots, lambda n, v: None, roster)
    assert [(e.label, e.author) for e in lineup] == [
        ("a@v2", "ada"),
        ("a@v3", "ada"),
        ("b@v1", "bob"),
    ]
    assert formats.get(plan.format).lineup(plan, bots, lambda n, v: None) == []  # no roster


def _ladder(entries: list[str], placement: int) -> Ladder:
    field = formats.Field(
        "t000000000000", tuple(entries), GAMES, dict.fromkeys(entries, GAMES), 1, 7, True
    )
    return Ladder(field, {"placement": placement})


def _measured(entries: list[str], units: int) -> dict[str, object]:
    """A ladder state in which every pair of ``entries`` played ``units`` outcomes."""
    rows: dict[str, dict[str, list[int]]] = {}
    for i, a in enumerate(sorted(entries)):
        for b in sorted(entries)[i + 1 :]:
            rows.setdefault(a, {})[b] = [units // 2, 0, units - units // 2]
    return {"units": 100, "counts": {"seep": rows}, "out": {}}


def test_a_new_entry_gets_the_placement_burst_then_matchmaking_resumes() -> None:
    field = [f"b{i}" for i in range(6)]
    state = _measured(field, 10)
    with_new = _ladder([*field, "new"], placement=PLACEMENT_OUTCOMES)
    _, matches = with_new.next(state, 2 * 6)
    units = {tuple(sorted(m.entries)) for m in matches}
    assert len(units) == 6 and all("new" in u for u in units)  # every unit is the newcomer's
    # Placed (its outcomes counted), it no longer takes every unit.
    placed = _measured([*field, "new"], 10)
    _, later = with_new.next(placed, 2 * 6)
    assert any("new" not in m.entries for m in later)


def test_the_daily_limit_counts_a_rolling_day_and_says_when_the_next_is_allowed() -> None:
    now = 10 * WINDOW_S
    limit = DailyLimit("spring", 2, now)
    assert limit.refusal("ada", [now - 100]) is None
    assert limit.refusal("ada", [now - WINDOW_S - 1, now - 100]) is None  # one is a day old
    why = limit.refusal("ada", [now - 3600, now - 100])
    assert why is not None and "competition 'spring' allows 2 versions" in why
    assert limit.next_allowed([now - 3600, now - 100]) == now - 3600 + WINDOW_S
    assert "the next is allowed at 1970-01-11T23:00:00Z" in why


def test_the_board_shows_each_authors_best_active_version_and_their_own_view_every_one() -> None:
    def row(bot: str, elo: float, rank: int, status: str = RATED) -> Row:
        return Row(rank, bot, elo, 50, 30, 10, 0, 20, 60, status=status)

    board = Leaderboard(
        "",
        (
            row("a@v1", 300, 1),
            row("b@v1", 100, 2),
            row("a@v2", 50, 3),
            row("c@v1", 0, 4, PROVISIONAL),
        ),
        0.0,
        120,
    )
    authors = {"a@v1": "ada", "a@v2": "ada", "b@v1": "bob", "c@v1": "cy"}
    active_now = {"a@v2", "b@v1", "c@v1"}  # a@v1 retired
    rows = by_author(board, authors, active_now)
    assert [(r.rank, r.author, r.row.bot) for r in rows] == [
        (1, "bob", "b@v1"),
        (2, "ada", "a@v2"),
        (3, "cy", "c@v1"),
    ]
    mine = versions_of(board, authors, active_now, {"ada"})
    assert [(r.row.bot, r.active, r.rank) for r in mine] == [("a@v1", False, 1), ("a@v2", True, 3)]
    assert len(versions_of(board, authors, active_now, None)) == 4
    assert replace(rows[0], rank=0).author == "bob"


def test_two_rounds_starting_one_ladder_at_once_store_one_seed(local_redis: LocalRedis) -> None:
    """A lapsed watchdog lock can let two workers start a competition's ladder at the
    same moment, each with a fresh secret seed: only one is stored, and the other is told
    so (``TournamentStore.create(only_new=True)``)."""
    client = redis.Redis.from_url(local_redis.url(next_database()))
    store = TournamentStore(client)
    plans = [ladder_plan(competition()) for _ in range(8)]
    barrier = threading.Barrier(len(plans))

    def start(plan: TournamentPlan) -> bool:
        barrier.wait()
        return store.create("ladder-race", plan, ["seep"], only_new=True)

    with ThreadPoolExecutor(len(plans)) as pool:
        won = list(pool.map(start, plans))
    assert won.count(True) == 1
    stored = store.get("ladder-race")
    assert stored is not None
    assert stored.spec.seed == plans[won.index(True)].seed
    assert not store.create("ladder-race", plans[0], ["seep"], only_new=True)
