"""How soon does a new competition version show a provisional rating? The ladder's own
matchmaking (``arena.tournament.formats.ladder``), run in process on a field of
measured versions, with and without the placement burst a competition's ladder adds
(``arena.competition.ladder.PLACEMENT_OUTCOMES``), both in the same run.

The field: ``--field`` versions already measured (``--measured`` outcomes per pairing),
true ratings spread over ±300 Elo; then a newcomer whose true rating is drawn from the
same spread. Units are handed out as the scheduler does, a window at a time
(``--window`` units in flight: two per worker process), each resolved by drawing its
outcome from the fit's own model at the true ratings. "Provisional" here: the board
shows the newcomer with a 95% interval of at most ``--ci`` Elo (half-width), on at
least one rated pair. Units to get there, averaged over ``--trials`` seeds; the time is
those units at the seconds one duplicate unit of real play takes on this machine
(measured here: two in-process matches of house bots), shared by ``--workers``
processes; hosted bots add their sandboxes' start-up (about a second a seat).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time

from arena.bots.examples import EXAMPLES
from arena.bots.local import play_in_process
from arena.competition.ladder import PLACEMENT_OUTCOMES
from arena.ratings.elo import K, fit_counts
from arena.tournament import formats
from arena.tournament.formats.ladder import Ladder

GAME = "bid-euchre"


def units_to_provisional(
    field_size: int, measured: int, window: int, ci: float, placement: int, seed: int
) -> tuple[int, int]:
    """(units the newcomer played, units handed out in all) until its interval is
    within ``ci``."""
    rng = random.Random(seed)
    names = [f"v{i}" for i in range(field_size)]
    true = {n: rng.uniform(-300, 300) for n in names} | {"new": rng.uniform(-300, 300)}
    counts: dict[str, dict[str, list[int]]] = {}
    for i, a in enumerate(sorted(names)):
        for b in sorted(names)[i + 1 :]:
            counts.setdefault(a, {})[b] = _outcomes(true[a] - true[b], measured, rng)
    entries = [*names, "new"]
    field = formats.Field(
        "t000000000000", tuple(entries), (GAME,), dict.fromkeys(entries, (GAME,)), 1, seed, True
    )
    ladder = Ladder(field, {"placement": placement})
    state: dict[str, object] = {"units": 0, "counts": {GAME: counts}, "out": {}}
    mine = total = 0
    while total < 2000:
        state, matches = ladder.next(state, 2 * window)
        units = {m.match_id.rsplit("-", 1)[0]: m.entries for m in matches}
        total += len(units)
        for a, b in units.values():
            lo, hi = sorted((a, b))
            row = counts.setdefault(lo, {}).setdefault(hi, [0, 0, 0])
            w, d, loss = _outcomes(true[lo] - true[hi], 1, rng)
            row[0], row[1], row[2] = row[0] + w, row[1] + d, row[2] + loss
            mine += "new" in (a, b)
        state = {**state, "out": {}}
        flat = {(a, b): (r[0], r[1], r[2]) for a, by in counts.items() for b, r in by.items()}
        if mine and fit_counts(flat, entries).by_player()["new"].ci95 <= ci:
            return mine, total
    return mine, total


def _outcomes(delta: float, n: int, rng: random.Random) -> list[int]:
    """``n`` outcomes at Elo difference ``delta``, as [wins, draws, losses]."""
    p = 1 / (1 + math.exp(-K * delta))
    wins = sum(rng.random() < p for _ in range(n))
    return [wins, 0, n - wins]


def seconds_per_unit(deals: int) -> float:
    """One duplicate unit (both seatings of a deal) of house bots, played in process."""
    bots = [EXAMPLES["house"](), EXAMPLES["house"]()]
    started = time.perf_counter()
    for deal in range(deals):
        for seating in (bots, bots[::-1]):
            play_in_process(GAME, seating, deal)
    return (time.perf_counter() - started) / deals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--field", type=int, default=7, help="versions already measured")
    parser.add_argument("--measured", type=int, default=20, help="outcomes per pairing")
    parser.add_argument("--window", type=int, default=4, help="units in flight")
    parser.add_argument("--ci", type=float, default=250.0, help="provisional: 95%% half-width")
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2, help="worker processes sharing units")
    parser.add_argument(
        "--hosted-unit-s",
        type=float,
        default=8.0,
        help="seconds a unit of hosted bots takes (assumed: 2 matches, a sandbox a seat)",
    )
    args = parser.parse_args()
    per_unit = seconds_per_unit(5)
    print(
        f"field of {args.field} measured versions + 1 new, {GAME}, window {args.window} units, "
        f"provisional = 95% interval within ±{args.ci:g} Elo; {args.trials} trials"
    )
    print(f"one duplicate unit of house bots in process: {per_unit:.2f} s")
    found = {}
    for placement in (0, PLACEMENT_OUTCOMES):
        runs = [
            units_to_provisional(args.field, args.measured, args.window, args.ci, placement, s)
            for s in range(args.trials)
        ]
        mine = statistics.median(r[0] for r in runs)
        total = statistics.median(r[1] for r in runs)
        found[placement] = total
        seconds = total * per_unit / args.workers
        hosted = total * args.hosted_unit_s / args.workers
        print(
            f"placement {placement:>2}: newcomer played {mine:.0f} units (median), "
            f"{total:.0f} units handed out in all until provisional ({mine / total:.0%} its "
            f"own): {seconds:.1f} s of in-process play, about {hosted:.0f} s of hosted play, "
            f"with {args.workers} worker processes"
        )
    ratio = found[PLACEMENT_OUTCOMES] / found[0]
    print(f"ratio (placement / none) of units until provisional: {ratio:.2f}")


if __name__ == "__main__":
    main()
