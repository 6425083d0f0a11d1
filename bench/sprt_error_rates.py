"""Does the SPRT keep its promises? Simulated tests between entries of known strength,
exactly elo0 and exactly elo1 apart, the LLR checked after every unit as the format
checks it (``arena.ratings.sprt_simulation``): the rate of accepting H1 under elo0
should be alpha, the rate of accepting H0 under elo1 beta, each within 3 binomial
standard errors. For the Elo shown at the stop (``arena.ratings.sprt_estimate``), on a
subset of the same runs and on runs at the midpoint of the bounds: its median and mean
less the truth, and how often its 95% interval holds the truth (aim 93-97%). Bounds the
format refuses (``arena.ratings.sprt.check_bounds``) are marked ``*``: simulated all the
same, to show why.

Then the same for duplicate pairs tested in their five outcomes (the format's pair
path: the pentanomial LLR, ``--five-runs`` tests a case, 0 to skip): units drawn with
the chances of ``FIVE_SHAPE`` tilted to each true expected score
(``arena.ratings.sprt_simulation.tilted``), at the bounds the format takes.

Side by side, where fishtest's statistics can be imported (``--fishtest DIR``, the
directory holding fishtest's ``fishtest/stats``; fishtest is not on PyPI and needs
scipy): its ``LLR_logistic`` on the runs' final counts (the largest difference from
ours) and its ``SPRT_elo`` estimate on the same runs; with ``--fishtest-runs N``, also
N tests run with its ``update_SPRT`` after every unit (slow: Python per unit).
"""

from __future__ import annotations

import argparse
import importlib
import math
import os
import sys
import time
from types import ModuleType
from typing import Any

import numpy as np

from arena.ratings import sprt
from arena.ratings.sprt_estimate import estimate, estimate_counts
from arena.ratings.sprt_simulation import (
    H0,
    H1,
    INCONCLUSIVE,
    Simulation,
    simulate,
    simulate_outcomes,
    tilted,
)

BOUNDS = ((0.0, 5.0), (0.0, 10.0), (0.0, 25.0), (0.0, 50.0), (0.0, 100.0), (0.0, 200.0))
FIVE_SHAPE = (0.05, 0.25, 0.15, 0.4, 0.15)
"""A pair's five levels (lost both halves first) between two versions of one bot:
about what ``bench.rating_units`` saw in Bid Euchre, where no match is drawn."""


def fishtest_modules(path: str | None) -> tuple[Any, Any] | None:
    """fishtest's ``LLRcalc`` and ``stat_util``, or None when they cannot be imported."""
    if path:
        sys.path.insert(0, path)
    try:
        llrcalc: ModuleType = importlib.import_module("fishtest.stats.LLRcalc")
        stat_util: ModuleType = importlib.import_module("fishtest.stats.stat_util")
    except ImportError:
        return None
    return llrcalc, stat_util


def counts(sim: Simulation, run: int) -> tuple[int, int, int]:
    """A run's losses, draws and wins when it stopped."""
    losses, draws, wins = (int(c) for c in sim.counts[run])
    return losses, draws, wins


def se(rate: float, runs: int) -> float:
    return math.sqrt(max(rate * (1 - rate), 1e-12) / runs)


def coverage(sim: Simulation, truth: float, args: argparse.Namespace, e0: float, e1: float) -> str:
    """Median and mean error of our estimate, and its 95% interval's coverage."""
    picked = np.flatnonzero(sim.verdicts != INCONCLUSIVE)[: args.estimate_runs]
    found = [
        estimate(*counts(sim, i), e0, e1, args.alpha, args.beta, int(sim.verdicts[i]))
        for i in picked
    ]
    errors = np.array([f.elo - truth for f in found])
    covered = np.mean([f.low <= truth <= f.high for f in found])
    return (
        f"{np.median(errors):+7.1f} {errors.mean():+7.1f} {covered:6.1%} "
        f"({se(float(covered), len(found)):.1%})"
    )


def coverage_five(
    sim: Simulation, truth: float, args: argparse.Namespace, e0: float, e1: float
) -> str:
    """``coverage`` of five-outcome tests: the estimate from the five counts."""
    picked = np.flatnonzero(sim.verdicts != INCONCLUSIVE)[: args.estimate_runs]
    found = [
        estimate_counts(
            [int(c) for c in sim.counts[i]], e0, e1, args.alpha, args.beta, int(sim.verdicts[i])
        )
        for i in picked
    ]
    errors = np.array([f.elo - truth for f in found])
    covered = np.mean([f.low <= truth <= f.high for f in found])
    return (
        f"{np.median(errors):+7.1f} {errors.mean():+7.1f} {covered:6.1%} "
        f"({se(float(covered), len(found)):.1%})"
    )


def five_outcomes(args: argparse.Namespace) -> None:
    """The error rates and the estimate of tests of pairs in their five outcomes."""
    print()
    print(
        f"five outcomes of a pair: {args.five_runs} runs per case, shape {FIVE_SHAPE} tilted "
        "to each true score"
    )
    for text in args.bounds:
        e0, e1 = (float(x) for x in text.split("/"))
        if sprt.check_bounds(e0, e1):
            continue
        cases = [(e0, "alpha", H1, args.alpha), ((e0 + e1) / 2, "", 0, 0.0)]
        cases.append((e1, "beta", H0, args.beta))
        for i, (truth, name, wrong, nominal) in enumerate(cases):
            started = time.perf_counter()
            runs = args.five_runs if wrong else min(args.estimate_runs, args.five_runs)
            chances = tilted(FIVE_SHAPE, truth)
            sim = simulate_outcomes(
                chances, e0, e1, args.alpha, args.beta, runs, 10**7, args.seed + i
            )
            covered = coverage_five(sim, truth, args, e0, e1)
            print(row(text, truth, name, wrong, nominal, sim, runs, covered, started), flush=True)


