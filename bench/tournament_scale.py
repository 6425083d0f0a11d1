"""What a tournament's size costs to submit and to schedule.

Submission: an API process over a Redis with 64 registered bots. Measured side by side:
submitting the largest tournament the limits allow (64 entries x 5 games x 9 deals =
181,440 matches) against a 2-match one, in time and in the API's resident memory after
each. Submission stores the spec and asks the scheduler to start, so neither should
grow with the size.

Scheduling: the scheduler's step (``workers.scheduler``) run in this process against
Redis, handing out windows of matches for tournaments of 1,000 and about 200,000
matches, near the start and near the end of each; between steps every match handed out
gets a stored result, so each step also reads results, as in a real run. The time per
match handed out should stay flat with the tournament's size and position.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import grpc
import redis

from arena.games import game_names
from arena.local_redis import start_redis
from arena.processes import arena_command, start_service
from arena.store import BotRegistry, RegisteredBot, TournamentStore
from arena.store.results import MatchResult
from arena.tournament.fair_play import OPEN, MasterSeed
from arena.tournament.schedule import ScheduledMatch
from arena.tournament.spec import Entry, TournamentPlan
from arena.v1 import arena_pb2, arena_pb2_grpc

WINDOW = 100


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def submission(url: str, rounds: int) -> None:
    client = redis.Redis.from_url(url)
    registry = BotRegistry(client)
    bots = [f"bot-{i:02d}" for i in range(64)]
    for name in bots:
        registry.put_remote(
            RegisteredBot(name, "127.0.0.1:9", tuple(game_names()), name, "1", time.time())
        )
    api = start_service(arena_command("api", "serve", "--port", "0", "--redis", url))
    try:
        with grpc.insecure_channel(api.address) as channel:
            stub = arena_pb2_grpc.ArenaStub(channel)
            stub.ListBots(arena_pb2.ListBotsRequest())  # connected, imports warm

            def submit(entries: list[str], deals: int) -> tuple[float, int]:
                spec = arena_pb2.TournamentSpec(entries=entries, deals=deals)
                started = time.perf_counter()
                t = stub.SubmitTournament(arena_pb2.SubmitTournamentRequest(spec=spec))
                return time.perf_counter() - started, t.matches_total

            small = [submit(bots[:2], 1) for _ in range(rounds)]
            small_rss = rss_mb(api.process.pid)
            large = [submit(bots, 9) for _ in range(rounds)]
            large_rss = rss_mb(api.process.pid)
    finally:
        api.stop()
    small_s = statistics.median(s for s, _ in small)
    large_s = statistics.median(s for s, _ in large)
    print(
        f"submit {large[0][1]:,} matches: {large_s * 1000:7.1f} ms   "
        f"{small[0][1]} matches: {small_s * 1000:7.1f} ms   ratio {large_s / small_s:.2f}"
    )
    print(
        f"API resident memory: {small_rss:.0f} MB after {rounds} small submissions, "
        f"{large_rss:.0f} MB after {rounds} largest ({large_rss - small_rss:+.0f} MB)"
    )


def spec(entries: int, deals: int) -> TournamentPlan:
    names = tuple(f"e{i:02d}" for i in range(entries))
    games = tuple(game_names())
    return TournamentPlan(
        entries=names,
        games=games,
        deals=deals,
        move_deadline_ms=1000.0,
        max_faults=3,
        seed=MasterSeed(7, "0" * 32, operator=True),
        name="scale",
        lineup={n: Entry(n, games, address="127.0.0.1:1") for n in names},
        fair_play=OPEN,
    )


def scheduling(url: str, steps: int) -> None:
    os.environ["ARENA_REDIS_URL"] = url
    os.environ["ARENA_SCHEDULE_WINDOW"] = str(WINDOW)
    from workers import scheduler  # reads the settings above

    client = redis.Redis.from_url(url)
    store = TournamentStore(client)
    rows = []
    for name, (entries, deals) in {"1,000": (5, 10), "196,000": (50, 16)}.items():
        tournament_id = f"scale-{entries}"
        total = entries * (entries - 1) // 2 * len(game_names()) * deals * 2
        store.create(tournament_id, spec(entries, deals), game_names(), total=total)
        for where in ("start", "end"):
            if where == "end":  # jump the format's position to the last windows
                record = store.get(tournament_id)
                assert record is not None and record.scheduler is not None
                state = dict(record.scheduler)
                state["format"] = {"issued": total - WINDOW * steps}
                store.issue(tournament_id, state, [])
            per_match = []
            for _ in range(steps):
                before = store.get(tournament_id)
                assert before is not None
                started = time.perf_counter()
                scheduler._step(tournament_id)
                elapsed = time.perf_counter() - started
                after = store.get(tournament_id)
                assert after is not None
                handed = after.issued - before.issued
                per_match.append(elapsed / handed)
                finish(store, tournament_id)
                client.delete("celery")
            rows.append((name, where, statistics.median(per_match)))
    base = rows[0][2]
    for name, where, seconds in rows:
        print(
            f"schedule, {name:>7} matches, near the {where:5}: {seconds * 1e6:6.1f} µs a match"
            f"   ratio to 1,000 at the start {seconds / base:.2f}"
        )


def finish(store: TournamentStore, tournament_id: str) -> None:
    """Give every match handed out a result, as workers would."""
    for match in store.schedule(tournament_id):
        if not store.has_result(tournament_id, match.match_id):
            store.record_result(tournament_id, played(tournament_id, match), b"")


def played(tournament_id: str, match: ScheduledMatch) -> MatchResult:
    """A result for ``match`` as a worker stores one: the first entry won, 1-0."""
    return MatchResult(
        match_id=match.match_id,
        tournament_id=tournament_id,
        game=match.game,
        pair_key=match.pair_key,
        deal=match.deal,
        seed=match.seed,
        entries=tuple(match.entries),
        scores=(1, 0),
        winner_team=0,
        end="completed",
        forfeit_team=None,
        team_faults=(0, 0),
        team_fault_kinds=({}, {}),
        decisions=1,
        duration_ms=1.0,
        replay_id="",
        referee="",
        finished_at=time.time(),
        deal_key=match.deal_key,
        paired=match.paired,
        deal_commitment="",
        deal_salt="",
        referee_match_id="",
        fair_play=OPEN,
        operator_seed=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3, help="submissions of each size")
    parser.add_argument(
        "--steps", type=int, default=3, help="scheduler steps measured at each place (at most 4)"
    )
    args = parser.parse_args()
    server = start_redis()
    try:
        submission(server.url(0), args.rounds)
        scheduling(server.url(1), args.steps)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
