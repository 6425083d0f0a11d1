"""``make demo``: a referee and two example bots as separate processes, a few duplicate
Bid Euchre matches between them through the referee, the scores, and nothing left running."""

from __future__ import annotations

import argparse
import contextlib
import tempfile

import grpc
from rich.console import Console
from rich.table import Table

from arena import wire
from arena.processes import arena_command, services
from arena.v1 import referee_pb2, referee_pb2_grpc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=4, help="deal seeds, each played twice")
    args = parser.parse_args()
    console = Console()
    replay_dir = tempfile.mkdtemp(prefix="arena-demo-")
    commands = [
        arena_command("referee", "serve", "--port", "0", "--replay-dir", replay_dir),
        arena_command("bot", "serve", "bid-euchre-basic", "--port", "0"),
        arena_command("bot", "serve", "random", "--port", "0", "--seed", "7"),
    ]
    with contextlib.ExitStack() as stack:
        with console.status("starting a referee and two bots"):
            referee, basic, rand = stack.enter_context(services(commands))
        console.print(f"referee {referee.address}")
        console.print(f"bots: bid-euchre-basic {basic.address}, random {rand.address}")
        table = Table(title="Bid Euchre, duplicate deals: bid-euchre-basic vs random")
        for column in ("seed", "seats", "basic", "random", "winner", "replay"):
            table.add_column(column)
        totals = {"basic": 0, "random": 0}
        with grpc.insecure_channel(referee.address) as channel:
            stub = referee_pb2_grpc.RefereeStub(channel)
            for seed in range(1, args.deals + 1):
                for swap in (False, True):
                    bots = [rand.address, basic.address] if swap else [basic.address, rand.address]
                    result = stub.PlayMatch(
                        referee_pb2.PlayMatchRequest(
                            game="bid-euchre",
                            bots=bots,
                            seed=seed,
                            move_deadline=wire.duration(2.0),
                        ),
                        wait_for_ready=True,
                    )
                    basic_team = 1 if swap else 0
                    basic_score = result.teams[basic_team].score
                    random_score = result.teams[1 - basic_team].score
                    winner = (
                        "draw"
                        if not result.HasField("winner_team")
                        else "basic"
                        if result.winner_team == basic_team
                        else "random"
                    )
                    if winner != "draw":
                        totals[winner] += 1
                    table.add_row(
                        str(seed),
                        "swapped" if swap else "as dealt",
                        str(basic_score),
                        str(random_score),
                        winner,
                        result.replay_id,
                    )
        console.print(table)
        console.print(f"won: bid-euchre-basic {totals['basic']}, random {totals['random']}")
        console.print(f"replays in {replay_dir}: arena replay show --replay-dir {replay_dir} ID")
    console.print("all processes stopped")


if __name__ == "__main__":
    main()
