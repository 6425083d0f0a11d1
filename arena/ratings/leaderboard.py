"""Leaderboards from stored match results: each game's, and the overall one made from
them, with 95% intervals and what else a reader needs to trust them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from arena.fair_play_terms import (
    OPERATOR_SEED_CAVEAT,
    PARTNERS_CAVEAT,
    TRUSTED,
    TRUSTED_CAVEAT,
)
from arena.ratings.board import (
    EXCLUDED,
    MIN_PAIRS,
    PROVISIONAL,
    RATED,
    Leaderboard,
    Row,
    ranked,
)
from arena.ratings.bootstrap import bootstrap_intervals
from arena.ratings.bound import lower_bound, upper_bound
from arena.ratings.duplicate import DuplicateResult, pair_outcomes
from arena.ratings.elo import (
    Counts,
    Levels,
    Rating,
    RatingTable,
    add_counts,
    add_levels,
    count_levels,
    count_outcomes,
    fit_counts,
)
from arena.ratings.groups import groups
from arena.ratings.overall import overall
from arena.ratings.scale import DEFAULT, Scale, anchor_table, not_on_board
from arena.records import stale

if TYPE_CHECKING:
    from arena.store.results import MatchResult

__all__ = [
    "Intervals",
    "Leaderboard",
    "Row",
    "caveats",
    "duplicate_result",
    "leaderboard",
    "merged",
    "ratings_by_game",
    "scaled",
    "scaled_counts",
    "tallies",
]


def caveats(results: Iterable[MatchResult]) -> tuple[str, ...]:
    """How many of the results came from tournaments whose deals a remembering bot, or
    someone who knew the seed, could have known, and how many were played by partners
    who shared a process (stored results name all three)."""
    tally = _Tally()
    for result in results:
        tally.add(result)
    return tally.caveats()


def duplicate_result(result: MatchResult) -> DuplicateResult | None:
    """A stored result as a half of a duplicate pair; None if it cannot be rated (a no
    contest, or two entries of one author, whose results between them never count)."""
    if result.end == "no_contest" or result.same_author:
        return None
    a, b = result.entries
    return DuplicateResult(
        pair_key=result.pair_key,
        a=a,
        b=b,
        margin=result.margin,
        forfeit_by=result.forfeit_by,
        paired=result.paired,
    )


@dataclass
class _Tally:
    """What a board needs from its results, gathered in one pass over them: the halves
    not yet paired, and the counts of outcomes already paired (a stored tally's)."""

    halves: list[DuplicateResult] = field(default_factory=list)
    counts: Counts = field(default_factory=dict)
    levels: Levels = field(default_factory=dict)
    """The five outcomes of the duplicate pairs among ``counts`` (a stored tally's)."""
    played: Counter[str] = field(default_factory=Counter)
    forfeited: Counter[str] = field(default_factory=Counter)
    matches: int = 0
    trusted: int = 0
    operator: int = 0
    shared: Counter[str] = field(default_factory=Counter)
    """Per entry, its results in which its partners shared one process."""

    def add(self, result: MatchResult) -> None:
        self.matches += 1
        self.played.update(result.entries)
        self.trusted += result.fair_play == TRUSTED
        self.operator += result.operator_seed is True
        self.shared.update(result.shared_partners or ())
        half = duplicate_result(result)
        if half is not None:
            self.halves.append(half)
            if half.forfeit_by is not None:
                self.forfeited[half.forfeit_by] += 1

    def merge(self, other: _Tally) -> None:
        self.halves += other.halves
        self.counts = add_counts([self.counts, other.counts])
        self.levels = add_levels([self.levels, other.levels])
        self.played += other.played
        self.forfeited += other.forfeited
        self.matches += other.matches
        self.trusted += other.trusted
        self.operator += other.operator
        self.shared += other.shared

    def to_json(self) -> dict[str, Any]:
        """The tally with its halves paired into counts: all a board needs of results
        that will not change (a finished tournament's), in the size of its pairings."""
        counts, levels = self._paired()
        return {
            "counts": [[a, b, w, d, lo] for (a, b), (w, d, lo) in sorted(counts.items())],
            **(
                {"levels": [[a, b, *row] for (a, b), row in sorted(levels.items())]}
                if levels
                else {}
            ),
            "played": dict(self.played),
            "forfeited": dict(self.forfeited),
            "matches": self.matches,
            "trusted": self.trusted,
            "operator": self.operator,
            "shared": dict(self.shared),
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> _Tally:
        """A stored tally; one an earlier build stored without ``shared`` is refused
        (``arena store migrate`` adds it)."""
        if "shared" not in raw:
            raise stale("a ratings tally", "no 'shared'")
        return cls(
            counts={(a, b): (w, d, lo) for a, b, w, d, lo in raw["counts"]},
            levels={
                (a, b): (l0, l1, l2, l3, l4) for a, b, l0, l1, l2, l3, l4 in raw.get("levels", ())
            },
            played=Counter(raw["played"]),
            forfeited=Counter(raw["forfeited"]),
            matches=raw["matches"],
            trusted=raw["trusted"],
            operator=raw["operator"],
            shared=Counter(raw["shared"]),
        )

    def caveats(self) -> tuple[str, ...]:
        notes = []
        if self.trusted:
            notes.append(f"{self.trusted} of these results were {TRUSTED_CAVEAT}")
        if self.operator:
            notes.append(f"{self.operator} of these results were {OPERATOR_SEED_CAVEAT}")
        if self.shared:
            entries = ", ".join(f"{e} in {n}" for e, n in sorted(self.shared.items()))
            notes.append(f"{PARTNERS_CAVEAT} ({entries} of these results)")
        return tuple(notes)

    def _paired(self) -> tuple[Counts, Levels]:
        """The counts of every rated unit, and the levels of the duplicate pairs among
        them (read in five outcomes: ``arena.ratings.duplicate``)."""
        outcomes = pair_outcomes(self.halves, five=True)
        return (
            add_counts([self.counts, count_outcomes(outcomes)]),
            add_levels([self.levels, count_levels(outcomes)]),
        )

    def parts(self) -> tuple[set[str], Counts, list[list[str]], Levels]:
        """What a board fits: the bots left out (they forfeited every match), the counts
        of the others' rated units, the groups those connect, largest first, and the
        five outcomes of the duplicate pairs among those units."""
        excluded = {bot for bot, n in self.forfeited.items() if n == self.played[bot]}
        paired, levels = self._paired()
        counts = {p: v for p, v in paired.items() if p[0] not in excluded and p[1] not in excluded}
        kept = {p: v for p, v in levels.items() if p in counts}
        return excluded, counts, groups(set(self.played) - excluded, counts), kept

    def board(self, game: str, scale: Scale = DEFAULT) -> Leaderboard:
        """One game's board (or any one table's): fitted group by group, without the bots
        that forfeited every match, each row saying how far it can be trusted. With an
        anchor, the anchor's group is measured from it (wherever it is fitted here)."""
        excluded, counts, parts, levels = self.parts()
        rows: list[Row] = []
        covariance: dict[str, dict[str, float]] = {}
        draw_elo: list[tuple[float, int]] = []
        for number, part in enumerate(parts, start=1):
            if len(part) == 1:  # no rated pair: nothing to fit
                rows.append(self._unfitted(part[0], PROVISIONAL, "no rated pair yet"))
                continue
            inside = {p: record for p, record in counts.items() if p[0] in part}
            inside_levels = {p: v for p, v in levels.items() if p in inside}
            table = fit_counts(
                inside, players=part, prior_sigma=scale.prior_sd, levels=inside_levels
            )
            if scale.anchor in part:
                table = anchor_table(table, scale.anchor, scale.anchor_elo)
            draw_elo.append((table.draw_elo, sum(map(sum, inside.values()))))
            for (a, b), value in table.covariance.items():
                covariance.setdefault(a, {})[b] = value
            rows += [self._row(r, number, table, inside, scale) for r in table.ratings]
        notes = list(self.caveats())
        fitted = sum(len(part) > 1 for part in parts)
        if fitted > 1:
            notes.append(
                f"no games connect these results into one table: {fitted} groups are "
                "ranked apart, and ratings compare only within a group"
            )
        if any(scale.anchor in part and len(part) > 1 for part in parts):
            notes.append(scale.caveat(fitted))
        rows += [
            self._unfitted(bot, EXCLUDED, f"forfeited all {n} matches: left out of the fit")
            for bot, n in sorted((bot, self.played[bot]) for bot in excluded)
        ]
        rows = [replace(r, shared_partners=self.shared[r.bot]) for r in rows]
        margin = sum(d * n for d, n in draw_elo) / max(sum(n for _, n in draw_elo), 1)
        return Leaderboard(
            game, ranked(rows), margin, self.matches, tuple(notes), covariance, MIN_PAIRS
        )

    def _unfitted(self, bot: str, status: str, note: str) -> Row:
        """A row with no rating: no rated pair, or left out of the fit."""
        return Row(
            rank=0, bot=bot, elo=0.0, elo_ci95=0.0, pairs=0, wins=0, draws=0, losses=0,
            matches=self.played[bot], status=status, note=note, group=0,
        )  # fmt: skip

    def _row(
        self, r: Rating, group: int, table: RatingTable, counts: Counts, scale: Scale = DEFAULT
    ) -> Row:
        notes = []
        status = RATED
        if r.games < MIN_PAIRS:
            status = PROVISIONAL
            notes.append(f"provisional: {r.games} of the {MIN_PAIRS} pairs that establish a rating")
        if group > 1:
            notes.append(f"group {group}: no games connect it to group 1")
        bound, elo_bound = "", 0.0
        if _swept(r):
            won = r.losses == 0
            bound = "at least" if won else "at most"
            elo_bound = _sweep_bound(r, table, counts, scale)
            notes.append(
                f"{'won' if won else 'lost'} all {r.games} pairs: {bound} {elo_bound:+.0f} "
                f"at 95%; the estimate {r.elo:+.0f} comes from the prior "
                f"(sd {scale.prior_sd:g} Elo)"
            )
        return Row(
            0,
            r.player,
            r.elo,
            r.ci95,
            r.games,
            r.wins,
            r.draws,
            r.losses,
            self.played[r.player],
            status=status,
            note="; ".join(notes),
            group=group,
            bound=bound,
            elo_bound=elo_bound,
        )


def _swept(r: Rating) -> bool:
    """Won every pair, or lost every pair: no finite maximum-likelihood rating."""
    return r.draws == 0 and (r.wins == 0 or r.losses == 0)


def _sweep_bound(r: Rating, table: RatingTable, counts: Counts, scale: Scale = DEFAULT) -> float:
    """The one-sided 95% bound of a bot that won (lost) every pair, against its
    opponents' ratings: the sweep is then a 1-in-20 chance. Where every bot of the group
    swept or was swept (two bots, one winning every pair), every rating there is the
    prior's and only the difference between the two sides is known: its bound, from the
    opponents taken as equals, is shared out by the centring (half each for two bots),
    or, on an anchored board, measured from the anchor's side, which sits at its Elo."""
    won = r.losses == 0
    elo = table.by_player()
    opponents = [
        (elo[b if a == r.player else a].elo, w + d + lo)
        for (a, b), (w, d, lo) in counts.items()
        if r.player in (a, b)
    ]
    if all(_swept(x) for x in table.ratings):
        difference = lower_bound([(0.0, n) for _, n in opponents], table.draw_elo)

        def shared(side_won: bool) -> float:
            other_side = sum((x.losses == 0) != side_won for x in table.ratings)
            share = difference * other_side / len(table.ratings)
            return share if side_won else -share

        if scale.anchor in elo:
            return shared(won) - shared(elo[scale.anchor].losses == 0) + scale.anchor_elo
        return shared(won)
    return (lower_bound if won else upper_bound)(opponents, table.draw_elo)


def leaderboard(
    results: Iterable[MatchResult], game: str = "", scale: Scale = DEFAULT
) -> Leaderboard:
    """Ratings of every bot in ``results`` (only ``game``'s when given), on ``scale``:
    ``BadScale`` for an anchor with no rating on that board."""
    return scaled(results, game, scale)[0]


Intervals = dict[str, tuple[float, float]]
"""By bot, the bootstrap's 95% interval of its rating, (low, high): the basic bootstrap
interval (``arena.ratings.bootstrap.basic``)."""


def scaled(
    results: Iterable[MatchResult], game: str = "", scale: Scale = DEFAULT
) -> tuple[Leaderboard, Intervals]:
    """``leaderboard``, and the bootstrap's intervals when ``scale`` asks for them."""
    if game:
        tally = _Tally()
        for result in results:
            if result.game == game:
                tally.add(result)
        by_game = {game: tally}
    else:
        by_game = _by_game(results)
    return _scaled(by_game, game, scale)


def scaled_counts(
    by_game: Mapping[str, Counts], game: str = "", scale: Scale = DEFAULT
) -> tuple[Leaderboard, Intervals]:
    """``scaled`` of rated units already counted, by game (a simulation's): each unit
    one match played by each of its two bots."""
    tallies = {}
    for g, counts in by_game.items():
        played: Counter[str] = Counter()
        for (a, b), record in counts.items():
            played[a] += sum(record)
            played[b] += sum(record)
        tallies[g] = _Tally(counts=dict(counts), played=played, matches=sum(played.values()) // 2)
    return _scaled(tallies if not game else {game: tallies[game]}, game, scale)


def _scaled(by_game: dict[str, _Tally], game: str, scale: Scale) -> tuple[Leaderboard, Intervals]:
    """The board of ``game`` (``""``: the overall one) fitted from ``by_game`` on
    ``scale``, refusing an anchor it does not rank, and its bootstrap intervals."""
    boards = {game: by_game[game].board(game, scale)} if game else _boards(by_game, scale)
    board = boards[game]
    on_board = [row.bot for row in board.rows if row.rank]
    if scale.anchor and scale.anchor not in on_board:
        where = f"the {game} board" if game else "the overall board (rated in every game)"
        raise not_on_board(scale.anchor, on_board, where)
    if not scale.bootstrap:
        return board, {}
    fitted = {g: tally.parts() for g, tally in by_game.items()}
    fits = {g: (counts, parts) for g, (_, counts, parts, _) in fitted.items()}
    levels = {g: found[3] for g, found in fitted.items()}
    return board, bootstrap_intervals(fits, boards, game, scale, levels)


def tallies(results: Iterable[MatchResult]) -> dict[str, dict[str, Any]]:
    """Each game's tally of ``results`` (a finished tournament's, which will not change),
    as JSON: ``ratings_by_game`` takes it instead of the results, so a refit of the
    arena's ratings costs what its pairings do, not what its history does."""
    return {game: tally.to_json() for game, tally in _by_game(results).items()}


def merged(stored: Iterable[dict[str, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """One tally by game of several ``tallies``: what ``ratings_by_game`` makes of it is
    what it makes of them all."""
    by_game = _with_stored({}, stored)
    return {game: tally.to_json() for game, tally in sorted(by_game.items())}


def ratings_by_game(
    results: Iterable[MatchResult],
    stored: Iterable[dict[str, dict[str, Any]]] = (),
    scale: Scale = DEFAULT,
) -> dict[str, Leaderboard]:
    """The board of each game, and (key ``""``) the overall one made from them
    (``arena.ratings.overall``), in one pass over the results and the ``stored`` tallies
    (``tallies``) of other results."""
    return _boards(_with_stored(_by_game(results), stored), scale)


def _boards(by_game: dict[str, _Tally], scale: Scale) -> dict[str, Leaderboard]:
    per_game = {game: by_game[game].board(game, scale) for game in sorted(by_game)}
    everything = _Tally()
    for each in by_game.values():
        everything.merge(each)
    board = overall(per_game, everything.matches, everything.caveats(), scale)
    return {"": board, **per_game}


def _by_game(results: Iterable[MatchResult]) -> dict[str, _Tally]:
    found: dict[str, _Tally] = {}
    for result in results:
        found.setdefault(result.game, _Tally()).add(result)
    return found


def _with_stored(
    by_game: dict[str, _Tally], stored: Iterable[dict[str, dict[str, Any]]]
) -> dict[str, _Tally]:
    """``by_game`` with each of the ``stored`` tallies merged into its game's."""
    for tally in stored:
        for game, raw in tally.items():
            by_game.setdefault(game, _Tally()).merge(_Tally.from_json(raw))
    return by_game
