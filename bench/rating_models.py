"""Which rating model ranks bots closer to the truth: the maximum-likelihood Elo
(``arena.ratings.elo``) or OpenSkill (``arena.ratings.skill``)? Bots of known strength
play round robins of rated units under the Elo fit's own model (Bradley-Terry with a
draw margin, the units' outcomes win, draw or loss); both models rate the same units,
and each is scored by its rank correlation with the true strengths (Spearman's rho and
Kendall's tau), averaged over many trials, for few and many units per pairing.

The truth is drawn from the Elo's model, so the Elo has the home advantage here: the
question is how much OpenSkill's one-pass approximation loses against the exact fit of
the right model, not which model fits real card games better.

Also measured: what the order of the units does to OpenSkill, the order it uses (by a
hash of the pair key) against the order a round robin's keys sort in (pairing by
pairing), as the rank correlation each gives and how far apart the two orders put a
bot's mu, in the bot's sigmas.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from arena.ratings.elo import Outcome, fit
from arena.ratings.skill import rate, rate_in_order
from arena.ratings.teams import TeamOutcome

CASES = ((8, 1), (8, 4), (8, 16), (16, 1), (16, 4), (16, 16))
"""(bots, units per pairing) of each round robin."""


def draw_margin(draw_rate: float) -> float:
    """The Elo model's draw margin at which two equal bots draw ``draw_rate`` of units."""
    return 400 * math.log10((1 + draw_rate) / (1 - draw_rate))


