"""How often does the collusion report (``arena.ratings.collusion``) flag an honest
tournament, and how often does it catch a thrower? Simulated round robins between
entries of known strength under the rating fit's own model (BayesElo's, a 40-Elo draw
margin: about 11% draws between equals, near the 9.4% of duplicate pairs that
``bench.rating_units`` measured), each pairing a number of rated outcomes (duplicate
pairs, or matches rated alone: one win, draw or loss each, as the arena stores them).

False alarm: the share of honest tournaments in which at least one pair reaches the
threshold. Detection: the share of tournaments with a thrower T and its ally A (both
drawn at random from the field) in which the pair (T, A) reaches it with T below
prediction. Throws: T loses every outcome against A (what playing at random against a
rule-based bot does: ``bench.duplicate_strength`` saw random lose 100 of 100 pairs), or
T plays 400 or 200 Elo weaker against A only. Honest elsewhere in every case.

Baseline in the same run: what the false-alarm rate would be if each pair's z were
exactly normal and the pairs independent, ``1 - (1 - 2 Phi(-t)) ** pairs``. Beside the
report's leave-pair-out z, the in-sample z (the pair predicted from the fit of the whole
table, its own outcomes included), at the threshold giving it the same false alarms:
what leaving the pair out buys. The ally's gain: its fitted Elo with the throw less its
fitted Elo from the same draws without it (the issue's +132). And, over a few whole
reports of thrower tournaments, whether a pair other than (T, A) is flagged, with the
report leaving flagged pairs out of the other predictions and without.

The rates read each pair's z with only its own outcomes left out (the report's first
round): whether an honest report flags anything, and whether it flags (T, A), is
decided there.
"""

from __future__ import annotations

import argparse
import itertools
import math
import multiprocessing
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from arena.ratings.collusion import (
    FLAG_Z,
    MIN_OUTCOMES,
    collusion_report_counts,
    deviation,
    pair_report,
)
from arena.ratings.elo import Counts, fit_counts

DRAW_MARGIN = 40.0
SPREAD = 200.0
"""Sd of the true Elo, as in ``bench.rating_bias``."""
THRESHOLDS = (2.5, 2.75, 3.0, 3.25, 3.5, 3.75, 4.0)
LOSES_ALL = "loses all"
COLLATERAL = "collateral"
THROWS = (LOSES_ALL, "-400", "-200")
SHAPES = "8x4,8x8,8x16,4x12"
"""Entries x outcomes a pairing: 8 entries at 4 to 16 duplicate pairs a pairing (224 to
896 matches), and the issue's round robin, 4 entries and 144 matches as 12 duplicate
pairs a pairing."""
CHUNK = 25
MATCHED = 0.05


@dataclass(frozen=True)
class Job:
    entries: int
    per_pairing: int
    throw: str | None
    chunk: int
    size: int
    seed: int


@dataclass(frozen=True)
class Trial:
    worst: float
    """Honest: the largest leave-pair-out |z| in the tournament. Thrower: the pair
    (T, A)'s z, signed so that T below prediction is positive."""
    in_sample: float
    """The same from the whole table's fit."""
    gain: float
    """Thrower: the ally's fitted Elo with the throw less without it."""
    stronger: bool
    """Thrower: T is truly the stronger of the two, so the throw costs it most."""
    plain: bool = False
    """Collateral: a pair other than (T, A) reaches FLAG_Z when each pair is predicted
    without its own outcomes only."""
    greedy: bool = False
    """Collateral: the report (flagged pairs left out of every prediction) flags a pair
    other than (T, A)."""


def _f(x: float | np.ndarray) -> float | np.ndarray:
    return 1 / (1 + 10 ** (-np.asarray(x) / 400))


def _record(rng: np.random.Generator, delta: float, n: int) -> tuple[int, int, int]:
    p_win, p_loss = float(_f(delta - DRAW_MARGIN)), float(_f(-delta - DRAW_MARGIN))
    w, d, lo = rng.multinomial(n, [p_win, max(1 - p_win - p_loss, 0.0), p_loss])
    return int(w), int(d), int(lo)


