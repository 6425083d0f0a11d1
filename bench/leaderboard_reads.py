"""What a leaderboard read costs once the arena has a long history.

An API process over a Redis holding N stored results (random duplicate pairs among 8
bots across every game, written as workers write them). Measured: one leaderboard
page's worth of reads (the arena-wide board and one per game, as `arena leaderboard
serve` asks) right after a new result is stored, so every board is refitted, and the
same reads again with nothing new, served from the API's cache. Baseline in the same
run: as many `ListBots` calls, the floor of any API read.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import grpc
import redis

from arena.games import game_names
from arena.local_redis import start_redis
from arena.processes import arena_command, start_service
from arena.store import TournamentStore
from arena.store.results import MatchResult
from arena.tournament.fair_play import SEALED, MasterSeed
from arena.tournament.spec import Entry, TournamentPlan
from arena.v1 import arena_pb2, arena_pb2_grpc

BOTS = [f"bot-{i}" for i in range(8)]


def history(store: TournamentStore, results: int, rng: random.Random) -> None:
    games = game_names()
    store.create("history", spec(games), games, [])
    for n in range(results // 2):
        a, b = rng.sample(BOTS, 2)
        game = rng.choice(games)
        for seating, entries in enumerate(([a, b], [b, a])):
            store.record_result("history", result(n, seating, game, entries, rng), b"")


def result(n: int, seating: int, game: str, entries: list[str], rng: random.Random) -> MatchResult:
    scores = (rng.randint(0, 40), rng.randint(0, 40))
    return MatchResult(
        match_id=f"history-{n}-{seating}",
        tournament_id="history",
        game=game,
        pair_key=f"pair-{n}",
        deal=n,
        seed=n,
        entries=tuple(entries),
        scores=scores,
        winner_team=None if scores[0] == scores[1] else int(scores[1] > scores[0]),
        end="completed",
        forfeit_team=None,
        team_faults=(0, 0),
        team_fault_kinds=({}, {}),
        decisions=1,
        duration_ms=1.0,
        replay_id="",
        referee="",
        finished_at=time.time(),
        deal_key=f"deal-{n}",
        paired=True,
        deal_commitment="",
        deal_salt="",
        referee_match_id="",
        fair_play=SEALED,
        operator_seed=True,
    )


def spec(games: list[str]) -> TournamentPlan:
    """A spec for the stored history: a round robin of every bot in every game."""
    return TournamentPlan(
        entries=tuple(BOTS),
        games=tuple(games),
        deals=1,
        move_deadline_ms=1000.0,
        max_faults=3,
        seed=MasterSeed(1, "0" * 32, operator=True),
        name="history",
        lineup={b: Entry(b, tuple(games), address="127.0.0.1:1") for b in BOTS},
        fair_play=SEALED,
    )


def page_ms(stub: arena_pb2_grpc.ArenaStub) -> float:
    started = time.perf_counter()
    for game in ["", *game_names()]:
        stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game=game))
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--results", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(1)
    server = start_redis()
    try:
        client = redis.Redis.from_url(server.url())
        store = TournamentStore(client)
        history(store, args.results, rng)
        api = start_service(arena_command("api", "serve", "--port", "0", "--redis", server.url()))
        try:
            with grpc.insecure_channel(api.address) as channel:
                stub = arena_pb2_grpc.ArenaStub(channel)
                fresh, cached, floor = [], [], []
                for r in range(args.rounds):
                    store.record_result("history", result(10**9 + r, 0, "seep", BOTS[:2], rng), b"")
                    fresh.append(page_ms(stub))
                    cached.append(page_ms(stub))
                    started = time.perf_counter()
                    for _ in range(1 + len(game_names())):
                        stub.ListBots(arena_pb2.ListBotsRequest())
                    floor.append((time.perf_counter() - started) * 1000)
        finally:
            api.stop()
    finally:
        server.stop()
    refit, hit, base = (statistics.median(x) for x in (fresh, cached, floor))
    print(f"{args.results} stored results; one page = {1 + len(game_names())} leaderboards")
    print(f"after a new result (every board refitted): {refit:8.1f} ms a page")
    print(f"nothing new (served from the cache):       {hit:8.1f} ms a page")
    print(f"baseline, as many ListBots calls:          {base:8.1f} ms")
    print(f"ratio cached / baseline: {hit / base:.2f}; refitted / cached: {refit / hit:.0f}x")


if __name__ == "__main__":
    main()
