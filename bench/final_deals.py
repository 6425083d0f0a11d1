"""Does the final's number of deals separate adjacent ranks as predicted? For a few
fields of known strengths, ``arena.competition.final_deals.choose_deals`` picks the deals
from a board holding the true ratings; then finals are simulated at that number under
the rating fit's own model (BayesElo's, a 40-Elo draw margin: about 11% draws between
equals), each game fitted by the arena's fit (``arena.ratings.elo.fit_counts``) and
combined as the final board combines games (the mean of the games' differences, the sum
of their variances over games squared: ``arena.ratings.overall``), and each adjacent
pair's LOS computed as the board computes it (``arena.ratings.compare.los``).

Printed per field and adjacent pair: the ladder's gap, the deals it needs, the predicted
chance that the final's LOS reaches the target at the deals chosen, and the simulated
share of finals where it did, with the median LOS. ``--noisy N`` also draws the ladder's
ratings from a simulated ladder of N duplicate pairs per pairing, the truth unchanged:
what taking the ladder's gaps at face value costs.
"""

from __future__ import annotations

import argparse
import itertools
import math
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from arena.competition.final_deals import DealsChoice, choose_deals
from arena.ratings.board import Leaderboard, Row, ranked
from arena.ratings.compare import los
from arena.ratings.elo import Counts, K, fit_counts

DRAW_MARGIN = 40.0
TARGET = 0.95


@dataclass(frozen=True)
class Field:
    name: str
    elo: tuple[float, ...]
    """True strengths, best first."""
    games: int
    budget: int


FIELDS = (
    Field("4 versions 150 apart, 1 game", (225, 75, -75, -225), 1, 50),
    Field("6 versions 100 apart, 2 games", (250, 150, 50, -50, -150, -250), 2, 50),
    Field("8 versions 60 apart, 1 game", tuple(210 - 60 * i for i in range(8)), 1, 1000),
    Field("4 versions, one gap 20, 1 game", (200, 20, 0, -200), 1, 50),
    Field("5 versions 100 apart, budget 2", (200, 100, 0, -100, -200), 1, 2),
    Field("3 versions 1,000 apart, 1 game", (1000, 0, -1000), 1, 50),
    Field("a runaway leader, 1 game", (900, 150, 0, -150), 1, 100),
    Field("2 versions 300 apart, 1 game", (150, -150), 1, 50),
)


def chances(gap: float, draw: float = DRAW_MARGIN) -> tuple[float, float, float]:
    """Win, draw and loss of one duplicate pair ``gap`` Elo apart, as the fit models it."""
    win = 0.5 * (1 + math.tanh(0.5 * K * (gap - draw)))
    loss = 0.5 * (1 + math.tanh(0.5 * K * (-gap - draw)))
    return win, 1 - win - loss, loss


def board_of(elo: Sequence[float], draw: float = DRAW_MARGIN) -> Leaderboard:
    """A ladder's board holding ``elo`` for versions ``v0@1``, ``v1@1``..."""
    rows = [Row(0, name(i), e, 30.0, 40, 20, 0, 20, 80) for i, e in enumerate(elo)]
    return Leaderboard("", ranked(rows), draw, 0)


def name(i: int) -> str:
    return f"v{i}@1"


def play(elo: Sequence[float], deals: int, rng: np.random.Generator) -> Counts:
    """One game of a round robin, ``deals`` duplicate pairs per pairing."""
    counts: Counts = {}
    for i, j in itertools.combinations(range(len(elo)), 2):
        w, d, lo = rng.multinomial(deals, chances(elo[i] - elo[j]))
        counts[name(i), name(j)] = (int(w), int(d), int(lo))
    return counts


def final_los(
    elo: Sequence[float], deals: int, games: int, rng: np.random.Generator
) -> list[float]:
    """One simulated final: the LOS of each version over the next in ``elo``'s order,
    from the games' fits combined as the final board combines them."""
    n = len(elo)
    difference = np.zeros(n - 1)
    variance = np.zeros(n - 1)
    for _ in range(games):
        table = fit_counts(play(elo, deals, rng))
        rating = table.by_player()
        c = table.covariance
        for i in range(n - 1):
            a, b = name(i), name(i + 1)
            difference[i] += rating[a].elo - rating[b].elo
            variance[i] += c[a, a] + c[b, b] - 2 * c[a, b]
    difference /= games
    variance /= games**2
    return [
        los(float(d), math.sqrt(max(v, 0.0))) for d, v in zip(difference, variance, strict=True)
    ]


def ladder(elo: Sequence[float], pairs: int, rng: np.random.Generator) -> list[float]:
    """Ratings as a ladder of ``pairs`` duplicate pairs per pairing measures them."""
    table = fit_counts(play(elo, pairs, rng)).by_player()
    return [table[name(i)].elo for i in range(len(elo))]


@dataclass(frozen=True)
class Measured:
    choice: DealsChoice
    """The choice from the true ratings."""
    deals: tuple[int, ...]
    """The deals of each final: the choice's, or with a noisy ladder each ladder's."""
    separated: tuple[float, ...]
    """Per adjacent pair (true order), the share of finals whose LOS reached the target."""
    median_los: tuple[float, ...]


def measure(
    field: Field, trials: int, seed: int = 1, noisy: int = 0, target: float = TARGET
) -> Measured:
    """``trials`` finals of ``field`` at the deals chosen; with ``noisy``, each at the
    deals chosen from a ladder of ``noisy`` pairs per pairing measured afresh."""
    rng = np.random.default_rng(seed)
    versions = [name(i) for i in range(len(field.elo))]

    def choose(elo: Sequence[float]) -> DealsChoice:
        return choose_deals(board_of(elo), versions, field.games, field.budget, target)

    truth = choose(field.elo)
    found: list[list[float]] = []
    deals: list[int] = []
    for _ in range(trials):
        deals.append(choose(ladder(field.elo, noisy, rng)).deals if noisy else truth.deals)
        found.append(final_los(field.elo, deals[-1], field.games, rng))
    by_pair = list(zip(*found, strict=True))
    return Measured(
        truth,
        tuple(deals),
        tuple(sum(x >= target for x in pair) / trials for pair in by_pair),
        tuple(statistics.median(pair) for pair in by_pair),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=200, help="finals per field")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--noisy", type=int, default=0, help="ladder pairs per pairing")
    args = parser.parse_args()
    start = time.perf_counter()
    print(f"target LOS {TARGET:g}; {args.trials} simulated finals per field")
    for field in FIELDS:
        m = measure(field, args.trials, args.seed, args.noisy)
        print(f"\n{field.name} (budget {field.budget}): {m.choice.deals} deals")
        print(f"  {m.choice.reason}")
        if args.noisy:
            low, mid, high = np.percentile(m.deals, [10, 50, 90])
            print(
                f"  from a ladder of {args.noisy} pairs per pairing: {mid:.0f} deals "
                f"(10-90%: {low:.0f}-{high:.0f})"
            )
        print("  {:<8} {:>6} {:>7} {:>10} {:>10} {:>10}".format(
            "pair", "gap", "needs", "predicted", "simulated", "median LOS"
        ))  # fmt: skip
        for gap, separated, median in zip(m.choice.gaps, m.separated, m.median_los, strict=True):
            needs = "-" if gap.needs is None else f"{gap.needs:,}"
            predicted = "" if args.noisy else f"{gap.chance:.2f}"
            print(
                f"  {gap.above[:-2] + '>' + gap.below[:-2]:<8} {gap.elo:>+6.0f} {needs:>7} "
                f"{predicted:>10} {separated:>10.2f} {median:>10.3f}"
            )
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
