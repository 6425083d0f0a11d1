"""Bot pages and the match list end to end: a real arena plays two tournaments, one bot
of them faulting on purpose (the chaos bot's illegal mode), and the leaderboard reads
them from the API."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from arena.local_redis import LocalRedis
from arena.processes import Service
from arena.v1 import arena_pb2
from arena.web.pages import game_title
from tests.support.arena import Arena
from tests.support.real_arena import GAMES, real_arena
from tests.web.dom import Document


@dataclass
class Stack:
    arena: Arena
    tournaments: list[arena_pb2.Tournament]
    web: Service

    def results(self) -> list[tuple[str, arena_pb2.MatchRecord]]:
        return [
            (t.id, r)
            for t in self.tournaments
            for r in self.arena.stub.ListResults(
                arena_pb2.ListResultsRequest(tournament_id=t.id)
            ).results
        ]


@pytest.fixture(scope="module")
def stack(local_redis: LocalRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with real_arena(local_redis, tmp_path_factory.mktemp("bot-page-replays")) as real:
        arena = real.arena
        arena.start_worker("pages1", concurrency=2)
        arena.start_bot("house", "house")
        arena.start_bot("rand", "random", "--seed", "1")
        # Illegal ids from its third decision of every match on: faults, then forfeits.
        arena.start_bot("chaos", "chaos", "--mode", "illegal", "--after", "2")
        first = arena.submit(["house", "rand", "chaos"], master_seed=5, games=GAMES, name="all")
        second = arena.submit(["house", "chaos"], master_seed=6, games=GAMES, name="pair")
        played = [arena.wait_until(t.id, timeout=120) for t in (second, first)]
        yield Stack(arena, played, real.serve())


def get(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=60) as response:
        return response.status, response.read()


def get_json(url: str) -> Any:
    status, body = get(url)
    assert status == 200
    return json.loads(body)


def walk(stack: Stack, query: str) -> list[tuple[str, str]]:
    """Every match the list gives, following next_url page by page."""
    seen: list[tuple[str, str]] = []
    path: str | None = "/api/matches?" + query
    while path is not None:
        page = get_json(stack.web.address + path)
        seen += [(m["tournament_id"], m["match_id"]) for m in page["matches"]]
        path = page["next_url"]
    return seen


def test_paging_with_a_small_limit_visits_every_stored_result_once(stack: Stack) -> None:
    stored = [(t, r.match_id) for t, r in stack.results()]
    assert len(stored) == sum(t.matches_done for t in stack.tournaments) == 16
    seen = walk(stack, "limit=3")
    assert len(seen) == len(set(seen)) == len(stored)  # none twice
    assert set(seen) == set(stored)
    # Newest tournament first, the latest scheduled match first within it.
    newest = stack.tournaments[0].id
    assert seen[:4] == sorted([s for s in stored if s[0] == newest], reverse=True)
    chaos = [(t, r.match_id) for t, r in stack.results() if "chaos" in r.entries]
    assert sorted(walk(stack, "bot=chaos&limit=5")) == sorted(chaos)
    one = walk(stack, f"tournament={newest}&game={GAMES[0]}&limit=1")
    assert one == sorted(
        [(t, r.match_id) for t, r in stack.results() if t == newest and r.game == GAMES[0]],
        reverse=True,
    )


def test_results_keep_fault_kinds_and_the_bot_page_shows_their_rate(stack: Stack) -> None:
    faults = matches = forfeits = 0
    for _, r in stack.results():
        if "chaos" not in r.entries:
            continue
        team = list(r.entries).index("chaos")
        kinds = dict(r.team_fault_kinds[team].by_kind)
        assert sum(kinds.values()) == r.team_faults[team] and set(kinds) <= {"illegal_action"}
        faults += r.team_faults[team]
        matches += 1
        forfeits += r.HasField("forfeit_team") and r.forfeit_team == team
    assert faults > 0 and forfeits > 0

    status, body = get(stack.web.address + "/bots/chaos")
    assert status == 200
    doc = Document(body.decode())
    bot = next(
        b for b in stack.arena.stub.ListBots(arena_pb2.ListBotsRequest()).bots if b.name == "chaos"
    )
    facts = {r.attrs["data-field"]: r.cells[0] for r in doc.tables["bot-facts"]}
    assert facts["kind"] == (
        "remote: the arena calls it at its address; in Baloot, Bid Euchre, Persian Rummy, "
        "Seep: partners share one process: each may see the other's hand"
    )
    assert facts["hello"] == f"{bot.hello_name} {bot.version}".strip()
    assert facts["games"] == ", ".join(game_title(g) for g in bot.games)
    assert set(bot.games) >= set(GAMES)
    rows = doc.tables["bot-matches"]
    assert len(rows) == min(20, matches)
    assert all(r.links and r.links[-2].startswith("/replays/") for r in rows)
    rates = {r.attrs["data-kind"]: r.cells[1:] for r in doc.tables["bot-faults"]}
    assert rates == {
        "illegal_action": [str(faults), f"{faults / matches:.3f}"],
        "forfeit": [str(forfeits), f"{forfeits / matches:.3f}"],
    }
    assert f"Over its last {matches} matches" in body.decode()
    # A bot that never faults says so; its matches link to the whole list.
    _, house = get(stack.web.address + "/bots/house")
    assert "house made no fault in these matches." in house.decode()
    assert 'href="/matches?bot=house"' in house.decode()
