"""Bootstrap intervals: the board refitted on resampled results, as a check on (and an
alternative to) the fit's normal intervals.

Each resample redraws every pairing's rated units (duplicate pairs, or matches rated
alone) with replacement from that pairing's own: a pairing of ``n`` units that went
``w`` won, ``d`` drawn, ``l`` lost becomes a multinomial draw of ``n`` from those
shares. The schedule (who met whom, how often) stays the one played, as a tournament's
does; the unit stays the rated one, never a single match of a duplicate pair. Every
game's groups are refitted on the resample as the board fits them (the same prior, the
same centring or anchor, the overall board's combination of the games). A bot's
interval is the basic bootstrap's: the 2.5th and 97.5th percentiles of its refitted
ratings reflected about its estimate (``basic``). The plain percentiles were asked for
first; in simulation they covered the truth 83-89% of the time at 12-36 pairs a bot,
where the normal intervals and the basic ones cover about 95% (``bench.rating_scale``).

A pairing that went one way every time goes that way in every resample, so a perfect
record's percentiles are the prior's, like its estimate: the board shows its bound.
A duplicate pair read in five outcomes is redrawn with its level, so that a resample is
fitted as the board is (``resample_levels``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from arena.ratings.board import Leaderboard
from arena.ratings.elo import Counts, Levels, fit_counts
from arena.ratings.scale import Scale

Fits = Mapping[str, tuple[Counts, Sequence[Sequence[str]]]]
"""By game, what its board fits: the counts of its rated units and its groups."""


def resample(counts: Counts, rng: np.random.Generator) -> Counts:
    """Each pairing's units redrawn with replacement from its own."""
    pairings = sorted(counts)
    table = np.array([counts[p] for p in pairings], dtype=np.int64).reshape(-1, 3)
    n = table.sum(axis=1)
    shares = table / np.maximum(n, 1)[:, None]
    shares[n == 0] = (1.0, 0.0, 0.0)
    drawn = rng.multinomial(n, shares)
    return {p: (int(w), int(d), int(lo)) for p, (w, d, lo) in zip(pairings, drawn, strict=True)}


def resample_levels(
    counts: Counts, levels: Levels, rng: np.random.Generator
) -> tuple[Counts, Levels]:
    """``resample`` of units some of which have five-outcome levels: each pairing's
    units redrawn from its own, a pair with its level, a unit without one as the win,
    draw or loss it is."""
    pairings = sorted(counts)
    rows = []
    for p in pairings:
        w, d, lo = counts[p]
        l0, l1, l2, l3, l4 = levels.get(p, (0, 0, 0, 0, 0))
        rows.append((w - l3 - l4, d - l2, lo - l0 - l1, l0, l1, l2, l3, l4))
    table = np.array(rows, dtype=np.int64).reshape(-1, 8)
    n = table.sum(axis=1)
    shares = table / np.maximum(n, 1)[:, None]
    shares[n == 0] = (1.0, 0, 0, 0, 0, 0, 0, 0)
    drawn = rng.multinomial(n, shares)
    out_counts: Counts = {}
    out_levels: Levels = {}
    for p, row in zip(pairings, drawn, strict=True):
        w, d, lo, l0, l1, l2, l3, l4 = (int(x) for x in row)
        out_counts[p] = (w + l3 + l4, d + l2, lo + l0 + l1)
        if p in levels:
            out_levels[p] = (l0, l1, l2, l3, l4)
    return out_counts, out_levels


