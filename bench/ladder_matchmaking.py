"""Does the ladder's matchmaking rank a field better than simpler schedules, and does it
starve anyone? The real ``arena.tournament.formats.ladder.Ladder``, run in process as
the scheduler drives it (``next`` to refill a window of units in flight, ``absorb`` as
results come back, in random order), against two baselines on the same fields in the
same run:

- *random*: each unit a pairing drawn uniformly;
- *cycle*: a balanced cycle, the round robin's rounds (circle method, the bots in a
  random order) one pairing after the other, over and over.

Each field has 16 bots (``--bots``) with true Elo ratings; each unit's outcome (a
duplicate pair: win, draw or loss) is drawn from the fit's own model
(``arena.ratings.elo``) at the true ratings, with a draw margin at which equal bots
draw ``--draw-rate`` of their units. At each budget of rated units the results are
fitted (``fit_counts``, as the leaderboard does) and scored by Spearman's rank
correlation with the truth; each trial uses a seed of its own (the truth's order, the
ladder's master seed, the outcomes), and the figures are means over trials with their
standard errors, the ladder's difference from the cycle paired trial by trial.

The table: each strategy's rho; the ladder's difference from the cycle; *ratio*, the
ladder's mean rho over the cycle's, and *before*, the same without the floor. Units per
bot: *share* is the ladder's units handed out (rated or in flight: what matchmaking
gave) to the bot of each true rank, averaged over trials, over the median rank's, the
lowest rank's printed (the issue's measure; *before*: without the floor); *worst* is
the mean over trials of that trial's fewest units over its median, the stricter figure
(and its *before*).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from arena.ratings.duplicate import DuplicateResult
from arena.ratings.elo import Counts, fit_counts
from arena.tournament.formats import Field, Played
from arena.tournament.formats.ladder import Ladder
from arena.tournament.schedule import ScheduledMatch

GAME = "g"
STRATEGIES = ("ladder", "no floor", "random", "cycle")
"""The ladder as it is; the ladder without its floor (``Ladder.floor`` 0, the
information gain alone: before the floor); the two baselines."""
LADDERS = ("ladder", "no floor")


def fields(bots: int) -> dict[str, Callable[[random.Random], list[float]]]:
    """Each field's true ratings, drawn afresh for a trial where it is random."""
    half = bots // 2

    def even(spread: float) -> Callable[[random.Random], list[float]]:
        return lambda rng: list(np.linspace(-spread / 2, spread / 2, bots))

    def outliers(rng: random.Random) -> list[float]:
        # Two far bots around a close pack: the far ones tell little per unit.
        return [-600.0, *np.linspace(-100, 100, bots - 2), 600.0]

    def normal(rng: random.Random) -> list[float]:
        return [rng.gauss(0, 200) for _ in range(bots)]

    def tiers(rng: random.Random) -> list[float]:
        # Two close packs 500 Elo apart: every pairing across them is far.
        return [*np.linspace(-300, -200, half), *np.linspace(200, 300, bots - half)]

    return {
        "even 400": even(400),
        "even 1000": even(1000),
        "normal sd 200": normal,
        "tiers 500 apart": tiers,
        "outliers ±600": outliers,
    }


def draw_margin(draw_rate: float) -> float:
    """The model's draw margin at which two equal bots draw ``draw_rate`` of units."""
    return 400 * math.log10((1 + draw_rate) / (1 - draw_rate))


def outcome(difference: float, margin: float, rng: random.Random) -> float:
    """One unit's score for the bot ``difference`` Elo above its opponent."""
    win = 1 / (1 + 10 ** (-(difference - margin) / 400))
    loss = 1 / (1 + 10 ** (-(-difference - margin) / 400))
    roll = rng.random()
    return 1.0 if roll < win else 0.0 if roll < win + loss else 0.5


def ranks(values: Sequence[float]) -> np.ndarray:
    """Ranks from 0, ties (bots the fit cannot tell apart yet) sharing their mean."""
    x = np.asarray(values, dtype=float)
    order = np.argsort(x, kind="stable")
    result = np.empty(len(x))
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and x[order[j + 1]] == x[order[i]]:
            j += 1
        result[order[i : j + 1]] = (i + j) / 2
        i = j + 1
    return result


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    rx, ry = ranks(x), ranks(y)
    if rx.std() == 0 or ry.std() == 0:
        return 0.0
    return float(np.corrcoef(rx, ry)[0, 1])


