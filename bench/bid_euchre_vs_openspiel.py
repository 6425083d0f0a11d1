"""Bid Euchre's engine against OpenSpiel's C++ ``euchre``, per decision, side by side.

Random play of whole matches of our Bid Euchre (``game.new_state(seed)``, then
``legal_actions()`` + ``apply()`` until the end) against random play of whole games of
``pyspiel.load_game("euchre")`` (chance nodes drawn from ``chance_outcomes()``, decisions
from ``legal_actions()``). Only players' decisions count as decisions on either side, but
the clock runs over the whole playout: our deals (``new_state`` and every later hand's
shuffle) and OpenSpiel's dealing chance nodes are included. The clock is the process's CPU
time: both sides run in this one thread, and on a shared machine wall time also counts
the waits for a core. Euchre's chance outcomes are uniform, so a uniform choice among
them samples them exactly, and it is the cheapest harness there (charging OpenSpiel least).

The games differ: OpenSpiel's is classic euchre, one hand with an up-card, ordering up and
going alone; ours is Bid Euchre, a match to 32 of hands with an auction. So the figure is
per decision, not per game. Rounds alternate, ours then OpenSpiel's, each side playing
the same games every round (ours ``--games`` matches, OpenSpiel's as many games as
reach our round's decisions); the median round's ratio, ours over OpenSpiel's, is
reported. Aim: at most 2.0; 2.5-2.9 before the engine's play, calls and deals were made
cheaper, 2.0-2.1 after, 1.6 once events became named tuples (2026-12-07).
Skipped, saying so, where ``open_spiel`` is not installed.

Run: ``python -m bench.bid_euchre_vs_openspiel [--rounds 15] [--games 6]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from arena.games import all_games

AIM = 2.0


def ours_us(games: int) -> tuple[float, int]:
    """Microseconds per decision of ``games`` random Bid Euchre matches, deals included,
    and the number of decisions."""
    game = next(g for g in all_games() if g.info.name == "bid-euchre")
    rng = random.Random(0)
    decisions = 0
    started = time.process_time()
    for seed in range(games):
        state = game.new_state(seed)
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
            decisions += 1
    return (time.process_time() - started) / decisions * 1e6, decisions


def theirs_us(game: Any, decisions_wanted: int) -> tuple[float, int]:
    """Microseconds per decision of random OpenSpiel euchre games, chance nodes included,
    playing whole games until ``decisions_wanted`` decisions are reached."""
    rng = random.Random(0)
    decisions = 0
    started = time.process_time()
    while decisions < decisions_wanted:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
    return (time.process_time() - started) / decisions * 1e6, decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--games", type=int, default=6, help="our matches per round")
    args = parser.parse_args()
    try:
        import pyspiel
    except ImportError as error:
        print(f"bid_euchre_vs_openspiel skipped: open_spiel is not installed ({error})")
        return
    euchre = pyspiel.load_game("euchre")
    ratios = []
    for number in range(1, args.rounds + 1):
        ours, decisions = ours_us(args.games)
        theirs, their_decisions = theirs_us(euchre, decisions)
        ratios.append(ours / theirs)
        print(
            f"round {number}: ours {ours:5.2f} us/decision ({decisions}), OpenSpiel "
            f"{theirs:5.2f} us/decision ({their_decisions}), ratio {ours / theirs:.2f}"
        )
    median = statistics.median(ratios)
    verdict = "meets" if median <= AIM else "misses"
    print(
        f"median ratio ours/OpenSpiel {median:.2f} (rounds {min(ratios):.2f}-{max(ratios):.2f}); "
        f"{verdict} the aim <= {AIM:g}"
    )


if __name__ == "__main__":
    main()
