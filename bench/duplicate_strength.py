"""How much stronger is a bot than random (or than ``--opponent``)? Duplicate matches
through a real referee, bots as separate processes: each deal seed is played twice with
the teams swapped, so luck of the cards cancels. Prints matches and duplicate pairs won,
the likelihood of superiority (LOS, from pairs won and lost) and the Elo difference the
pair score gives.

``--bot`` is an example bot (served by ``arena bot serve NAME``) or a Python bot file
(``examples/learned_bid_euchre/bot.py``), run as its own process with ``--port 0``: the
SDK's ``serve`` prints the same ready line as ``arena bot serve``, so both are started
and found the same way."""

from __future__ import annotations

import argparse
import concurrent.futures
import math
import sys

import grpc

from arena import wire
from arena.processes import arena_command, services
from arena.v1 import referee_pb2, referee_pb2_grpc


def bot_command(bot: str) -> list[str]:
    """The command serving ``bot`` on a port of its choosing, announced when ready."""
    if bot.endswith(".py"):
        return [sys.executable, bot, "--port", "0"]
    if bot == "random":
        return arena_command("bot", "serve", "random", "--port", "0", "--seed", "99")
    return arena_command("bot", "serve", bot, "--port", "0")


def strength_line(pairs: list[int]) -> str:
    """LOS = Phi((W - L) / sqrt(W + L)), draws left out; Elo from the pair score."""
    won, lost = sum(p > 0 for p in pairs), sum(p < 0 for p in pairs)
    los = 0.5 * (1 + math.erf((won - lost) / math.sqrt(2 * max(won + lost, 1))))
    score = (won + 0.5 * (len(pairs) - won - lost)) / len(pairs)
    elo = f"{0.0 - 400 * math.log10(1 / score - 1):+.0f}" if 0 < score < 1 else "unbounded"
    return f"  LOS {los:.1%}; Elo difference {elo}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--game", default="bid-euchre")
    parser.add_argument(
        "--bot", default="bid-euchre-basic", help="example bot, or FILE.py serving an SDK bot"
    )
    parser.add_argument("--opponent", default="random", help="the same forms as --bot")
    parser.add_argument("--matches", type=int, default=200, help="matches (two per deal seed)")
    args = parser.parse_args()
    commands = [
        arena_command("referee", "serve", "--port", "0", "--replay-dir", "/tmp/arena-strength"),
        bot_command(args.bot),
        bot_command(args.opponent),
    ]
    with services(commands) as (referee, bot, other), grpc.insecure_channel(referee.address) as ch:
        stub = referee_pb2_grpc.RefereeStub(ch)

        def margin(seed: int, swapped: bool) -> tuple[int, bool]:
            bots = [other.address, bot.address] if swapped else [bot.address, other.address]
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
    matches = f"{2 * len(pairs)} matches on {len(pairs)} deals"
    print(f"{args.bot} vs {args.opponent}, {args.game}, {matches}")
    print(f"  matches won: {wins} of {2 * len(pairs)} ({wins / (2 * len(pairs)):.0%})")
    print(
        f"  duplicate pairs won / drawn / lost: {sum(p > 0 for p in pairs)} / "
        f"{sum(p == 0 for p in pairs)} / {sum(p < 0 for p in pairs)}; "
        f"mean margin per pair {sum(pairs) / len(pairs):+.2f} points"
    )
    print(strength_line(pairs))


if __name__ == "__main__":
    main()
