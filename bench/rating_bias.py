"""How many pairs before a rating means what it says? Maximum-likelihood ratings from a
small table are spread too wide: a bot that won 4 of 5 is credited with more than its
strength, because the few games cannot show the regression to the mean the truth
would. This simulates round robins between bots of known strength (the fit's own model,
BayesElo's, with a 40-Elo draw margin) and measures, by pairs per bot, how much the
fitted ratings are stretched against the truth (the slope of fitted on true, less 1),
how often a 95% interval covers the truth, and how many bots have a perfect record.

``arena.ratings.leaderboard.MIN_PAIRS`` is chosen from this table: the smallest round
number of pairs per bot at which the median stretch is under 10% for every field size.
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import time
from dataclasses import dataclass

import numpy as np

from arena.ratings.elo import Outcome, fit

DRAW_MARGIN = 40.0


@dataclass(frozen=True)
class Bias:
    bots: int
    pairs_per_bot: int
    stretch_median: float
    """Median over trials of (slope of fitted on true ratings) - 1."""
    stretch_mean: float
    coverage: float
    """Share of ratings whose 95% interval covers the truth."""
    perfect: float
    """Share of bots that won, or lost, every pair."""


def _expected(x: float) -> float:
    return 1 / (1 + 10 ** (-x / 400))


def simulate(bots: int, per_pairing: int, spread: float, trials: int, seed: int = 1) -> Bias:
    """``trials`` round robins of ``bots`` bots, strengths drawn with sd ``spread`` Elo,
    ``per_pairing`` pairs between each two."""
    rng = random.Random(f"{seed}:{bots}:{per_pairing}:{spread}")
    slopes: list[float] = []
    covered = perfect = rated = 0
    for _ in range(trials):
        truth = {f"b{i:02d}": rng.gauss(0, spread) for i in range(bots)}
        centre = statistics.fmean(truth.values())
        truth = {name: value - centre for name, value in truth.items()}
        outcomes = []
        for a, b in itertools.combinations(sorted(truth), 2):
            delta = truth[a] - truth[b]
            win, loss = _expected(delta - DRAW_MARGIN), _expected(-delta - DRAW_MARGIN)
            for _ in range(per_pairing):
                u = rng.random()
                outcomes.append(Outcome(a, b, 1.0 if u < win else 0.0 if u < win + loss else 0.5))
        table = fit(outcomes)
        names = sorted(truth)
        found = table.by_player()
        slope = np.polyfit([truth[n] for n in names], [found[n].elo for n in names], 1)[0]
        slopes.append(float(slope) - 1)
        for r in table.ratings:
            covered += abs(r.elo - truth[r.player]) <= r.ci95
            perfect += r.draws == 0 and (r.wins == 0 or r.losses == 0)
            rated += 1
    return Bias(
        bots,
        (bots - 1) * per_pairing,
        statistics.median(slopes),
        statistics.fmean(slopes),
        covered / rated,
        perfect / rated,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=400, help="round robins per row")
    parser.add_argument("--spread", type=float, default=200.0, help="sd of true Elo")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"{args.trials} round robins per row, true ratings' sd {args.spread:g} Elo")
    header = ("bots", "pairs/bot", "stretch med", "mean", "cover95", "perfect")
    print("{:>5} {:>9} {:>11} {:>7} {:>8} {:>8}".format(*header))
    start = time.perf_counter()
    for bots, per_pairing in (
        [(4, k) for k in (1, 2, 3, 5, 7, 10)]
        + [(8, k) for k in (1, 2, 3, 4, 6)]
        + [(16, k) for k in (1, 2, 3)]
    ):
        b = simulate(bots, per_pairing, args.spread, args.trials, args.seed)
        print(
            f"{b.bots:>5} {b.pairs_per_bot:>9} {b.stretch_median:>+11.1%} "
            f"{b.stretch_mean:>+7.1%} {b.coverage:>8.3f} {b.perfect:>8.3f}"
        )
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