def samples(
    counts: Counts,
    parts: Sequence[Sequence[str]],
    scale: Scale,
    rng: np.random.Generator,
    resamples: int,
    levels: Levels | None = None,
) -> list[dict[str, float]]:
    """One game's ratings refitted on each of ``resamples`` resamples of ``counts``
    (and of ``levels``, the five outcomes of its pairs), group by group as its board
    fits them, centred (the caller anchors)."""
    levels = levels or {}
    groups = []
    for part in parts:
        if len(part) < 2:
            continue
        inside = {p: v for p, v in counts.items() if p[0] in part}
        five = {p: v for p, v in levels.items() if p in inside}
        start = fit_counts(inside, players=list(part), prior_sigma=scale.prior_sd, levels=five)
        groups.append((part, inside, five, start))
    out = []
    for _ in range(resamples):
        ratings: dict[str, float] = {}
        for part, inside, five, start in groups:
            drawn, drawn_levels = (
                resample_levels(inside, five, rng) if five else (resample(inside, rng), {})
            )
            table = fit_counts(
                drawn, list(part), prior_sigma=scale.prior_sd, start=start, levels=drawn_levels
            )
            ratings.update((r.player, r.elo) for r in table.ratings)
        out.append(ratings)
    return out


def anchored(sample: dict[str, float], part: Sequence[str], scale: Scale) -> dict[str, float]:
    """``sample`` with ``scale.anchor``'s group measured from the anchor at its Elo."""
    if scale.anchor not in sample:
        return sample
    shift = scale.anchor_elo - sample[scale.anchor]
    return {b: e + shift if b in part else e for b, e in sample.items()}


def percentiles(
    found: Sequence[Mapping[str, float]], bots: Sequence[str]
) -> dict[str, tuple[float, float]]:
    """By bot, the 2.5th and 97.5th percentiles of its ratings in ``found``."""
    if not found or not bots:
        return {}
    values = np.array([[sample[b] for b in bots] for sample in found])
    low, high = np.percentile(values, [2.5, 97.5], axis=0)
    return {b: (float(lo), float(hi)) for b, lo, hi in zip(bots, low, high, strict=True)}


def basic(
    found: Sequence[Mapping[str, float]], estimates: Mapping[str, float]
) -> dict[str, tuple[float, float]]:
    """By bot, the basic bootstrap interval: its percentiles in ``found`` reflected
    about its estimate, ``(2 e - p97.5, 2 e - p2.5)``. Where the resamples' ratings
    stray from the estimate as the estimate strays from the truth (the fit stretches
    ratings away from the mean, and stretches a resample's again), this cancels it,
    where the plain percentiles double it (docs/ratings.md has the coverage of each)."""
    bots = [b for b in estimates if found and b in found[0]]
    plain = percentiles(found, bots)
    return {b: (2 * estimates[b] - hi, 2 * estimates[b] - lo) for b, (lo, hi) in plain.items()}


def bootstrap_intervals(
    fits: Fits,
    boards: Mapping[str, Leaderboard],
    game: str,
    scale: Scale,
    levels: Mapping[str, Levels] | None = None,
) -> dict[str, tuple[float, float]]:
    """By bot of ``game``'s board (``""``: the overall one), the 95% percentile interval
    of its rating over ``scale.bootstrap`` resamples, drawn from ``scale.seed``; the
    games' ``levels`` are their pairs' five outcomes."""
    rng = np.random.default_rng(scale.seed)
    levels = levels or {}
    if game:
        counts, parts = fits[game]
        part = next((p for p in parts if scale.anchor in p), ())
        found = [
            anchored(sample, part, scale)
            for sample in samples(counts, parts, scale, rng, scale.bootstrap, levels.get(game))
        ]
        return basic(found, {r.bot: r.elo for r in boards[game].rows if r.rank})
    bots = [row.bot for row in boards[""].rows if row.rank]
    games = sorted(g for g in fits if g and any(r.pairs for r in boards[g].rows))
    by_game = [samples(*fits[g], scale, rng, scale.bootstrap, levels.get(g)) for g in games]
    found = []
    for each in zip(*by_game, strict=True):  # one resample of every game
        total = np.zeros(len(bots))
        for ratings in each:
            r = np.array([ratings[b] for b in bots])
            total += r - r.mean()  # measured from the mean of the bots ranked overall
        found.append(anchored(dict(zip(bots, total / len(games), strict=True)), bots, scale))
    return basic(found, {r.bot: r.elo for r in boards[""].rows if r.rank})