@dataclass
class Trial:
    """One strategy on one field: rated units so far, scored at each budget."""

    names: list[str]
    truth: dict[str, float]
    budgets: Sequence[int]
    counts: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    rated: int = 0
    rho: dict[int, float] = field(default_factory=dict)
    units: dict[int, dict[str, int]] = field(default_factory=dict)
    handed: dict[str, int] | None = None
    """The ladder's units handed out, each bot's (rated or in flight)."""

    def add(self, a: str, b: str, score: float) -> None:
        """One rated unit of ``a`` against ``b`` (``score`` from ``a``'s side)."""
        lo, hi = sorted((a, b))
        row = self.counts.setdefault((lo, hi), [0, 0, 0])
        row[{1.0: 0, 0.5: 1, 0.0: 2}[score if lo == a else 1 - score]] += 1
        self.rated += 1
        if self.rated in self.budgets:
            self.score()

    def score(self) -> None:
        counts: Counts = {k: (r[0], r[1], r[2]) for k, r in self.counts.items()}
        elo = fit_counts(counts, self.names).by_player()
        self.rho[self.rated] = spearman(
            [elo[n].elo for n in self.names], [self.truth[n] for n in self.names]
        )
        played = dict.fromkeys(self.names, 0)
        for (a, b), row in self.counts.items():
            played[a] += sum(row)
            played[b] += sum(row)
        self.units[self.rated] = dict(self.handed) if self.handed is not None else played

    def done(self) -> bool:
        return self.rated >= max(self.budgets)