def row(
    text: str,
    truth: float,
    name: str,
    wrong: int | None,
    nominal: float,
    sim: Simulation,
    runs: int,
    covered: str,
    started: float,
) -> str:
    """One line of a table: the bounds, the truth, the error rate where there is a wrong
    verdict to count, the mean units and the estimate's coverage."""
    line = f"{text:>9} {truth:>6g} "
    if wrong:
        rate = sim.rate(wrong)
        line += f"{name:>5} {rate:7.4f} {se(rate, runs):6.4f} {nominal:7g} "
    else:
        line += f"{'':>5} {'':>7} {'':>6} {'':>7} "
    line += f"{sim.units.mean():>10.0f}  {covered}"
    return line + f" ({time.perf_counter() - started:.0f} s)"


def fishtest_side(
    sim: Simulation, truth: float, args: argparse.Namespace, e0: float, e1: float, fish: Any
) -> str:
    """fishtest's LLR against ours on the final counts, and its estimate on the same runs."""
    llrcalc, stat_util = fish
    picked = np.flatnonzero(sim.verdicts != INCONCLUSIVE)[: args.estimate_runs]
    gap, errors, covered = 0.0, [], []
    for i in picked:
        losses, draws, wins = counts(sim, i)
        theirs = llrcalc.LLR_logistic(e0, e1, [losses, draws, wins])
        gap = max(gap, abs(theirs - sprt.llr(wins, draws, losses, e0, e1)))
        found = stat_util.SPRT_elo(
            {"wins": wins, "losses": losses, "draws": draws},
            alpha=args.alpha,
            beta=args.beta,
            elo0=e0,
            elo1=e1,
            elo_model="logistic",
        )
        errors.append(found["elo"] - truth)
        covered.append(found["ci"][0] <= truth <= found["ci"][1])
    rate = float(np.mean(covered))
    return (
        f"fishtest: LLR within {gap:.1e} of ours; SPRT_elo {np.median(errors):+7.1f} "
        f"{np.mean(errors):+7.1f} {rate:6.1%}"
    )


def fishtest_rate(
    truth: float, wrong: int, args: argparse.Namespace, e0: float, e1: float, fish: Any
) -> float:
    """The error rate of fishtest's own update_SPRT, looked at after every unit."""
    _, stat_util = fish
    rng = np.random.default_rng(args.seed + 99)
    s = sprt.expected_score(truth)
    p = [1 - s - args.draw_rate / 2, args.draw_rate, s - args.draw_rate / 2]
    wrong_state = "accepted" if wrong == H1 else "rejected"
    hits = 0
    for _ in range(args.fishtest_runs):
        test = stat_util.SPRT(args.alpha, args.beta, e0, e1, "logistic")
        counts = [0, 0, 0]
        while not test["state"]:
            counts[int(rng.choice(3, p=p))] += 1
            stat_util.update_SPRT(
                {"losses": counts[0], "draws": counts[1], "wins": counts[2]}, test
            )
        hits += test["state"] == wrong_state
    return float(hits / args.fishtest_runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=4000, help="simulated tests per case")
    parser.add_argument("--estimate-runs", type=int, default=500, help="of them, estimated")
    parser.add_argument("--draw-rate", type=float, default=0.3)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument(
        "--bounds", nargs="*", default=[f"{a:g}/{b:g}" for a, b in BOUNDS], help="elo0/elo1"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fishtest", default=os.environ.get("FISHTEST_PATH"))
    parser.add_argument("--fishtest-runs", type=int, default=0)
    parser.add_argument("--five-runs", type=int, default=1000, help="five-outcome tests a case")
    args = parser.parse_args()
    fish = fishtest_modules(args.fishtest)
    print(
        f"{args.runs} runs per case, draw rate {args.draw_rate}, alpha {args.alpha}, "
        f"beta {args.beta}; estimates on {args.estimate_runs} runs of each; fishtest "
        + ("imported" if fish else "not importable (--fishtest DIR)")
    )
    print(
        f"{'bounds':>9} {'true':>6} {'error':>5} {'rate':>7} {'se':>6} {'nominal':>7} "
        f"{'mean units':>10}  {'median':>7} {'mean':>7} {'cover':>6}"
    )
    for text in args.bounds:
        e0, e1 = (float(x) for x in text.split("/"))
        if sprt.check_bounds(e0, e1):
            text += "*"  # refused by the format: simulated to show why
        cases = [
            (e0, "alpha", H1, args.alpha),
            ((e0 + e1) / 2, "", 0, 0.0),
            (e1, "beta", H0, args.beta),
        ]
        for i, (truth, name, wrong, nominal) in enumerate(cases):
            started = time.perf_counter()
            runs = args.runs if wrong else args.estimate_runs
            sim = simulate(
                truth, args.draw_rate, e0, e1, args.alpha, args.beta, runs, 10**7, args.seed + i
            )
            covered = coverage(sim, truth, args, e0, e1)
            print(row(text, truth, name, wrong, nominal, sim, runs, covered, started), flush=True)
            if fish:
                print(f"{'':>16}{fishtest_side(sim, truth, args, e0, e1, fish)}", flush=True)
                if wrong and args.fishtest_runs:
                    rate = fishtest_rate(truth, wrong, args, e0, e1, fish)
                    print(
                        f"{'':>16}fishtest update_SPRT after every unit: {name} {rate:.4f} "
                        f"(se {se(rate, args.fishtest_runs):.4f}, {args.fishtest_runs} runs)",
                        flush=True,
                    )
    if args.five_runs:
        five_outcomes(args)


if __name__ == "__main__":
    main()
