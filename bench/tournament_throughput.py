"""Tournament throughput on this machine, and what Celery costs per match.

A 4-bot duplicate round-robin over every game is run through the whole stack (API,
Redis, Celery workers, one referee, bots as processes) with one worker, then with two;
baseline in the same run: the same scheduled matches played one after another straight
through the referee, with no queue. Prints matches per minute and the per-match
overhead of the queue (one worker, one process, against the direct loop).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import tempfile
import time

import grpc
import redis

from arena import wire
from arena.cli.connect import arena_api
from arena.local_redis import start_redis
from arena.processes import Service, arena_command, start_service
from arena.store import keys
from arena.v1 import arena_pb2, arena_pb2_grpc, referee_pb2, referee_pb2_grpc

BOTS = {
    "house": ("house",),
    "random-1": ("random", "--seed", "1"),
    "random-2": ("random", "--seed", "2"),
    "random-3": ("random", "--seed", "3"),
}


def finish(stub: arena_pb2_grpc.ArenaStub, spec: arena_pb2.TournamentSpec) -> arena_pb2.Tournament:
    """Submit and wait until every match has a result (the rating step is not timed)."""
    tournament = stub.SubmitTournament(arena_pb2.SubmitTournamentRequest(spec=spec))
    while True:
        state = stub.GetTournament(arena_pb2.GetTournamentRequest(id=tournament.id))
        if state.matches_done == state.matches_total:
            return tournament
        time.sleep(0.02)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=1)
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        server = start_redis()
        stack.callback(server.stop)

        def start(*command: str) -> Service:
            service = start_service(arena_command(*command))
            stack.callback(service.stop)
            return service

        referee = start("referee", "serve", "--port", "0", "--replay-dir", tempfile.mkdtemp())
        bots = {
            name: start("bot", "serve", *flags, "--port", "0").address
            for name, flags in BOTS.items()
        }
        rates = {}
        per_match_s = {}
        for workers in (1, 2):
            url = server.url(workers)
            api = start("api", "serve", "--port", "0", "--redis", url)
            pool = [
                start(
                    "worker",
                    "--redis",
                    url,
                    "--referee",
                    referee.address,
                    "--concurrency",
                    "1",
                    "--name",
                    f"bench{workers}-{n}@%h",
                )
                for n in range(workers)
            ]
            with arena_api(api.address) as stub:
                for name, address in bots.items():
                    stub.RegisterBot(arena_pb2.RegisterBotRequest(name=name, address=address))
                # Warm the workers up (imports, first connections) on a small tournament.
                finish(stub, arena_pb2.TournamentSpec(entries=["house", "random-1"], deals=workers))
                started = time.perf_counter()
                tournament = finish(
                    stub,
                    arena_pb2.TournamentSpec(entries=list(bots), deals=args.deals, master_seed=7),
                )
                elapsed = time.perf_counter() - started
            total = tournament.matches_total
            rates[workers] = total / elapsed * 60
            per_match_s[workers] = elapsed / total
            print(f"{workers} worker(s): {total} matches in {elapsed:.1f} s", end=" ")
            print(f"= {rates[workers]:.0f} matches/min")
            for worker in pool:
                worker.stop()
            if workers == 1:
                schedule = [
                    json.loads(v)
                    for v in redis.Redis.from_url(url)
                    .hgetall(keys.schedule(tournament.id))
                    .values()
                ]
        with grpc.insecure_channel(referee.address) as channel:
            referee_stub = referee_pb2_grpc.RefereeStub(channel)
            started = time.perf_counter()
            for match in schedule:
                referee_stub.PlayMatch(
                    referee_pb2.PlayMatchRequest(
                        game=match["game"],
                        bots=[bots[e] for e in match["entries"]],
                        seed=match["seed"],
                        move_deadline=wire.duration(1.0),
                    )
                )
            direct = (time.perf_counter() - started) / len(schedule)
    print(f"direct through the referee: {direct * 1000:.0f} ms per match", end=" ")
    print(f"({60 / direct:.0f} matches/min)")
    overhead = per_match_s[1] - direct
    print(
        f"Celery overhead per match (1 worker vs direct): {overhead * 1000:+.0f} ms, "
        f"ratio {per_match_s[1] / direct:.2f}; 2 workers / 1 worker: {rates[2] / rates[1]:.2f}x"
    )


if __name__ == "__main__":
    main()
