"""What does giving up duplicate pairs cost the leaderboard? Under fair_play = OPEN no
deal may be played twice (a bot could remember it), so each match is rated alone and
the luck of the cards no longer cancels. This plays the same number of matches both
ways, with real engines, between a rule-based bot and a slightly noisy copy of it (a
gap of the size the leaderboard has to resolve), and compares how precisely each unit
pins the Elo difference, and so how many more matches single matches need.

Two rulers, because the units rate different things: a pair is a bigger contest than
a match, so the same two bots are further apart in pair Elo than in match Elo. The
raw 95% half-widths are what a reader of each leaderboard sees; the half-width
relative to the estimated difference (1 / signal-to-noise) is what decides whether
the two bots can be told apart, and is the fair ratio between units.

The same duplicate matches are also read in five outcomes (issue 39), both ways: the
arena's (``five``: the total margin decides the pair, won both halves or on the total
only refine it) and fishtest's (``halves``: the sum of the two matches' own results,
each decided by its own margin). Both are fitted by the arena's fit with the five
levels, and each is set against today's win, draw or loss by the total margin
(``duplicate``) of the same pairs: pairs needed for the same relative interval (the
arena's reading keeps the margin's Elo scale, so its raw widths compare too). A
model-free check beside the fit: pairs needed for the same normalized Elo interval
(fishtest's ``nElo``: a unit's mean score less 1/2 over its sd, so the scale of each
reading's scores drops out).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import statistics
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from arena.bots.examples import EXAMPLES
from arena.bots.local import play_in_process
from arena.bots.sdk import Bot
from arena.ratings import DuplicateResult, Outcome, fit, pair_outcomes
from arena.ratings.elo import LEVEL_SCORES
from arena.v1 import bot_pb2

DUPLICATE, SINGLE = "duplicate", "single"
FIVE, HALVES = "five", "halves"
"""The duplicate matches read in five outcomes: the arena's, and fishtest's."""
UNITS = (DUPLICATE, SINGLE)
"""What is played: every reading is of these units' matches."""
READINGS = (DUPLICATE, FIVE, HALVES, SINGLE)
PLAYED_AS = {DUPLICATE: DUPLICATE, FIVE: DUPLICATE, HALVES: DUPLICATE, SINGLE: SINGLE}
Z95 = 1.959963984540054


class NoisyBot(Bot):
    """Plays ``inner``'s move, except with probability ``eps`` a random legal one.

    The coin and the random move depend only on the seed, the match and the decision,
    so a run is reproducible however its matches are spread over processes.
    """

    def __init__(self, inner: Bot, eps: float, seed: int) -> None:
        self.inner, self.eps, self.seed = inner, eps, seed
        self.name = f"{inner.name}~{eps:g}"

    def act(self, request: bot_pb2.ActRequest) -> int:
        rng = random.Random(f"{self.seed}:{request.match_id}:{request.decision_index}")
        if rng.random() < self.eps:
            return int(rng.choice(request.legal_actions).id)
        return self.inner.act(request)


@dataclass(frozen=True)
class Match:
    unit: str
    repeat: int
    deal: int
    """Deal seed: shared by the two matches of a duplicate pair, unique otherwise."""
    strong_team: int
    match_id: str


@dataclass(frozen=True)
class Played:
    match: Match
    margin: int
    """The strong bot's team score minus the weak one's."""
    score: float
    """1 if the strong bot's team won, 0.5 for no winner, 0 if it lost."""


@dataclass(frozen=True)
class Setup:
    game: str
    bot: str
    eps: float
    seed: int

    @property
    def strong(self) -> str:
        return self.bot

    @property
    def weak(self) -> str:
        return f"{self.bot}~{self.eps:g}"


_bots: dict[Setup, tuple[Bot, Bot]] = {}


def _pair_of_bots(setup: Setup) -> tuple[Bot, Bot]:
    if setup not in _bots:
        weak = NoisyBot(EXAMPLES[setup.bot](), setup.eps, setup.seed)
        _bots[setup] = (EXAMPLES[setup.bot](), weak)
    return _bots[setup]


def play(setup: Setup, match: Match) -> Played:
    strong, weak = _pair_of_bots(setup)
    bots = [strong, weak] if match.strong_team == 0 else [weak, strong]
    state = play_in_process(setup.game, bots, match.deal, match_id=match.match_id)
    scores, winner = state.scores(), state.winner()
    ours = match.strong_team
    score = 0.5 if winner is None else 1.0 if winner == ours else 0.0
    return Played(match, scores[ours] - scores[1 - ours], score)


def _play_star(job: tuple[Setup, Match]) -> Played:
    return play(*job)


def schedule(matches: int, repeats: int, seed: int) -> list[Match]:
    """Per repeat: ``matches // 2`` deals played twice with seats swapped, and
    ``matches`` fresh deals played once with seatings alternating. No deal is reused
    between units or repeats."""
    pairs = matches // 2
    jobs = []
    for r in range(repeats):
        base = seed * 1_000_000 + r * 3 * matches
        for i in range(pairs):
            for team in (0, 1):
                jobs.append(Match(DUPLICATE, r, base + i, team, f"d{r}-{i}-{team}"))
        for i in range(2 * pairs):
            jobs.append(Match(SINGLE, r, base + matches + i, i % 2, f"s{r}-{i}"))
    return jobs


