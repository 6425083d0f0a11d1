"""The overall rating: how good a bot is at every game of the board, each game weighing
the same.

A bot's overall Elo is the mean of its ratings in the board's G games, each game's
ratings first measured from the same reference, the mean of the bots ranked overall
in that game. Games are fitted independently, so the covariance of the overall ratings
is the games' covariances (re-centred the same way) added up and divided by G^2: the
pairwise answers of ``arena.ratings.compare`` work on the overall board as on a game's.

Ranked overall are the bots with a rating in the main group of every game. Any other
bot is listed apart as INCOMPLETE, with the ratings it has. Leaving it out, rather than
shrinking its missing games to the average, is deliberate: a bot has no rating in a game
it never played, and any number put in its place (the mean, a prior) would rank a
specialist by a guess, which rewards entering only one's best game. A bot entered in
one game is ranked on that game's board, where it has a measured rating.

With every bot rated in every game, the reference is each game's own centre and the
overall Elo is simply the mean of the game columns.

A ranked bot is provisional overall when it is provisional in some game, and ranked
with the others by the rule of ``arena.ratings.board.ranked``. One that won (or lost)
every pair in every game is shown, as on a game's board, by a bound: the mean of its
games' 95% bounds, measured from the same reference. One that won (or lost) every pair
in some games only is shown by its estimate, into which those games bring estimates
that are the prior's, not the games': it is provisional too, its note naming them (in
``bench.rating_scale``, a bot average in two games that swept a third was put +124 Elo
above its true overall, against -8 when it did not sweep: docs/ratings.md).

On an anchored board (``arena.ratings.scale``) the anchor, a bot ranked overall, is at
its Elo overall and in each game's column, each other bot at its difference to it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np

from arena.ratings.board import (
    EXCLUDED,
    INCOMPLETE,
    MIN_PAIRS,
    PROVISIONAL,
    RATED,
    Leaderboard,
    Row,
    is_ranked,
    ranked,
)
from arena.ratings.elo import Z95
from arena.ratings.scale import DEFAULT, Scale

FITTED = (RATED, PROVISIONAL)


def overall(
    per_game: Mapping[str, Leaderboard],
    matches: int,
    caveats: Iterable[str],
    scale: Scale = DEFAULT,
) -> Leaderboard:
    """The overall board made from each game's board (anchored as ``scale`` says, when
    its anchor is ranked overall; the games' boards are anchored already)."""
    games = sorted(g for g, board in per_game.items() if any(r.pairs for r in board.rows))
    rows = {g: {row.bot: row for row in per_game[g].rows} for g in per_game}
    bots = sorted({bot for game_rows in rows.values() for bot in game_rows})
    in_every = [b for b in bots if games and all(_in_main_group(rows[g].get(b)) for g in games)]
    elo, covariance, offsets = _combine([per_game[g] for g in games], in_every)
    if scale.anchor in elo:
        elo, covariance, offsets = _anchored(elo, covariance, offsets, scale)
    out = []
    for bot in bots:
        mine = [rows[g][bot] for g in sorted(rows) if bot in rows[g]]
        total = {
            key: sum(getattr(r, key) for r in mine)
            for key in ("pairs", "wins", "draws", "losses", "matches", "shared_partners")
        }
        game_elo = {g: rows[g][bot].elo for g in games if is_ranked(rows[g].get(bot, _NONE))}
        if bot in elo:
            bound, elo_bound = _bound([rows[g][bot] for g in games], offsets)
            status, note = _ranked_status(bot, games, rows, shows_bound=bool(bound))
            ci95 = Z95 * math.sqrt(max(covariance[bot][bot], 0.0))
            out.append(
                Row(
                    0,
                    bot,
                    elo[bot],
                    ci95,
                    **total,
                    game_elo=game_elo,
                    status=status,
                    note=note,
                    bound=bound,
                    elo_bound=elo_bound,
                )
            )
        else:
            status, note = _unranked_status(bot, games, rows)
            out.append(
                Row(0, bot, 0.0, 0.0, **total, game_elo=game_elo, status=status, note=note, group=0)
            )
    draw = [per_game[g].draw_elo for g in games]
    notes = list(caveats)
    if len(games) > 1:
        notes.append(_rule_caveat(len(games), len(elo), len(out) - len(elo)))
    if scale.anchor in elo:
        notes.append(scale.caveat(1))
    return Leaderboard(
        "",
        ranked(out),
        sum(draw) / len(draw) if draw else 0.0,
        matches,
        tuple(notes),
        covariance,
        min((board.min_pairs for board in per_game.values()), default=MIN_PAIRS),
    )


_NONE = Row(0, "", 0.0, 0.0, 0, 0, 0, 0, 0, status=EXCLUDED)


def _in_main_group(row: Row | None) -> bool:
    return row is not None and row.status in FITTED and row.group == 1 and row.pairs > 0


def _rule_caveat(games: int, ranked: int, unranked: int) -> str:
    """The board's rule in a line, and who it leaves out (only when it leaves some)."""
    rule = (
        f"overall is the mean of a bot's ratings in the {games} games, each game weighing "
        f"the same, and ranks only the bots rated in all {games}"
    )
    if not unranked:
        return rule
    if not ranked:
        return rule + (
            f": no bot is rated in all {games} yet, so none is ranked here; each game's "
            "board ranks its own"
        )
    return rule + (
        f"; {unranked} {'bot is' if unranked == 1 else 'bots are'} not, and "
        f"{'is' if unranked == 1 else 'are'} listed after the ranked ones, unranked"
    )


