"""Leaderboards from stored match results: overall and per game, with 95% intervals."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from arena.ratings.duplicate import DuplicateResult, pair_outcomes
from arena.ratings.elo import Counts, add_counts, count_outcomes, fit_counts
from arena.tournament.fair_play import OPERATOR_SEED_CAVEAT, TRUSTED, TRUSTED_CAVEAT


@dataclass(frozen=True)
class Row:
    rank: int
    bot: str
    elo: float
    elo_ci95: float
    pairs: int
    wins: int
    draws: int
    losses: int
    matches: int
    game_elo: dict[str, float] = field(default_factory=dict)
    status: str = "rated"
    """RATED, or why the row is not ranked: PROVISIONAL, INCOMPLETE or EXCLUDED."""
    note: str = ""
    """For the reader, when there is something to say: why the row is not ranked, that
    its group is not connected to the main one, that its record is perfect."""
    group: int = 1
    """Which connected part of the comparison graph the bot is in: 1 the largest; ratings
    in different groups cannot be compared."""
    bound: str = ""
    """"at least" or "at most" for a perfect record, whose estimate comes from the prior:
    ``elo_bound`` is then the one-sided 95% bound shown instead."""
    elo_bound: float = 0.0


RATED = "rated"
PROVISIONAL = "provisional"
INCOMPLETE = "incomplete"
EXCLUDED = "excluded"


@dataclass(frozen=True)
class Leaderboard:
    game: str
    rows: tuple[Row, ...]
    draw_elo: float
    matches: int
    caveats: tuple[str, ...] = ()
    """What a reader should know before trusting these ratings."""
    covariance: dict[str, dict[str, float]] = field(default_factory=dict, compare=False)
    """The fit's covariance of the ratings, bot by bot: what pairwise answers come from
    (``arena.ratings.compare``). Empty on boards stored before it was kept."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Leaderboard:
        rows = tuple(Row(**row) for row in data["rows"])
        caveats = tuple(data.get("caveats", ()))
        covariance = data.get("covariance", {})
        return cls(data["game"], rows, data["draw_elo"], data["matches"], caveats, covariance)


def caveats(results: Iterable[Mapping[str, Any]]) -> tuple[str, ...]:
    """How many of the results came from tournaments whose deals a remembering bot, or
    someone who knew the seed, could have known (stored results name both)."""
    tally = _Tally()
    for result in results:
        tally.add(result)
    return tally.caveats()


def duplicate_result(result: Mapping[str, Any]) -> DuplicateResult | None:
    """A stored result as a half of a duplicate pair; None if it cannot be rated."""
    if result["end"] == "no_contest":
        return None
    a, b = result["entries"]
    forfeit = result.get("forfeit_team")
    return DuplicateResult(
        pair_key=result["pair_key"],
        a=a,
        b=b,
        margin=result["scores"][0] - result["scores"][1],
        forfeit_by=None if forfeit is None else result["entries"][forfeit],
        paired=result.get("paired", True),
    )


@dataclass
class _Tally:
    """What a board needs from its results, gathered in one pass over them."""

    halves: list[DuplicateResult] = field(default_factory=list)
    played: Counter[str] = field(default_factory=Counter)
    matches: int = 0
    trusted: int = 0
    operator: int = 0

    def add(self, result: Mapping[str, Any]) -> None:
        self.matches += 1
        self.played.update(result["entries"])
        self.trusted += result.get("fair_play") == TRUSTED
        self.operator += bool(result.get("operator_seed"))
        half = duplicate_result(result)
        if half is not None:
            self.halves.append(half)

    def merge(self, other: _Tally) -> None:
        self.halves += other.halves
        self.played += other.played
        self.matches += other.matches
        self.trusted += other.trusted
        self.operator += other.operator

    def caveats(self) -> tuple[str, ...]:
        notes = []
        if self.trusted:
            notes.append(f"{self.trusted} of these results were {TRUSTED_CAVEAT}")
        if self.operator:
            notes.append(f"{self.operator} of these results were {OPERATOR_SEED_CAVEAT}")
        return tuple(notes)

    def board(self, game: str, counts: Counts | None = None) -> Leaderboard:
        """The board of these results; ``counts``, when given, are their outcomes'."""
        players = sorted(self.played)
        rows: list[Row] = []
        draw_elo = 0.0
        covariance: dict[str, dict[str, float]] = {}
        if len(players) >= 2:
            if counts is None:
                counts = count_outcomes(pair_outcomes(self.halves))
            table = fit_counts(counts, players=players)
            rows = [
                Row(
                    i + 1,
                    r.player,
                    r.elo,
                    r.ci95,
                    r.games,
                    r.wins,
                    r.draws,
                    r.losses,
                    self.played[r.player],
                )
                for i, r in enumerate(table.ratings)
            ]
            draw_elo = table.draw_elo
            for (a, b), value in table.covariance.items():
                covariance.setdefault(a, {})[b] = value
        return Leaderboard(game, tuple(rows), draw_elo, self.matches, self.caveats(), covariance)


def leaderboard(results: Iterable[Mapping[str, Any]], game: str = "") -> Leaderboard:
    """Ratings of every bot in ``results`` (only ``game``'s when given)."""
    if not game:
        return ratings_by_game(list(results))[""]
    tally = _Tally()
    for result in results:
        if result["game"] == game:
            tally.add(result)
    return tally.board(game)


def ratings_by_game(results: Iterable[Mapping[str, Any]]) -> dict[str, Leaderboard]:
    """The leaderboard of all games together (key ``""``) and of each game.

    One pass over the results, and each game fitted once: the all-games board's
    ``game_elo`` column reuses the per-game boards, and its outcomes are the games'
    outcomes added up (a duplicate pair never spans two games; were one to, the
    all-games outcomes are paired afresh, as before).
    """
    tallies: dict[str, _Tally] = {}
    game_of_pair: dict[str, str] = {}
    for result in results:
        game = result["game"]
        tally = tallies.get(game)
        if tally is None:
            tally = tallies[game] = _Tally()
        tally.add(result)
        game_of_pair.setdefault(result["pair_key"], game)
    counts = {game: count_outcomes(pair_outcomes(tallies[game].halves)) for game in sorted(tallies)}
    per_game = {game: tallies[game].board(game, table) for game, table in counts.items()}
    overall = _Tally()
    for tally in tallies.values():
        overall.merge(tally)
    spanning = any(
        game_of_pair[h.pair_key] != game for game, t in tallies.items() for h in t.halves
    )
    board = overall.board("", None if spanning else add_counts(counts.values()))
    game_elo: dict[str, dict[str, float]] = {}
    for game, game_board in per_game.items():
        for row in game_board.rows:
            game_elo.setdefault(row.bot, {})[game] = row.elo
    rows = tuple(replace(row, game_elo=game_elo.get(row.bot, {})) for row in board.rows)
    return {"": replace(board, rows=rows), **per_game}
