"""Which Seep floors make the legal-action list slowest to compute, under random and
adversarial play.

Every decision of every match is timed on the engine's legal-move generation (what
``legal_actions()`` returns; the engine computes it once per position). Policies:

* ``random``: uniform among the legal actions (the arena's usual load);
* ``hoard``: keeps the floor as full as it can: throws its highest card when it may,
  otherwise the play that moves the fewest loose cards, captures last;
* ``houses``: builds, breaks into new values and adds wherever it can, so the floor holds
  as many houses (with as many owners) as possible, and throws rather than captures;
* ``crowd``: greedy on (loose cards + 4 x houses) after the play.

Each position is timed three times: the first call is what play costs (it may have to
analyse a multiset of loose values never seen before), the best of the next two is the
warm cost. Positions are ranked on the warm cost, which the machine's noise disturbs
least; the slowest is timed again with an empty floor-analysis cache and printed with its
floor. The garbage collector is off while timing.

Run: ``python -m bench.seep_worst_floor [--seeds 300]``.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import arena.games.seep.game as seep
from arena.games.seep.game import ADD, BREAK, BUILD, CAPTURE, THROW, VALUE, SeepGame, SeepState

Policy = Callable[[SeepState, list[int], random.Random], int]


def _random(state: SeepState, legal: list[int], rng: random.Random) -> int:
    return rng.choice(legal)


def _parts(action: int) -> tuple[int, int, int]:
    """Kind, card and the number of loose cards moved."""
    d = seep.decode(action)
    return d.kind, d.card, len(d.loose)


def _hoard(state: SeepState, legal: list[int], rng: random.Random) -> int:
    def key(action: int) -> tuple[int, int, int, float]:
        kind, card, moved = _parts(action)
        return (kind == THROW, kind != CAPTURE, -moved, VALUE[card] + rng.random())

    return max(legal, key=key)


def _houses(state: SeepState, legal: list[int], rng: random.Random) -> int:
    def key(action: int) -> tuple[int, int, float]:
        d = seep.decode(action)
        new_house = d.kind == BUILD or (d.kind == BREAK and d.value not in state.houses)
        rank = 4 if new_house else 3 if d.kind == ADD else 2 if d.kind == THROW else 1
        return (rank, -len(d.loose), VALUE[d.card] + rng.random())

    return max(legal, key=key)


def _crowd(state: SeepState, legal: list[int], rng: random.Random) -> int:
    def key(action: int) -> float:
        d = seep.decode(action)
        loose, houses = len(state.loose), len(state.houses)
        if d.kind == THROW:
            loose += 1
        elif d.kind == CAPTURE:
            loose -= len(d.loose)
            houses -= VALUE[d.card] in state.houses
        elif d.kind == BUILD:
            loose, houses = loose - len(d.loose), houses + 1
        elif d.kind == ADD:
            loose -= len(d.loose)
        else:
            loose -= len(d.loose)
            houses -= d.value in state.houses
        return loose + 4 * houses + rng.random()

    return max(legal, key=key)


POLICIES: dict[str, Policy] = {
    "random": _random,
    "hoard": _hoard,
    "houses": _houses,
    "crowd": _crowd,
}


@dataclass
class Slowest:
    us: float = 0.0
    actions: int = 0
    floor: str = ""
    state: SeepState | None = None


def describe(state: SeepState) -> str:
    loose = " ".join(seep.CARDS[c] for c in state.loose) or "-"
    houses = "; ".join(
        f"{v}: {' '.join(seep.CARDS[c] for c in h.cards)} (owners "
        f"{','.join(str(s) for s in range(4) if h.owners >> s & 1)})"
        for v, h in sorted(state.houses.items())
    )
    hand = " ".join(seep.CARDS[c] for c in state.hands[state.current])
    return f"loose [{loose}] ({len(state.loose)}); houses [{houses or '-'}]; mover holds [{hand}]"


def timed_legal(state: SeepState) -> float:
    gc.disable()
    started = time.perf_counter()
    state._compute_legal()
    elapsed = (time.perf_counter() - started) * 1e6
    gc.enable()
    return elapsed


@dataclass
class Figures:
    first: list[float]
    warm: list[float]
    sizes: list[int]
    slowest: Slowest


def run(policy_name: str, seeds: range) -> Figures:
    policy = POLICIES[policy_name]
    game = SeepGame()
    figures = Figures([], [], [], Slowest())
    for seed in seeds:
        state = game.new_state(seed, {"max_deals": 3})
        rng = random.Random(seed)
        while not state.is_terminal():
            if state.phase == "play":
                figures.first.append(timed_legal(state))
                warm = min(timed_legal(state), timed_legal(state))
                legal = state.legal_actions()
                figures.warm.append(warm)
                figures.sizes.append(len(legal))
                if warm > figures.slowest.us:
                    figures.slowest = Slowest(warm, len(legal), describe(state), _copy(state))
            else:
                legal = state.legal_actions()
            state.apply(policy(state, legal, rng))
    return figures


def _copy(state: SeepState) -> SeepState:
    import pickle

    copied: SeepState = pickle.loads(pickle.dumps(state))
    return copied


def cold_us(state: SeepState) -> float:
    """Best of three with an empty floor-analysis cache each time."""
    best = float("inf")
    for _ in range(3):
        seep.floor_sums.cache_clear()
        best = min(best, timed_legal(state))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=300)
    parser.add_argument("--policies", default=",".join(POLICIES))
    args = parser.parse_args()
    worst = Slowest()
    worst_policy = ""
    for name in args.policies.split(","):
        figures = run(name, range(args.seeds))
        warm, sizes, slowest = figures.warm, figures.sizes, figures.slowest
        print(
            f"{name:<7} {len(warm):>6} decisions: mean {statistics.fmean(figures.first):6.1f} us "
            f"as played ({statistics.fmean(warm):6.1f} us warm), warm p99 "
            f"{sorted(warm)[int(0.99 * len(warm))]:7.1f} us, max {max(warm):8.1f} us; "
            f"actions mean {statistics.fmean(sizes):5.1f}, max {max(sizes)}"
        )
        print(f"        slowest: {slowest.us:.1f} us, {slowest.actions} actions, {slowest.floor}")
        if slowest.us > worst.us:
            worst, worst_policy = slowest, name
    assert worst.state is not None
    print(
        f"slowest call overall ({worst_policy}): {worst.us:.1f} us warm, "
        f"{cold_us(worst.state):.1f} us with an empty floor cache, {worst.actions} actions"
    )
    print(f"  floor: {worst.floor}")


if __name__ == "__main__":
    main()