def _bound(mine: list[Row], offsets: list[float]) -> tuple[str, float]:
    """A bound overall when every game shows one the same way: the mean of the games'
    bounds, each measured from the overall reference (as the ratings are)."""
    kinds = {row.bound for row in mine}
    if len(kinds) != 1 or "" in kinds:
        return "", 0.0
    return kinds.pop(), sum(r.elo_bound - o for r, o in zip(mine, offsets, strict=True)) / len(mine)


def _combine(
    boards: list[Leaderboard], bots: list[str]
) -> tuple[dict[str, float], dict[str, dict[str, float]], list[float]]:
    """Mean of the games' ratings of ``bots``, each game re-centred on these bots' mean,
    the covariance of that mean, and each game's centre (what it took off)."""
    if not bots:
        return {}, {}, []
    m = len(bots)
    centre = np.eye(m) - np.full((m, m), 1.0 / m)  # r -> r - mean(r), a linear map
    elo = np.zeros(m)
    cov = np.zeros((m, m))
    offsets = []
    for board in boards:
        by_bot = {row.bot: row.elo for row in board.rows}
        r = np.array([by_bot[b] for b in bots])
        c = np.array([[board.covariance[a][b] for b in bots] for a in bots])
        elo += centre @ r
        cov += centre @ c @ centre.T
        offsets.append(float(r.mean()))
    g = len(boards)
    elo, cov = elo / g, cov / g**2
    return (
        {b: float(elo[i]) for i, b in enumerate(bots)},
        {a: {b: float(cov[i, j]) for j, b in enumerate(bots)} for i, a in enumerate(bots)},
        offsets,
    )


def _anchored(
    elo: dict[str, float],
    covariance: dict[str, dict[str, float]],
    offsets: list[float],
    scale: Scale,
) -> tuple[dict[str, float], dict[str, dict[str, float]], list[float]]:
    """The overall ratings with ``scale.anchor`` at its Elo and the others at their
    difference to it, the covariance of those differences, and the games' references
    moved with them (the bounds are measured from those)."""
    a = scale.anchor
    shift = scale.anchor_elo - elo[a]
    c = covariance
    return (
        {b: e + shift for b, e in elo.items()},
        {x: {y: c[x][y] - c[x][a] - c[a][y] + c[a][a] for y in c} for x in c},
        [o - shift for o in offsets],
    )


def _ranked_status(
    bot: str, games: list[str], rows: Mapping[str, Mapping[str, Row]], shows_bound: bool
) -> tuple[str, str]:
    """Provisional when provisional in some game, or when it won (lost) every pair of
    some games and its estimate is shown (not a bound): those games' estimates are the
    prior's, and they are in its mean. The note names those games, and the games it won
    (lost) every pair of, with the bound each shows."""
    notes = []
    short = {g: rows[g][bot].pairs for g in games if rows[g][bot].status == PROVISIONAL}
    if short:
        if len(set(short.values())) == 1:
            pairs = next(iter(short.values()))
            each = " each" if len(short) > 1 else ""
            notes.append(f"provisional in {', '.join(short)} ({pairs} of {MIN_PAIRS} pairs{each})")
        else:
            listed = ", ".join(f"{g} ({n} of {MIN_PAIRS} pairs)" for g, n in short.items())
            notes.append(f"provisional in {listed}")
    on_prior = False
    for kind, swept in (("at least", "won"), ("at most", "lost")):
        games_swept = [g for g in games if rows[g][bot].bound == kind]
        if games_swept:
            on_prior = not shows_bound
            bounds = ", ".join(f"{g} ({kind} {rows[g][bot].elo_bound:+.0f})" for g in games_swept)
            there = "there" if len(games_swept) == 1 else "in each"
            prefix = "provisional: " if on_prior and not short and not notes else ""
            notes.append(
                f"{prefix}{swept} every pair in {bounds} at 95%: its estimate {there} is "
                "the prior's"
            )
    return (PROVISIONAL if short or on_prior else RATED), "; ".join(notes)


def _unranked_status(
    bot: str, games: list[str], rows: Mapping[str, Mapping[str, Row]]
) -> tuple[str, str]:
    mine = {g: rows[g][bot] for g in games if bot in rows[g]}
    played = [g for g, r in mine.items() if r.status != EXCLUDED]
    if mine and not played:
        return EXCLUDED, "forfeited every match it played"
    if len(played) < len(games):
        if len(played) == 1:
            why = f"played {played[0]} only (1 of {len(games)} games)"
        else:
            missing = ", ".join(g for g in games if g not in played)
            why = f"played {len(played)} of {len(games)} games, not {missing}"
    else:
        unpaired = [g for g in games if not mine[g].pairs]
        apart = [g for g in games if mine[g].pairs and not _in_main_group(mine[g])]
        why = "; ".join(
            [f"no rated pair in {', '.join(unpaired)}"] * bool(unpaired)
            + [f"not connected to the main group in {', '.join(apart)}"] * bool(apart)
        )
    return INCOMPLETE, why + ": not ranked overall"
