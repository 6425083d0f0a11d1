"""How much stronger is a bot than random? Duplicate matches through a real referee, bots
as separate processes: each deal seed is played twice with the teams swapped, so luck of
the cards cancels. Prints matches and duplicate pairs won.

``--bot`` is an example bot (served by ``arena bot serve NAME``) or a Python bot file
(``examples/learned_bid_euchre/bot.py``), run as its own process with ``--port 0``: the
SDK's ``serve`` prints the same ready line as ``arena bot serve``, so both are started
and found the same way."""

from __future__ import annotations

import argparse
import concurrent.futures
import sys

import grpc

from arena import wire
from arena.processes import arena_command, services
from arena.v1 import referee_pb2, referee_pb2_grpc


def bot_command(bot: str) -> list[str]:
    """The command serving ``bot`` on a port of its choosing, announced when ready."""
    if bot.endswith(".py"):
        return [sys.executable, bot, "--port", "0"]
    return arena_command("bot", "serve", bot, "--port", "0")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--game", default="bid-euchre")
    parser.add_argument(
        "--bot", default="bid-euchre-basic", help="example bot, or FILE.py serving an SDK bot"
    )
    parser.add_argument("--matches", type=int, default=200, help="matches (two per deal seed)")
    args = parser.parse_args()
    commands = [
        arena_command("referee", "serve", "--port", "0", "--replay-dir", "/tmp/arena-strength"),
        bot_command(args.bot),
        arena_command("bot", "serve", "random", "--port", "0", "--seed", "99"),
    ]
    with services(commands) as (referee, bot, rand), grpc.insecure_channel(referee.address) as ch:
        stub = referee_pb2_grpc.RefereeStub(ch)

        def margin(seed: int, swapped: bool) -> tuple[int, bool]:
            bots = [rand.address, bot.address] if swapped else [bot.address, rand.address]
            result = stub.PlayMatch(
                referee_pb2.PlayMatchRequest(
                    game=args.game, bots=bots, seed=seed, move_deadline=wire.duration(5.0)
                )
            )
            ours = 1 if swapped else 0
            won = result.HasField("winner_team") and result.winner_team == ours
            return result.teams[ours].score - result.teams[1 - ours].score, won

        seeds = range(args.matches // 2)
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            firsts = list(pool.map(lambda s: margin(s, False), seeds))
            seconds = list(pool.map(lambda s: margin(s, True), seeds))
    pairs = [a[0] + b[0] for a, b in zip(firsts, seconds, strict=True)]
    wins = sum(won for _, won in firsts + seconds)
    print(f"{args.bot} vs random, {args.game}, {2 * len(pairs)} matches on {len(pairs)} deals")
    print(f"  matches won: {wins} of {2 * len(pairs)} ({wins / (2 * len(pairs)):.0%})")
    print(
        f"  duplicate pairs won / drawn / lost: {sum(p > 0 for p in pairs)} / "
        f"{sum(p == 0 for p in pairs)} / {sum(p < 0 for p in pairs)}; "
        f"mean margin per pair {sum(pairs) / len(pairs):+.1f} points"
    )


if __name__ == "__main__":
    main()