def cycle(names: Sequence[str]) -> Iterator[tuple[str, str]]:
    """The round robin's rounds (circle method), one pairing after another, forever."""
    seats = list(names) + ([] if len(names) % 2 == 0 else [""])
    n = len(seats)
    while True:
        ring = seats[:]
        for _ in range(n - 1):
            for i in range(n // 2):
                a, b = ring[i], ring[n - 1 - i]
                if a and b:
                    yield a, b
            ring = [ring[0], ring[-1], *ring[1:-1]]


def run_baseline(trial: Trial, pairs: Iterator[tuple[str, str]], margin: float, seed: int) -> None:
    rng = random.Random(f"outcomes {seed}")
    while not trial.done():
        a, b = next(pairs)
        trial.add(a, b, outcome(trial.truth[a] - trial.truth[b], margin, rng))


def uniform(names: Sequence[str], seed: int) -> Iterator[tuple[str, str]]:
    rng = random.Random(f"random {seed}")
    while True:
        a, b = rng.sample(list(names), 2)
        yield a, b


def run_ladder(trial: Trial, window: int, margin: float, seed: int, floor: bool) -> None:
    """The scheduler's loop: refill the window, then some of the units out come back
    (both halves, in random order), as the workers would finish them."""
    names = tuple(trial.names)
    ladder = Ladder(Field("t", names, (GAME,), dict.fromkeys(names, (GAME,)), 1, seed, True), {})
    if not floor:
        ladder.floor = 0.0
    rng = random.Random(f"outcomes {seed}")
    state = ladder.start()
    trial.handed = dict.fromkeys(names, 0)
    out: dict[str, list[ScheduledMatch]] = {}
    while not trial.done():
        room = 2 * (window - len(out))
        state, matches = ladder.next(state, room)
        for m in matches:
            out.setdefault(m.pair_key, []).append(m)
        for m in matches[::2]:
            for e in m.entries:
                trial.handed[e] += 1
        keys = list(out)
        rng.shuffle(keys)
        played: list[Played] = []
        for key in keys[: rng.randint(1, len(keys))]:
            first, second = out.pop(key)
            a, b = first.entries
            score = outcome(trial.truth[a] - trial.truth[b], margin, rng)
            margin_a = {1.0: 1, 0.5: 0, 0.0: -1}[score]
            played += [
                Played(first.match_id, DuplicateResult(key, a, b, margin_a)),
                Played(second.match_id, DuplicateResult(key, b, a, 0)),
            ]
            trial.add(a, b, score)
            if trial.done():
                break
        state = ladder.absorb(state, played)


@dataclass
class Tally:
    """Per strategy and budget, each trial's rho; the ladder's units by true rank."""

    rho: dict[tuple[str, int], list[float]] = field(default_factory=dict)
    by_rank: dict[tuple[str, int], list[list[int]]] = field(default_factory=dict)
    worst: dict[tuple[str, int], list[float]] = field(default_factory=dict)


def measure(
    make_truth: Callable[[random.Random], list[float]],
    bots: int,
    budgets: Sequence[int],
    trials: int,
    window: int,
    margin: float,
    first_seed: int,
) -> Tally:
    tally = Tally()
    for t in range(trials):
        seed = first_seed + t
        rng = random.Random(f"truth {seed}")
        names = [f"bot{i:02d}" for i in range(bots)]
        values = make_truth(rng)
        rng.shuffle(values)  # no strength in the names' order
        truth = dict(zip(names, values, strict=True))
        runs = {s: Trial(names, truth, budgets) for s in STRATEGIES}
        run_ladder(runs["ladder"], window, margin, seed, floor=True)
        run_ladder(runs["no floor"], window, margin, seed, floor=False)
        run_baseline(runs["random"], uniform(names, seed), margin, seed)
        shuffled = names[:]
        random.Random(f"cycle {seed}").shuffle(shuffled)
        run_baseline(runs["cycle"], cycle(shuffled), margin, seed)
        by_strength = sorted(names, key=lambda n: truth[n])
        for budget in budgets:
            for s in STRATEGIES:
                tally.rho.setdefault((s, budget), []).append(runs[s].rho[budget])
            for s in LADDERS:
                units = runs[s].units[budget]
                tally.by_rank.setdefault((s, budget), []).append([units[n] for n in by_strength])
                median = statistics.median(units.values())
                tally.worst.setdefault((s, budget), []).append(min(units.values()) / median)
    return tally


def mean_se(values: Sequence[float]) -> tuple[float, float]:
    return statistics.fmean(values), statistics.stdev(values) / math.sqrt(len(values))


def share(tally: Tally, strategy: str, budget: int) -> tuple[float, float, list[float]]:
    """The lowest true rank's mean units over the median rank's, the mean of each trial's
    fewest over its median, and every rank's share (weakest first)."""
    per_rank = np.mean(np.array(tally.by_rank[strategy, budget], dtype=float), axis=0)
    shares = [float(x) for x in per_rank / np.median(per_rank)]
    return min(shares), statistics.fmean(tally.worst[strategy, budget]), shares


def report(name: str, tally: Tally, budgets: Sequence[int]) -> None:
    print(f"\n{name}")
    print(
        f"{'units':>5} {'ladder':>13} {'no floor':>13} {'random':>13} {'cycle':>13}"
        f" {'ladder-cycle':>14} {'ratio':>5} {'before':>6} {'share':>5} {'before':>6}"
        f" {'worst':>5} {'before':>6}"
    )
    for budget in budgets:
        cells = []
        for s in STRATEGIES:
            m, se = mean_se(tally.rho[s, budget])
            cells.append(f"{m:.3f} ± {se:.3f}")
        pairs = zip(tally.rho["ladder", budget], tally.rho["cycle", budget], strict=True)
        d, dse = mean_se([a - c for a, c in pairs])
        cycle_mean = statistics.fmean(tally.rho["cycle", budget])
        ratios = [statistics.fmean(tally.rho[s, budget]) / cycle_mean for s in LADDERS]
        lowest, worst, _ = share(tally, "ladder", budget)
        lowest_before, worst_before, _ = share(tally, "no floor", budget)
        print(
            f"{budget:>5} {cells[0]:>13} {cells[1]:>13} {cells[2]:>13} {cells[3]:>13} "
            f"{d:>+6.3f} ± {dse:.3f} {ratios[0]:>5.3f} {ratios[1]:>6.3f} {lowest:>5.2f} "
            f"{lowest_before:>6.2f} {worst:>5.2f} {worst_before:>6.2f}"
        )
    for s in LADDERS:
        shares = " ".join(f"{x:.2f}" for x in share(tally, s, budgets[-1])[2])
        print(
            f"{s}: units by true rank (weakest first) at {budgets[-1]}, over the median: {shares}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=16)
    parser.add_argument("--budgets", default="30,60,120,240,480", help="rated units")
    parser.add_argument("--trials", type=int, default=10, help="per field")
    parser.add_argument("--window", type=int, default=4, help="units in flight")
    parser.add_argument("--draw-rate", type=float, default=0.2, help="of units between equals")
    parser.add_argument("--fields", default="", help="comma-separated names (default: all)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--full", action="store_true", help="60 trials per field (docs/formats.md)")
    args = parser.parse_args()
    budgets = sorted(int(b) for b in args.budgets.split(","))
    trials = 60 if args.full else args.trials
    margin = draw_margin(args.draw_rate)
    chosen = fields(args.bots)
    if args.fields:
        chosen = {k: v for k, v in chosen.items() if k in args.fields.split(",")}
    print(
        f"{args.bots} bots, window {args.window} units, draws {args.draw_rate:.0%} between "
        f"equals (margin {margin:.0f} Elo), {trials} trials per field; Spearman's rho of the "
        f"fit against the truth, mean ± standard error; ratio = ladder / cycle"
    )
    started = time.perf_counter()
    for name, make in chosen.items():
        tally = measure(make, args.bots, budgets, trials, args.window, margin, args.seed)
        report(name, tally, budgets)
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