def outcomes_of(setup: Setup, unit: str, played: Sequence[Played]) -> list[Outcome]:
    """The rated outcomes of one reading: the arena's own pair scoring for duplicates
    (``DUPLICATE``, ``FIVE``), fishtest's sum of the halves (``HALVES``)."""
    results = [
        DuplicateResult(f"{p.match.repeat}:{p.match.deal}", setup.strong, setup.weak, p.margin)
        for p in played
    ]
    if unit in (DUPLICATE, FIVE):
        return pair_outcomes(results, five=unit == FIVE)
    if unit == HALVES:
        by_pair: dict[str, list[int]] = {}
        for r in results:
            by_pair.setdefault(r.pair_key, []).append(r.margin)
        levels = [
            sum(2 if m > 0 else 1 if m == 0 else 0 for m in margins)
            for _, margins in sorted(by_pair.items())
            if len(margins) == 2
        ]
        return [Outcome(setup.strong, setup.weak, LEVEL_SCORES[v], v) for v in levels]
    return [Outcome(setup.strong, setup.weak, p.score) for p in played]


def unit_score(outcome: Outcome) -> float:
    """The unit's score for the strong bot: a five-outcome unit's level / 4."""
    return outcome.score if outcome.level is None else outcome.level / 4


def normalized(outcomes: Sequence[Outcome]) -> float:
    """A unit's mean score less 1/2 over the sd of its score: what one unit tells of
    the difference (fishtest's normalized Elo, up to a constant), with no model of the
    outcomes. Units needed for the same interval go as its inverse square."""
    scores = [unit_score(o) for o in outcomes]
    sd = statistics.pstdev(scores)
    return (statistics.fmean(scores) - 0.5) / sd if sd else math.inf


@dataclass(frozen=True)
class Estimate:
    elo: float
    """Estimated Elo of the strong bot minus the weak one's."""
    ci95: float
    """Half-width of its 95% interval, from the fit."""
    draw_elo: float


def estimate(setup: Setup, outcomes: Sequence[Outcome]) -> Estimate:
    table = fit(outcomes)
    ratings = table.by_player()
    return Estimate(
        ratings[setup.strong].elo - ratings[setup.weak].elo,
        table.difference_ci95(setup.strong, setup.weak),
        table.draw_elo,
    )


@dataclass(frozen=True)
class UnitReport:
    unit: str
    matches: int
    """Matches played per repeat."""
    outcomes: int
    """Rated outcomes per repeat."""
    wins: int
    draws: int
    losses: int
    """Of the strong bot, over all repeats."""
    estimates: tuple[Estimate, ...]
    """One per repeat."""
    pooled: Estimate
    """All repeats' outcomes fitted together: the reference the repeats are biased from."""
    normalized: float = 0.0
    """``normalized`` over all repeats' units."""
    levels: tuple[int, ...] = ()
    """A five-outcome reading's units by level, 0 to 4, over all repeats."""

    @property
    def mean_elo(self) -> float:
        return statistics.fmean(e.elo for e in self.estimates)

    @property
    def mean_ci95(self) -> float:
        return statistics.fmean(e.ci95 for e in self.estimates)

    @property
    def spread_ci95(self) -> float:
        """1.96 x the standard deviation of the estimate across repeats (0 for one)."""
        if len(self.estimates) < 2:
            return 0.0
        return Z95 * statistics.stdev(e.elo for e in self.estimates)

    @property
    def relative_ci95(self) -> float:
        """Mean half-width over the pooled difference: 1 / signal-to-noise."""
        return self.mean_ci95 / abs(self.pooled.elo) if self.pooled.elo else math.inf

    @property
    def draw_rate(self) -> float:
        return self.draws / (self.wins + self.draws + self.losses)

    @property
    def score_rate(self) -> float:
        return (self.wins + 0.5 * self.draws) / (self.wins + self.draws + self.losses)


def run(setup: Setup, matches: int, repeats: int, workers: int = 2) -> dict[str, UnitReport]:
    """Play both units ``repeats`` times with ``matches`` matches each and rate them."""
    jobs = schedule(matches, repeats, setup.seed)
    played = list(_map(setup, jobs, workers))
    reports = {}
    for unit in READINGS:
        source = PLAYED_AS[unit]
        per_repeat = [
            outcomes_of(
                setup, unit, [p for p in played if p.match.unit == source and p.match.repeat == r]
            )
            for r in range(repeats)
        ]
        everything = [o for outcomes in per_repeat for o in outcomes]
        scores = [o.score for o in everything]
        found = [o.level for o in everything if o.level is not None]
        reports[unit] = UnitReport(
            unit=unit,
            matches=sum(1 for j in jobs if j.unit == source) // repeats,
            outcomes=len(per_repeat[0]),
            wins=scores.count(1.0),
            draws=scores.count(0.5),
            losses=scores.count(0.0),
            estimates=tuple(estimate(setup, outcomes) for outcomes in per_repeat),
            pooled=estimate(setup, everything),
            normalized=normalized(everything),
            levels=tuple(found.count(v) for v in range(5)) if found else (),
        )
    return reports