def tournament(
    rng: np.random.Generator, entries: int, per_pairing: int
) -> tuple[list[str], np.ndarray, Counts]:
    names = [f"e{i:02d}" for i in range(entries)]
    truth = rng.normal(0, SPREAD, entries)
    counts = {
        (names[i], names[j]): _record(rng, truth[i] - truth[j], per_pairing)
        for i, j in itertools.combinations(range(entries), 2)
    }
    return names, truth, counts


def run(job: Job) -> list[Trial]:
    rng = np.random.default_rng([job.seed, job.entries, job.per_pairing, job.chunk])
    trials = []
    for _ in range(job.size):
        names, truth, counts = tournament(rng, job.entries, job.per_pairing)
        if job.throw is None:
            # An infinite threshold: no flag, so one round, every pair left out alone.
            report = collusion_report_counts(counts, flag_z=math.inf, min_outcomes=0)
            full = fit_counts(counts)
            in_sample = max(abs(deviation(full, a, b, r)[2]) for (a, b), r in counts.items())
            trials.append(Trial(abs(report[0].z or 0.0), in_sample, 0.0, False))
            continue
        t, a = (int(k) for k in rng.choice(job.entries, 2, replace=False))
        n = job.per_pairing
        if job.throw in (LOSES_ALL, COLLATERAL):
            lost = (0, 0, n)  # T's record against A
        else:
            lost = _record(rng, truth[t] - truth[a] + float(job.throw), n)
        pair = (names[min(t, a)], names[max(t, a)])
        thrown = dict(counts)
        thrown[pair] = lost if t < a else lost[::-1]
        if job.throw == COLLATERAL:
            plain = collusion_report_counts(thrown, flag_z=math.inf)
            report = collusion_report_counts(thrown)
            trials.append(
                Trial(
                    0.0,
                    0.0,
                    0.0,
                    False,
                    any(
                        abs(r.z or 0.0) >= FLAG_Z and r.outcomes >= MIN_OUTCOMES
                        for r in plain
                        if (r.a, r.b) != pair
                    ),
                    any(r.flagged for r in report if (r.a, r.b) != pair),
                )
            )
            continue
        row = pair_report(thrown, *pair)
        sign = -1.0 if t < a else 1.0  # T below prediction: positive
        honest, cheated = fit_counts(counts), fit_counts(thrown)
        gain = cheated.by_player()[names[a]].elo - honest.by_player()[names[a]].elo
        trials.append(
            Trial(
                sign * (row.z or 0.0),
                sign * deviation(cheated, *pair, thrown[pair])[2],
                gain,
                bool(truth[t] > truth[a]),
            )
        )
    return trials


def normal_false_alarm(threshold: float, pairs: int) -> float:
    per_pair = math.erfc(threshold / math.sqrt(2))
    return 1 - (1 - per_pair) ** pairs


def _threshold_for(values: Sequence[float], rate: float) -> float:
    """The smallest threshold that at most ``rate`` of ``values`` reach."""
    ordered = sorted(values, reverse=True)
    k = int(rate * len(ordered))
    return ordered[k] + 1e-9 if k < len(ordered) else 0.0


