"""How long a small tournament takes beside others, against its time alone.

The whole stack (Redis, API, one referee, one worker of ``--processes``, bots as
processes). Baseline in the same run: a small round robin (two bots, one Seep deal: 2
matches) alone. Then the same small tournament submitted once a big one (4 bots, 8
deals of Seep: 96 matches) is under way, and once a ladder of the same bots is. Prints
each time and its ratio to the time alone, with how many of the other's results were
stored meanwhile. Aim (``workers.scheduler.fair_share``): the small one waits for the
matches already out, about one round of the other's matches, then shares the workers,
so its time is its time alone plus about one of the other's match lengths per process
round: a small multiple, and no longer proportional to the other's backlog.
"""

from __future__ import annotations

import argparse
import contextlib
import time

from arena.cli.connect import arena_api
from arena.local_redis import start_redis
from arena.processes import Service, arena_command, start_service
from arena.v1 import arena_pb2, arena_pb2_grpc

BIG = ["b1", "b2", "b3", "b4"]
SMALL = ["s1", "s2"]


def _wait(stub: arena_pb2_grpc.ArenaStub, tournament_id: str, done: int | None = None) -> int:
    while True:
        state = stub.GetTournament(arena_pb2.GetTournamentRequest(id=tournament_id))
        if state.state == arena_pb2.TOURNAMENT_STATE_FINISHED or (
            done is not None and state.matches_done >= done
        ):
            return state.matches_done
        time.sleep(0.02)


def _small(stub: arena_pb2_grpc.ArenaStub, name: str) -> float:
    started = time.perf_counter()
    small = stub.SubmitTournament(
        arena_pb2.SubmitTournamentRequest(
            spec=arena_pb2.TournamentSpec(entries=SMALL, deals=1, games=["seep"], name=name)
        )
    )
    _wait(stub, small.id)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--processes", type=int, default=2, help="worker pool size (default 2)")
    parser.add_argument("--repeats", type=int, default=3, help="times each case (default 3)")
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        server = start_redis()
        stack.callback(server.stop)

        def start(*command: str) -> Service:
            service = start_service(arena_command(*command))
            stack.callback(service.stop)
            return service

        url = server.url(0)
        referee = start("referee", "serve", "--port", "0")
        api = start("api", "serve", "--port", "0", "--redis", url)
        start(
            "worker", "--redis", url, "--referee", referee.address,
            "--concurrency", str(args.processes), "--name", "fair@%h",
        )  # fmt: skip
        with arena_api(api.address) as stub:
            for n, name in enumerate(BIG + SMALL):
                bot = start("bot", "serve", "random", "--seed", str(n), "--port", "0")
                stub.RegisterBot(arena_pb2.RegisterBotRequest(name=name, address=bot.address))
            _small(stub, "warm-up")
            alone = min(_small(stub, "alone") for _ in range(args.repeats))
            print(f"alone: {alone:.2f} s")
            for case in ("behind a big tournament", "beside a ladder"):
                times, others = [], []
                for _ in range(args.repeats):
                    if case == "beside a ladder":
                        spec = arena_pb2.TournamentSpec(
                            games=["seep"], format=arena_pb2.FORMAT_LADDER
                        )
                    else:
                        spec = arena_pb2.TournamentSpec(entries=BIG, deals=8, games=["seep"])
                    other = stub.SubmitTournament(arena_pb2.SubmitTournamentRequest(spec=spec))
                    before = _wait(stub, other.id, done=2 * args.processes)
                    times.append(_small(stub, case))
                    others.append(_wait(stub, other.id, done=0) - before)
                    stub.CancelTournament(arena_pb2.CancelTournamentRequest(id=other.id))
                worst = max(times)
                print(
                    f"{case}: {worst:.2f} s at worst of {args.repeats} ({worst / alone:.1f}x "
                    f"alone); the other's results meanwhile: {max(others)} at most"
                )


if __name__ == "__main__":
    main()
