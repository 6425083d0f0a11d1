"""Does the SPRT's stopping rule keep its promises? Many simulated tests between entries
of known strength, exactly elo0 and exactly elo1 apart, the LLR checked after every unit
as the format checks it: the rate of accepting H1 under elo0 should be about alpha, the
rate of accepting H0 under elo1 about beta.

The baseline is Wald's approximation with the expected overshoot of the bound
(``arena.ratings.sprt.wald_error_rates``): a little below nominal, since a test stops
only once the LLR has passed a bound. The measured rate is shown with its binomial
standard error over the runs. Also shown: how often the format's max_units cut a test
short (INCONCLUSIVE) and the units a decision takes.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from arena.ratings import sprt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=4000, help="simulated tests per case")
    parser.add_argument(
        "--draw-rate", type=float, default=0.1, help="of pairs: 9.4%% in bench.rating_units"
    )
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--max-units", type=int, default=20000, help="as the format's")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(
        f"{args.runs} runs per case, draw rate {args.draw_rate}, alpha {args.alpha}, "
        f"beta {args.beta}"
    )
    header = ("bounds", "true elo", "error", "measured", "se", "expected", "nominal")
    print("{:>7} {:>9} {:>6} {:>9} {:>7} {:>9} {:>8}".format(*header), end="")
    print("  mean units  p90 units  inconclusive at max_units")
    for elo0, elo1 in ((0.0, 20.0), (0.0, 5.0)):
        shoot = sprt.overshoot(elo0, elo1, args.draw_rate)
        expected = sprt.wald_error_rates(args.alpha, args.beta, shoot)
        cases = [
            (elo0, sprt.H1, "alpha", args.alpha, expected[0]),
            (elo1, sprt.H0, "beta", args.beta, expected[1]),
        ]
        for i, (elo, wrong, name, nominal, predicted) in enumerate(cases):
            started = time.perf_counter()
            common = (args.draw_rate, elo0, elo1, args.alpha, args.beta, args.runs)
            # Each case its own seed: shared draws would tie the two error rates together.
            seed = args.seed + i
            free = sprt.simulate(elo, *common, max_units=10**7, seed=seed)
            capped = sprt.simulate(elo, *common, max_units=args.max_units, seed=seed)
            rate = free.rate(wrong)
            se = math.sqrt(rate * (1 - rate) / args.runs)
            print(
                f"{elo0:>3g}/{elo1:<3g} {elo:>9g} {name:>6} {rate:>9.4f} {se:>7.4f} "
                f"{predicted:>9.4f} {nominal:>8g}  {free.units.mean():>10.0f} "
                f"{np.percentile(free.units, 90):>10.0f}  "
                f"{capped.rate(sprt.INCONCLUSIVE):>8.3f} "
                f"({time.perf_counter() - started:.1f}s)",
                flush=True,
            )


if __name__ == "__main__":
    main()
