"""Duplicate pairs per second of ``arena test --local`` against the same test through a
referee.

The test: random (seed 0) against random (seed 1) in Bid Euchre at the default 0/5 Elo
bounds, ``--pairs`` units at most (equal bots: it goes that far). Locally it is
``arena.tournament.local_sprt.run`` on ``--workers`` processes (default: one per core),
timed from the call (the pool's start included). Baseline in the same run: the very same
pairs (same seeds, from the same ``sprt`` format) played by a referee process with two
bot processes (``arena bot serve random --seed 0|1``), ``--concurrency`` ``PlayMatch``
calls at once, and fed to the same format in deal order; the referee's start is not
timed. Not through the API and Celery workers: ``bench.tournament_throughput`` measures
what they add per match (about 1.3x the referee alone). Random bots answer the same
requests the same way, so both runs must end with the very same SPRT standings; the
bench checks it.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc

from arena import wire
from arena.bots.examples import RandomBot
from arena.processes import arena_command, services
from arena.ratings.duplicate import DuplicateResult
from arena.tournament.formats.base import Played
from arena.tournament.local_sprt import LocalTest, check, run
from arena.tournament.schedule import ScheduledMatch
from arena.v1 import referee_pb2, referee_pb2_grpc

GAME = "bid-euchre"
OTHER = "bench.local_sprt:OtherRandom"


class OtherRandom(RandomBot):
    """``arena bot serve random --seed 1``, as a local bot."""

    def __init__(self) -> None:
        super().__init__(seed=1)


def through_referee(
    test: LocalTest, referee: str, bots: dict[str, str], concurrency: int
) -> tuple[dict[str, Any], int, float]:
    """The test's standings, pairs and seconds, its matches played by the referee."""
    fmt = check(test)
    state = fmt.start()
    state, matches = fmt.next(state, 2 * int(test.params["max_units"]))
    with grpc.insecure_channel(referee) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)

        def play(match: ScheduledMatch) -> Played:
            result = stub.PlayMatch(
                referee_pb2.PlayMatchRequest(
                    game=match.game,
                    bots=[bots[entry] for entry in match.entries],
                    seed=match.seed,
                    move_deadline=wire.duration(1.0),
                )
            )
            a, b = match.entries
            margin = result.teams[0].score - result.teams[1].score
            unit = DuplicateResult(pair_key=match.pair_key, a=a, b=b, margin=margin)
            return Played(match.match_id, unit)

        play(matches[0])  # warm the channels up
        started = time.perf_counter()
        pairs = 0
        with ThreadPoolExecutor(concurrency) as pool:
            for first, second in zip(*[iter(pool.map(play, matches))] * 2, strict=True):
                state = fmt.absorb(state, [first, second])
                pairs += 1
                if state["verdict"] != "SPRT_VERDICT_PENDING":
                    break
        seconds = time.perf_counter() - started
    return fmt.standings(state)["sprt"], pairs, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=60)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--concurrency", type=int, default=4, help="PlayMatch calls at once")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    params = {"elo0": 0.0, "elo1": 5.0, "max_units": args.pairs}
    test = LocalTest(GAME, "random", OTHER, args.seed, args.workers, params)
    local = run(test)
    local_rate = local.pairs / local.seconds
    print(
        f"local, {args.workers} workers: {local.pairs} pairs in {local.seconds:.2f} s = "
        f"{local_rate:.1f} pairs/s ({local.sprt['verdict']}, LLR {local.sprt['llr']:+.2f})"
    )
    commands = [
        arena_command("referee", "serve", "--port", "0", "--replay-dir", tempfile.mkdtemp()),
        arena_command("bot", "serve", "random", "--seed", "0", "--port", "0"),
        arena_command("bot", "serve", "random", "--seed", "1", "--port", "0"),
    ]
    with services(commands) as (referee, new, old):
        bots = {"new": new.address, "old": old.address}
        standings, pairs, seconds = through_referee(test, referee.address, bots, args.concurrency)
    remote_rate = pairs / seconds
    print(
        f"referee, {args.concurrency} matches at once: {pairs} pairs in {seconds:.2f} s = "
        f"{remote_rate:.1f} pairs/s"
    )
    same = standings == local.sprt
    print(f"same standings both ways: {same}")
    print(f"local / referee: {local_rate / remote_rate:.1f}x")
    if not same:
        raise SystemExit("the two runs disagree: not the same test")


if __name__ == "__main__":
    main()
