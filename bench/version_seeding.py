"""Does matching a new version as its predecessor's rating says place it sooner? The
ladder's own matchmaking (``arena.tournament.formats.ladder``), run in process on a field
of measured versions, with and without seeding (``Ladder.seed_sd`` 0 is without), in the
same run, on the same seeds.

The field: ``--field`` versions of other bots, true ratings spread over ±``--spread`` Elo,
``--measured`` outcomes per pairing, and ``top@v1``, measured as well against each of
them, at ``+400`` (a strong bot) or ``-400`` (a weak one). Then ``top@v2`` replaces it
(a competition with one active version each): its true rating is its predecessor's
plus a jump, drawn from N(0, ``--near`` Elo) ("near"), or exactly +600 or -600 (a version
unlike its predecessor, where seeding must do no harm). Units are handed out a window at
a time (``--window`` units in flight) with the competition's placement burst
(``PLACEMENT_OUTCOMES``), each resolved at the true ratings by the fit's own model.

Measured per case, the mean (± its standard error) over ``--trials`` seeds: the units
the new version played until it is provisional (the board, a fit of every count, shows
its 95% interval within ``--ci`` Elo, as ``bench/competition_placement.py`` defines it),
and how far (true Elo) its opponents in its first ``--first`` units were from it: the
closer, the more each unit tells. The ratio is seeded / unseeded. Other distances
(``--sds``) and seeding until a version has more results of its own (``--belows``: 20)
run too, to choose them.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
from collections.abc import Sequence

from arena.competition.ladder import PLACEMENT_OUTCOMES
from arena.ratings.elo import K, fit_counts
from arena.tournament import formats
from arena.tournament.formats.ladder import SEED_SD, SEEDED_BELOW, Ladder

GAME = "bid-euchre"
Counts = dict[str, dict[str, list[int]]]


def trial(
    base: float,
    jump: float | None,
    sd: float,
    below: int,
    args: argparse.Namespace,
    seed: int,
) -> tuple[int, float]:
    """(units ``top@v2`` played until provisional, mean true distance to its first
    opponents) for one seed; ``sd`` 0: unseeded."""
    rng = random.Random(seed)
    others = [f"b{i}@v1" for i in range(args.field)]
    true = {n: rng.uniform(-args.spread, args.spread) for n in others} | {"top@v1": base}
    true["top@v2"] = base + (rng.gauss(0, args.near) if jump is None else jump)
    rng = random.Random(seed * 7919 + 1)  # the same results whatever the jump's draw took
    counts: Counts = {}
    measured = sorted([*others, "top@v1"])
    for i, a in enumerate(measured):
        for b in measured[i + 1 :]:
            counts.setdefault(a, {})[b] = _outcomes(true[a] - true[b], args.measured, rng)
    state: dict[str, object] = {"units": 0, "counts": {GAME: counts}, "out": {}}
    state, _ = _ladder(measured, seed, sd, below).next(state, 0)  # top@v1 seen joining
    entries = sorted([*others, "top@v2"])
    ladder = _ladder(entries, seed, sd, below)
    mine: list[str] = []
    total = 0
    provisional = False
    while total < args.cap and not provisional:
        state, matches = ladder.next(state, 2 * args.window)
        for a, b in (m.entries for m in matches[::2]):
            lo, hi = sorted((a, b))
            row = counts.setdefault(lo, {}).setdefault(hi, [0, 0, 0])
            w, d, loss = _outcomes(true[lo] - true[hi], 1, rng)
            row[0], row[1], row[2] = row[0] + w, row[1] + d, row[2] + loss
            total += 1
            if "top@v2" not in (a, b):
                continue
            mine.append(b if a == "top@v2" else a)
            flat = {(x, y): (r[0], r[1], r[2]) for x, by in counts.items() for y, r in by.items()}
            if fit_counts(flat, entries).by_player()["top@v2"].ci95 <= args.ci:
                provisional = True  # the board would show it so once this result is in
                break
        state = {**state, "out": {}}
    first = mine[: args.first]
    return len(mine), statistics.fmean(abs(true[o] - true["top@v2"]) for o in first)


def _ladder(entries: Sequence[str], seed: int, sd: float, below: int) -> Ladder:
    field = formats.Field(
        "t000000000000", tuple(entries), (GAME,), dict.fromkeys(entries, (GAME,)), 1, seed, True
    )
    ladder = Ladder(field, {"placement": PLACEMENT_OUTCOMES})
    ladder.seed_sd, ladder.seeded_below = sd, below
    return ladder


def _mean(values: Sequence[float]) -> tuple[float, float]:
    """The mean and its standard error."""
    return statistics.fmean(values), statistics.stdev(values) / math.sqrt(len(values))


def _text(found: tuple[tuple[float, float], tuple[float, float]]) -> str:
    (units, units_se), (far, far_se) = found
    return f"{units:.1f} ± {units_se:.1f} units, far {far:.0f} ± {far_se:.0f}"


def _outcomes(delta: float, n: int, rng: random.Random) -> list[int]:
    """``n`` outcomes at Elo difference ``delta``, as [wins, draws, losses]."""
    p = 1 / (1 + math.exp(-K * delta))
    wins = sum(rng.random() < p for _ in range(n))
    return [wins, 0, n - wins]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--field", type=int, default=15, help="other bots' versions, measured")
    parser.add_argument("--spread", type=float, default=500.0, help="their true ratings: ±this")
    parser.add_argument("--cap", type=int, default=600, help="units handed out at most")
    parser.add_argument("--measured", type=int, default=20, help="outcomes per pairing")
    parser.add_argument("--window", type=int, default=4, help="units in flight")
    parser.add_argument("--ci", type=float, default=250.0, help="provisional: 95%% half-width")
    parser.add_argument("--near", type=float, default=100.0, help="sd of a near version's jump")
    parser.add_argument("--first", type=int, default=8, help="first units whose opponents count")
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--sds", type=float, nargs="*", default=[150.0, 250.0, 400.0])
    parser.add_argument("--belows", type=int, nargs="*", default=[1, 20])
    args = parser.parse_args()
    print(
        f"{args.field} measured versions (±{args.spread:g} Elo) + top@v1, then top@v2 in its "
        "place; "
        f"{GAME}, window {args.window} units, placement {PLACEMENT_OUTCOMES}, provisional = "
        f"95% interval within ±{args.ci:g} Elo; means ± se over {args.trials} seeds"
    )
    print(
        f"chosen: sd {SEED_SD:g} Elo, seeded with fewer than {SEEDED_BELOW} rated outcomes; "
        "units: top@v2's until provisional; far: mean |true gap| to its first "
        f"{args.first} opponents"
    )
    variants = [(0.0, 0), (SEED_SD, SEEDED_BELOW)]
    variants += [(sd, below) for sd in args.sds for below in args.belows]
    variants = list(dict.fromkeys(variants))
    ratios: dict[str, float] = {}
    for base, name in ((400.0, "strong"), (-400.0, "weak")):
        cases: list[tuple[float | None, str]] = [(None, f"near (N(0, {args.near:g}))")]
        cases += [(600.0, "+600"), (-600.0, "-600")]
        for jump, how in cases:
            found = {}
            for sd, below in variants:
                runs = [trial(base, jump, sd, below, args, s) for s in range(args.trials)]
                found[sd, below] = _mean([r[0] for r in runs]), _mean([r[1] for r in runs])
            off = found[0.0, 0]
            line = f"{name} {base:+.0f}, jump {how}: unseeded {_text(off)}"
            for (sd, below), (units, far) in found.items():
                if sd:
                    line += f"; sd {sd:g} below {below}: {_text((units, far))}"
                    line += f" ({units[0] / off[0][0]:.2f})"
            print(line)
            chosen = found[SEED_SD, SEEDED_BELOW]
            ratios[f"{name} {how}"] = chosen[0][0] / off[0][0]
    print(
        "ratio (seeded / unseeded) of mean units until provisional: "
        + ", ".join(f"{case} {ratio:.2f}" for case, ratio in ratios.items())
    )


if __name__ == "__main__":
    main()