def outcome_chances(difference: float, margin: float) -> tuple[float, float]:
    """P(win) and P(draw) of a bot ``difference`` Elo above its opponent."""
    win = 1 / (1 + 10 ** (-(difference - margin) / 400))
    loss = 1 / (1 + 10 ** (-(-difference - margin) / 400))
    return win, 1 - win - loss


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Rank correlation (the values here are continuous: no ties)."""
    rx, ry = (np.argsort(np.argsort(np.asarray(v))) for v in (x, y))
    return float(np.corrcoef(rx, ry)[0, 1])


def kendall(x: Sequence[float], y: Sequence[float]) -> float:
    n = len(x)
    sign = sum(
        float(np.sign((x[i] - x[j]) * (y[i] - y[j]))) for i in range(n) for j in range(i + 1, n)
    )
    return sign / (n * (n - 1) / 2)


@dataclass(frozen=True)
class Trial:
    elo_rho: float
    skill_rho: float
    elo_tau: float
    skill_tau: float
    blocked_rho: float
    """OpenSkill's rho with the units in a round robin's key order, pairing by pairing."""
    order_shift: float
    """Largest |mu (hash order) - mu (key order)| over the bots, in sigmas."""
    draws: float
    """Share of units drawn."""


def trial(
    bots: int, per_pairing: int, spread: float, margin: float, rng: np.random.Generator
) -> Trial:
    """One round robin: true strengths ~ N(0, spread) Elo, ``per_pairing`` units each."""
    names = [f"bot{i:02d}" for i in range(bots)]
    truth = rng.normal(0.0, spread, bots)
    outcomes: list[Outcome] = []
    units: list[TeamOutcome] = []
    pairing = 0
    for i in range(bots):
        for j in range(i + 1, bots):
            win, draw = outcome_chances(truth[i] - truth[j], margin)
            for deal in range(per_pairing):
                u = rng.random()
                score = 1.0 if u < win else 0.5 if u < win + draw else 0.0
                outcomes.append(Outcome(names[i], names[j], score))
                # A round robin's pair keys: tournament, game, pairing, deal.
                key = f"t-g-{pairing}-{deal}"
                units.append(TeamOutcome(key, (names[i],), (names[j],), score))
            pairing += 1
    elo = fit(outcomes).by_player()
    skill = rate(units).by_player()
    blocked = rate_in_order(sorted(units)).by_player()
    true = list(truth)
    elo_values = [elo[n].elo for n in names]
    skill_values = [skill[n].ordinal for n in names]
    shift = max(abs(skill[n].mu - blocked[n].mu) / skill[n].sigma for n in names)
    return Trial(
        elo_rho=spearman(true, elo_values),
        skill_rho=spearman(true, skill_values),
        elo_tau=kendall(true, elo_values),
        skill_tau=kendall(true, skill_values),
        blocked_rho=spearman(true, [blocked[n].ordinal for n in names]),
        order_shift=shift,
        draws=sum(o.score == 0.5 for o in outcomes) / len(outcomes),
    )


@dataclass(frozen=True)
class Summary:
    bots: int
    per_pairing: int
    trials: int
    elo_rho: float
    skill_rho: float
    rho_se: float
    """Standard error of the mean difference skill_rho - elo_rho (paired by trial)."""
    elo_tau: float
    skill_tau: float
    blocked_rho: float
    order_se: float
    """Standard error of the mean difference skill_rho - blocked_rho."""
    order_shift: float
    draws: float

    @property
    def ratio(self) -> float:
        return self.skill_rho / self.elo_rho


def measure(
    bots: int,
    per_pairing: int,
    trials: int,
    spread: float = 100.0,
    draw_rate: float = 0.1,
    seed: int = 1,
) -> Summary:
    rng = np.random.default_rng([seed, bots, per_pairing])
    margin = draw_margin(draw_rate)
    runs = [trial(bots, per_pairing, spread, margin, rng) for _ in range(trials)]
    gaps = [r.skill_rho - r.elo_rho for r in runs]
    orders = [r.skill_rho - r.blocked_rho for r in runs]
    return Summary(
        bots,
        per_pairing,
        trials,
        elo_rho=statistics.fmean(r.elo_rho for r in runs),
        skill_rho=statistics.fmean(r.skill_rho for r in runs),
        rho_se=statistics.stdev(gaps) / math.sqrt(trials) if trials > 1 else math.nan,
        elo_tau=statistics.fmean(r.elo_tau for r in runs),
        skill_tau=statistics.fmean(r.skill_tau for r in runs),
        blocked_rho=statistics.fmean(r.blocked_rho for r in runs),
        order_se=statistics.stdev(orders) / math.sqrt(trials) if trials > 1 else math.nan,
        order_shift=statistics.fmean(r.order_shift for r in runs),
        draws=statistics.fmean(r.draws for r in runs),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=300, help="round robins per case")
    parser.add_argument("--spread", type=float, default=100.0, help="sd of true Elo")
    parser.add_argument("--draw-rate", type=float, default=0.1, help="of units between equals")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(
        f"{args.trials} round robins per case; true Elo ~ N(0, {args.spread:g}); "
        f"draw margin {draw_margin(args.draw_rate):.1f} Elo "
        f"({args.draw_rate:g} of units between equals drawn)"
    )
    header = ("bots", "units/pair", "Elo rho", "OS rho", "OS/Elo", "diff se")
    print("{:>4} {:>10} {:>8} {:>8} {:>7} {:>8}".format(*header), end="")
    print("  Elo tau  OS tau  OS rho key order  diff se  mu shift/sigma  draws")
    for bots, per_pairing in CASES:
        started = time.perf_counter()
        s = measure(bots, per_pairing, args.trials, args.spread, args.draw_rate, args.seed)
        print(
            f"{bots:>4} {per_pairing:>10} {s.elo_rho:>8.3f} {s.skill_rho:>8.3f} "
            f"{s.ratio:>7.3f} {s.rho_se:>8.4f}  {s.elo_tau:>7.3f} {s.skill_tau:>7.3f} "
            f"{s.blocked_rho:>17.3f} {s.order_se:>8.4f} {s.order_shift:>15.2f} {s.draws:>6.3f} "
            f"({time.perf_counter() - started:.1f}s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
