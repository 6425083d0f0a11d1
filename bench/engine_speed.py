"""Engine decisions per second in random play, for every registered game.

A decision is ``legal_actions()`` plus ``apply()``. Baseline in the same run: the bare
loop (random choice from a fixed list), so the printed ratio is the engine's own cost
per decision against the harness's. The aim is at most 35 us per decision.
"""

from __future__ import annotations

import argparse
import random
import time

from arena.games import all_games

AIM_US = 35.0


def harness_us(decisions: int) -> float:
    rng = random.Random(0)
    legal = list(range(8))
    started = time.perf_counter()
    for _ in range(decisions):
        rng.choice(legal)
    return (time.perf_counter() - started) / decisions * 1e6


def engine_us(game_name: str, games: int) -> tuple[float, int]:
    game = next(g for g in all_games() if g.info.name == game_name)
    rng = random.Random(0)
    decisions = 0
    elapsed = 0.0
    for seed in range(games):
        state = game.new_state(seed)
        started = time.perf_counter()
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
            decisions += 1
        elapsed += time.perf_counter() - started
    return elapsed / decisions * 1e6, decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300)
    args = parser.parse_args()
    for game in all_games():
        us, decisions = engine_us(game.info.name, args.games)
        base = harness_us(decisions)
        print(
            f"{game.info.name:<14} {us:6.1f} us per decision ({1e6 / us:,.0f}/s, {decisions} "
            f"decisions); harness {base:.2f} us, ratio {us / base:.0f}x; aim <= {AIM_US:g} us"
        )


if __name__ == "__main__":
    main()
