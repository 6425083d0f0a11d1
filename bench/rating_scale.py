"""The leaderboard's scale and intervals, simulated (docs/ratings.md, *The scale*).

Two questions, each on round robins played under the rating fit's own model (BayesElo's,
a 40-Elo draw margin), the units counted as the board counts them:

- **Bootstrap against normal intervals.** Bots of known strength (sd ``--spread`` Elo)
  play ``per_pairing`` units a pairing; the board is fitted as the API fits it, and
  each bot's 95% interval, the fit's normal one and the bootstrap's percentile one
  (``arena.ratings.bootstrap``, ``--resamples`` each), is checked against the truth:
  centred (each bot's rating from the bots' mean) and anchored at the first bot (each
  other's difference to it). Bots with a perfect record, which the board shows by a
  bound, are left out, and counted.
- **A specialist's overall.** A bot far stronger than the field in one game and average
  in two others (``--games 3``) plays round robins in each; its overall rating is
  compared with its true overall (the mean over games of its strength measured from
  the mean of the bots ranked overall), split by whether it won every pair of its
  game, whose estimate is then the prior's. The board marks those rows provisional.
"""

from __future__ import annotations

import argparse
import itertools
import math
import statistics
import time
from dataclasses import dataclass

import numpy as np

from arena.ratings.board import PROVISIONAL
from arena.ratings.bootstrap import basic, percentiles, samples
from arena.ratings.elo import PRIOR_SIGMA, Z95, Counts
from arena.ratings.leaderboard import scaled_counts
from arena.ratings.scale import Scale

DRAW_MARGIN = 40.0


def _expected(x: float) -> float:
    return float(1 / (1 + 10 ** (-x / 400)))


def play(truth: dict[str, float], per_pairing: int, rng: np.random.Generator) -> Counts:
    """A round robin's counts: ``per_pairing`` units a pairing, each won, drawn or lost
    with the model's chances."""
    counts: Counts = {}
    for a, b in itertools.combinations(sorted(truth), 2):
        delta = truth[a] - truth[b]
        win, loss = _expected(delta - DRAW_MARGIN), _expected(-delta - DRAW_MARGIN)
        w, d, lo = rng.multinomial(per_pairing, [win, 1 - win - loss, loss])
        counts[a, b] = (int(w), int(d), int(lo))
    return counts


@dataclass(frozen=True)
class Coverage:
    bots: int
    per_pairing: int
    intervals: int
    """Intervals checked (centred), over all trials."""
    normal: float
    percentile: float
    """The bootstrap's plain percentile interval."""
    bootstrap: float
    """The basic bootstrap interval, the board's (``arena.ratings.bootstrap.basic``)."""
    width: float
    """Mean bootstrap width over mean normal width."""
    anchored_normal: float
    anchored_bootstrap: float
    perfect: int
    """Ratings left out: their board shows a bound."""


def coverage(
    bots: int, per_pairing: int, trials: int, resamples: int, spread: float = 200.0, seed: int = 1
) -> Coverage:
    rng = np.random.default_rng([seed, bots, per_pairing])
    hits = dict.fromkeys(
        ("normal", "percentile", "bootstrap", "anchored_normal", "anchored_bootstrap"), 0
    )
    checked = anchored = perfect = 0
    widths: list[tuple[float, float]] = []
    anchor = "b00"
    for _ in range(trials):
        raw = {f"b{i:02d}": float(rng.normal(0, spread)) for i in range(bots)}
        centre = statistics.fmean(raw.values())
        truth = {name: value - centre for name, value in raw.items()}
        counts = play(truth, per_pairing, rng)
        board, _ = scaled_counts({"g": counts}, "g")
        # The board's own resampling (arena.ratings.bootstrap), read centred and anchored.
        found = samples(counts, [sorted(truth)], Scale(), rng, resamples)
        rows = {row.bot: row for row in board.rows}
        centred = percentiles(found, sorted(truth))
        reflected = basic(found, {b: row.elo for b, row in rows.items()})
        pinned = basic(
            [{b: s[b] - s[anchor] for b in s} for s in found],
            {b: row.elo - rows[anchor].elo for b, row in rows.items()},
        )
        for row in board.rows:
            if row.bound or not row.rank:
                perfect += 1
                continue
            checked += 1
            low, high = centred[row.bot]
            hits["normal"] += abs(row.elo - truth[row.bot]) <= row.elo_ci95
            hits["percentile"] += low <= truth[row.bot] <= high
            widths.append((high - low, 2 * row.elo_ci95))
            low, high = reflected[row.bot]
            hits["bootstrap"] += low <= truth[row.bot] <= high
            if row.bot == anchor or rows[anchor].bound:
                continue  # the anchor's own rating is the prior's: nothing to measure from
            anchored += 1
            true = truth[row.bot] - truth[anchor]
            low, high = pinned[row.bot]
            half = board.covariance  # the anchored board's interval is the difference's
            ci95 = Z95 * math.sqrt(
                half[row.bot][row.bot] + half[anchor][anchor] - 2 * half[row.bot][anchor]
            )
            hits["anchored_normal"] += abs(row.elo - rows[anchor].elo - true) <= ci95
            hits["anchored_bootstrap"] += low <= true <= high
    return Coverage(
        bots,
        per_pairing,
        checked,
        hits["normal"] / max(checked, 1),
        hits["percentile"] / max(checked, 1),
        hits["bootstrap"] / max(checked, 1),
        statistics.fmean(b for b, _ in widths) / statistics.fmean(n for _, n in widths),
        hits["anchored_normal"] / max(anchored, 1),
        hits["anchored_bootstrap"] / max(anchored, 1),
        perfect,
    )