def _rate(values: Sequence[float], threshold: float) -> float:
    return float(np.mean([v >= threshold for v in values])) if values else math.nan


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=300, help="honest tournaments a shape")
    parser.add_argument("--thrown", type=int, default=200, help="thrower tournaments a case")
    parser.add_argument(
        "--collateral", type=int, default=30, help="thrower tournaments a shape, whole reports"
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--shapes", default=SHAPES, help="entries x outcomes a pairing (16x8: 0.25 s a trial)"
    )
    args = parser.parse_args()
    shapes = [tuple(int(k) for k in shape.split("x")) for shape in args.shapes.split(",")]
    shapes = [(e, n) for e, n in shapes if e >= 3]  # two entries: nothing else predicts
    print(
        f"{args.trials} honest and {args.thrown} thrower tournaments per case; true Elo sd "
        f"{SPREAD:g}, draw margin {DRAW_MARGIN:g}; FLAG_Z {FLAG_Z:g}, MIN_OUTCOMES "
        f"{MIN_OUTCOMES} (rows below it are shown without the minimum)"
    )
    jobs = []
    for entries, per_pairing in shapes:
        cases = [(None, args.trials)] + [(t, args.thrown) for t in THROWS]
        if per_pairing >= MIN_OUTCOMES:
            cases.append((COLLATERAL, args.collateral))
        for throw, total in cases:
            for chunk, start in enumerate(range(0, total, CHUNK)):
                size = min(CHUNK, total - start)
                jobs.append(Job(entries, per_pairing, throw, chunk, size, args.seed))
    started = time.perf_counter()
    with multiprocessing.Pool(args.workers) as pool:
        done = pool.map(run, jobs, chunksize=1)
    results: dict[tuple[int, int, str | None], list[Trial]] = {}
    for job, trials in zip(jobs, done, strict=True):
        results.setdefault((job.entries, job.per_pairing, job.throw), []).extend(trials)

    print("\nFalse alarms: share of honest tournaments with a pair at |z| >= threshold")
    print(f"{'entries x outcomes':>18}  " + " ".join(f"{t:>6g}" for t in THRESHOLDS))
    for entries, per_pairing in shapes:
        worst = [trial.worst for trial in results[entries, per_pairing, None]]
        pairs = entries * (entries - 1) // 2
        measured = " ".join(f"{_rate(worst, t):>6.3f}" for t in THRESHOLDS)
        normal = " ".join(f"{normal_false_alarm(t, pairs):>6.3f}" for t in THRESHOLDS)
        print(f"{entries:>8} x {per_pairing:<7}  {measured}")
        print(f"{'normal':>18}  {normal}")

    print("\nDetection: share of thrower tournaments flagging (T, A) with T below")
    header = f"{'entries x outcomes':>18} {'throw':>9}  "
    print(header + " ".join(f"{t:>6g}" for t in THRESHOLDS) + "  ally's gain (median)")
    for entries, per_pairing in shapes:
        for throw in THROWS:
            found = results[entries, per_pairing, throw]
            rates = " ".join(f"{np.mean([f.worst >= t for f in found]):>6.3f}" for t in THRESHOLDS)
            gain = statistics.median(f.gain for f in found)
            print(f"{entries:>8} x {per_pairing:<7} {throw:>9}  {rates}  {gain:+.0f} Elo")

    print(f"\nAt FLAG_Z = {FLAG_Z:g}, pairs of at least MIN_OUTCOMES = {MIN_OUTCOMES} outcomes:")
    for entries, per_pairing in shapes:
        if per_pairing < MIN_OUTCOMES:
            continue
        honest = results[entries, per_pairing, None]
        alarm = _rate([h.worst for h in honest], FLAG_Z)
        se = math.sqrt(alarm * (1 - alarm) / len(honest))
        caught = []
        for throw in THROWS:
            found = results[entries, per_pairing, throw]
            stronger = [f.worst for f in found if f.stronger]
            caught.append(
                f"{_rate([f.worst for f in found], FLAG_Z):.2f} ({throw}; "
                f"{_rate(stronger, FLAG_Z):.2f} when T is the stronger)"
            )
        print(
            f"  {entries} x {per_pairing}: false alarms {alarm:.3f} (se {se:.3f}); "
            f"detected {', '.join(caught)}"
        )
        collateral = results.get((entries, per_pairing, COLLATERAL), [])
        if not collateral:
            continue
        print(
            f"    with T losing all to A, another pair flagged in "
            f"{np.mean([c.greedy for c in collateral]):.3f} of {len(collateral)} reports "
            f"({np.mean([c.plain for c in collateral]):.3f} if flagged pairs were not left "
            "out of the other predictions)"
        )
    print(
        f"\nLeave-pair-out against in-sample z, each at the threshold giving "
        f"{MATCHED:.0%} false alarms, detection of '{LOSES_ALL}':"
    )
    for entries, per_pairing in shapes:
        honest = results[entries, per_pairing, None]
        found = results[entries, per_pairing, LOSES_ALL]
        out = _threshold_for([h.worst for h in honest], MATCHED)
        within = _threshold_for([h.in_sample for h in honest], MATCHED)
        caught_out = _rate([f.worst for f in found], out)
        caught_within = _rate([f.in_sample for f in found], within)
        print(
            f"  {entries} x {per_pairing}: leave-pair-out {caught_out:.2f} (at {out:.2f}), "
            f"in-sample {caught_within:.2f} (at {within:.2f})"
        )
    print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
