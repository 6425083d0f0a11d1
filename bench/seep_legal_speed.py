"""Seep's legal-move generator against the one it replaced, side by side in one run.

Positions come from whole matches (one bazzi, at most 3 deals, seeds 0..N-1) under two
policies of ``bench.seep_worst_floor``: ``random`` (the arena's usual load) and
``hoard`` (keeps the floor as full as it can: the expensive case). At every play the
generator of the engine (``SeepState._compute_legal``) and the former one
(``bench.seep_legal_before``) are timed on the same position, in alternating order,
each with the floor-analysis cache as play leaves it (the first call of a position,
what play costs). Both must give the same list. Also timed: whole decisions
(``legal_actions()`` plus ``apply()``) of random play, with the engine as it is, as
``bench.engine_speed`` measures them, and with the former generator patched in.

Run: ``python -m bench.seep_legal_speed [--seeds 300]``.
"""

from __future__ import annotations

import argparse
import gc
import random
import time

from arena.games.seep import game as seep
from arena.games.seep.game import SeepGame, SeepState
from bench import seep_legal_before
from bench.seep_worst_floor import POLICIES


def _old(state: SeepState) -> list[int]:
    return seep_legal_before.compute_legal(state)


def _new(state: SeepState) -> list[int]:
    state._compute_legal()
    return state._legal


def generators(policy_name: str, seeds: range) -> tuple[float, float, int]:
    """Microseconds per play position of the former and the new generator, and the
    number of positions."""
    policy = POLICIES[policy_name]
    seep.floor_sums.cache_clear()
    totals = {"old": 0.0, "new": 0.0}
    positions = 0
    gc.disable()
    try:
        for seed in seeds:
            state = SeepGame().new_state(seed, {"max_deals": 3})
            rng = random.Random(seed)
            while not state.is_terminal():
                legal = state.legal_actions()
                if state.phase == "play":
                    order = [("old", _old), ("new", _new)]
                    if positions % 2:
                        order.reverse()
                    results = []
                    for name, generate in order:
                        started = time.perf_counter()
                        results.append(generate(state))
                        totals[name] += time.perf_counter() - started
                    assert results[0] == results[1] == legal, f"lists differ, seed {seed}"
                    positions += 1
                state.apply(policy(state, legal, rng))
    finally:
        gc.enable()
    return totals["old"] / positions * 1e6, totals["new"] / positions * 1e6, positions


def decisions_us(seeds: range) -> float:
    """Microseconds per decision (legal_actions + apply) of random play."""
    rng = random.Random(0)
    decisions = 0
    elapsed = 0.0
    for seed in seeds:
        state = SeepGame().new_state(seed)
        started = time.perf_counter()
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
            decisions += 1
        elapsed += time.perf_counter() - started
    return elapsed / decisions * 1e6


def _patched_old(self: SeepState) -> None:
    self._legal = seep_legal_before.compute_legal(self)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    for name in ("random", "hoard"):
        old, new, positions = generators(name, range(args.seeds))
        print(
            f"{name:<6} generator, {positions} positions: before {old:6.1f} us, "
            f"now {new:6.1f} us, ratio now/before {new / old:.2f}"
        )
    current = seep.SeepState._compute_legal
    for round_number in range(args.rounds):
        figures = {}
        order = [("now", current), ("before", _patched_old)]
        if round_number % 2:
            order.reverse()
        for name, generator in order:
            seep.SeepState._compute_legal = generator  # type: ignore[method-assign, assignment]
            seep.floor_sums.cache_clear()  # each run starts with an empty floor-analysis cache
            try:
                figures[name] = decisions_us(range(args.seeds))
            finally:
                seep.SeepState._compute_legal = current  # type: ignore[method-assign]
        before, now = figures["before"], figures["now"]
        print(
            f"random decisions (legal_actions + apply), round {round_number + 1}: before "
            f"{before:5.1f} us, now {now:5.1f} us, ratio {now / before:.2f}"
        )


if __name__ == "__main__":
    main()