@dataclass(frozen=True)
class Specialist:
    swept: int
    """Trials in which the specialist won every pair of its game."""
    trials: int
    error_swept: float
    """Mean of its overall less its true overall, in the trials it swept."""
    error_not_swept: float
    provisional_swept: float
    """Share of the swept trials in which its overall row was provisional."""
    provisional_not_swept: float


def specialist(
    trials: int,
    games: int = 3,
    field: int = 5,
    per_pairing: int = 6,
    edge: float = 600.0,
    spread: float = 150.0,
    prior_sd: float = PRIOR_SIGMA,
    seed: int = 2,
) -> Specialist:
    """``trials`` runs of ``games`` round robins: ``field`` bots of strength sd
    ``spread`` in each game, and ``spec``, ``edge`` Elo above the field's mean in the
    first game and at its mean in the others, ``per_pairing`` units a pairing."""
    rng = np.random.default_rng([seed, games, field, per_pairing, int(edge)])
    errors: dict[bool, list[float]] = {True: [], False: []}
    provisional: dict[bool, int] = {True: 0, False: 0}
    for _ in range(trials):
        truths, counts = {}, {}
        for g in range(games):
            raw = {f"f{i}": float(rng.normal(0, spread)) for i in range(field)}
            centre = statistics.fmean(raw.values())
            raw["spec"] = centre + (edge if g == 0 else 0.0)
            truths[f"g{g}"] = raw
            counts[f"g{g}"] = play(raw, per_pairing, rng)
        board, _ = scaled_counts(counts, "", Scale(prior_sd=prior_sd))
        row = next(r for r in board.rows if r.bot == "spec")
        ranked_bots = [r.bot for r in board.rows if r.rank]
        true = statistics.fmean(
            t["spec"] - statistics.fmean(t[b] for b in ranked_bots) for t in truths.values()
        )
        _, d, lo = (sum(x) for x in zip(*(_record(counts["g0"], "spec")), strict=True))
        swept = lo == 0 and d == 0
        errors[swept].append(row.elo - true)
        provisional[swept] += row.status == PROVISIONAL
    return Specialist(
        len(errors[True]),
        trials,
        statistics.fmean(errors[True]) if errors[True] else float("nan"),
        statistics.fmean(errors[False]) if errors[False] else float("nan"),
        provisional[True] / max(len(errors[True]), 1),
        provisional[False] / max(len(errors[False]), 1),
    )


def _record(counts: Counts, bot: str) -> list[tuple[int, int, int]]:
    """``bot``'s (won, drawn, lost) in each of its pairings."""
    return [
        (w, d, lo) if a == bot else (lo, d, w)
        for (a, b), (w, d, lo) in counts.items()
        if bot in (a, b)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=100, help="round robins per row")
    parser.add_argument("--resamples", type=int, default=200, help="bootstrap resamples")
    parser.add_argument(
        "--shapes", default="4x4,4x12,8x3,8x8", help="bots x units a pairing, for coverage"
    )
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    start = time.perf_counter()
    print(
        f"A specialist (+600 in one game, average in two; 5 others; 6 units a pairing), "
        f"{args.trials * 2} runs: its overall less its true overall"
    )
    print("{:>8} {:>12} {:>10} {:>14} {:>6} {:>14}".format(
        "prior sd", "swept", "error", "error no sweep", "prov", "prov no sweep"
    ))  # fmt: skip
    for prior_sd in (PRIOR_SIGMA, 400.0):
        s = specialist(args.trials * 2, prior_sd=prior_sd, seed=args.seed + 1)
        print(
            f"{prior_sd:>8g} {s.swept:>5} of {s.trials:<4} {s.error_swept:>+10.1f} "
            f"{s.error_not_swept:>+14.1f} {s.provisional_swept:>6.2f} "
            f"{s.provisional_not_swept:>14.2f}",
            flush=True,
        )
    print(
        f"\nCoverage of 95% intervals, {args.trials} round robins a row, true sd 200, "
        f"{args.resamples} resamples; pct: plain percentiles, basic: the board's"
    )
    header = ["bots", "pairs", "checked", "normal", "pct", "basic", "width"]
    header += ["anch nrm", "anch basic", "perfect"]
    print("{:>4} {:>5} {:>7} {:>6} {:>6} {:>6} {:>6} {:>8} {:>10} {:>7}".format(*header))
    for shape in args.shapes.split(","):
        bots, per_pairing = (int(x) for x in shape.split("x"))
        c = coverage(bots, per_pairing, args.trials, args.resamples, seed=args.seed)
        print(
            f"{c.bots:>4} {(bots - 1) * per_pairing:>5} {c.intervals:>7} {c.normal:>6.3f} "
            f"{c.percentile:>6.3f} {c.bootstrap:>6.3f} {c.width:>6.2f} "
            f"{c.anchored_normal:>8.3f} {c.anchored_bootstrap:>10.3f} {c.perfect:>7}",
            flush=True,
        )
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