def _map(setup: Setup, jobs: Sequence[Match], workers: int) -> Iterator[Played]:
    if workers <= 1:
        yield from (play(setup, job) for job in jobs)
        return
    with multiprocessing.Pool(workers) as pool:
        yield from pool.imap(_play_star, [(setup, job) for job in jobs], chunksize=16)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--game", default="bid-euchre")
    parser.add_argument("--bot", help="example bot, the strong side (default GAME-basic)")
    parser.add_argument("--eps", type=float, default=0.05, help="the weak copy's random rate")
    parser.add_argument("--matches", type=int, default=400, help="matches per unit and repeat")
    parser.add_argument("--repeats", type=int, default=12, help="independent repeats")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2, help="processes playing matches")
    args = parser.parse_args()
    setup = Setup(args.game, args.bot or f"{args.game}-basic", args.eps, args.seed)
    started = time.perf_counter()
    reports = run(setup, args.matches, args.repeats, args.workers)
    elapsed = time.perf_counter() - started
    dup, single = reports[DUPLICATE], reports[SINGLE]
    five, halves = reports[FIVE], reports[HALVES]

    print(
        f"{setup.strong} vs {setup.weak} (random move with p={setup.eps:g}), {setup.game}: "
        f"{args.repeats} repeats x {dup.matches} matches per unit, seed {setup.seed}, "
        f"{elapsed:.0f} s"
    )
    print()
    header = (
        f"{'unit':<10} {'matches':>7} {'outcomes':>8} {'W/D/L of strong':>17} {'draws':>6} "
        f"{'score':>6} {'mean Elo':>8} {'pooled':>7} {'bias':>6} {'+-95% fit':>9} "
        f"{'+-95% spread':>12} {'rel. width':>10}"
    )
    print(header)
    print("-" * len(header))
    for r in (dup, five, halves, single):
        print(
            f"{r.unit:<10} {r.matches:>7} {r.outcomes:>8} "
            f"{f'{r.wins}/{r.draws}/{r.losses}':>17} {r.draw_rate:>6.1%} {r.score_rate:>6.1%} "
            f"{r.mean_elo:>8.1f} {r.pooled.elo:>7.1f} {r.mean_elo - r.pooled.elo:>+6.1f} "
            f"{r.mean_ci95:>9.1f} {r.spread_ci95:>12.1f} {r.relative_ci95:>10.3f}"
        )
    print()
    raw = single.mean_ci95 / dup.mean_ci95
    rel = single.relative_ci95 / dup.relative_ci95
    print(
        f"half-width ratio single/duplicate at {dup.matches} matches: "
        f"{raw:.2f} in raw Elo, {rel:.2f} relative to each unit's difference"
    )
    print(
        f"single matches needed for the duplicate unit's width (n x ratio^2): "
        f"{dup.matches * raw**2:.0f} raw Elo ({raw**2:.2f}x), "
        f"{dup.matches * rel**2:.0f} relative ({rel**2:.2f}x)"
    )
    if dup.spread_ci95 > 0 and dup.pooled.elo and single.pooled.elo:
        spread = (single.spread_ci95 / abs(single.pooled.elo)) / (
            dup.spread_ci95 / abs(dup.pooled.elo)
        )
        print(
            f"the same from the spread across repeats instead of the fit's intervals: "
            f"relative ratio {spread:.2f}, {dup.matches * spread**2:.0f} single matches "
            f"({spread**2:.2f}x)"
        )
    print(
        f"draw margin fitted (pooled): duplicate {dup.pooled.draw_elo:.0f} Elo, "
        f"single {single.pooled.draw_elo:.0f} Elo"
    )
    print()
    print("five outcomes of a pair against its win/draw/loss by the total margin (same pairs):")
    for r in (five, halves):
        fitted = r.relative_ci95 / dup.relative_ci95
        normal = dup.normalized / r.normalized if r.normalized else math.inf
        raw = r.mean_ci95 / dup.mean_ci95
        line = (
            f"  {r.unit:<7} levels 0-4 {'/'.join(map(str, r.levels))}: relative width "
            f"{fitted:.2f}x, pairs needed {fitted**2:.2f}x (raw width {raw:.2f}x; "
            f"normalized Elo {normal**2:.2f}x)"
        )
        if dup.spread_ci95 > 0 and r.spread_ci95 > 0 and dup.pooled.elo and r.pooled.elo:
            spread = (r.spread_ci95 / abs(r.pooled.elo)) / (dup.spread_ci95 / abs(dup.pooled.elo))
            line += f", by the spread across repeats {spread**2:.2f}x"
        print(line)


if __name__ == "__main__":
    main()
