"""Swiss: a fixed number of rounds, each pairing entries with equal or close scores.

Each pairing (a table) plays every game of the tournament, ``deals`` deals each, in
both seatings; the side that wins more units wins the table (1 round point, a tie 0.5
each). An odd field gives one entry a bye each round: 1 point, no units.

Ranking: points, then Buchholz (the sum of the points of the entries met: a point
scored against strong opposition is worth more), then units won (the finer measure of
the same play), then entry order (the seeding given; deterministic). The table shows
entries level on the first three at one rank.

Pairing (``arena.tournament.formats.pairing``): score groups, Monrad within a group
(1 v 2, 3 v 4; round 1 by entry order), the bye to the lowest-ranked entry without
one, and no repeat pairing while the rounds still to come can all be paired without.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from arena.tournament.formats.base import (
    CliParam,
    Field,
    Format,
    InvalidFormat,
    Played,
    State,
    unit_matches,
)
from arena.tournament.formats.pairing import BYE, pairing
from arena.tournament.formats.tally import Tally, add, every_game, new_tally, unit_of
from arena.tournament.schedule import ScheduledMatch
from arena.v1 import arena_pb2

TIE_BREAK = (
    "points, then Buchholz (the sum of the points of the entries met), then units won; "
    "entries level on all three share a rank, and are listed and paired in entry order"
)


class Swiss(Format):
    name = "swiss"
    proto = arena_pb2.FORMAT_SWISS
    title = "Swiss"
    params_field = "swiss"
    cli_params = (
        CliParam(
            "--rounds", "rounds", "rounds", "--rounds N (1 to the number of entries less one)"
        ),
    )
    shared_games = True
    shows_leaderboard = False

    def __init__(self, field: Field, params: Mapping[str, Any]) -> None:
        super().__init__(field, params)
        n = len(field.entries)
        rounds = params.get("rounds")
        if n < 2:
            raise InvalidFormat(f"a Swiss tournament needs at least 2 entries, got {n}")
        if not isinstance(rounds, int) or isinstance(rounds, bool) or not 1 <= rounds < n:
            raise InvalidFormat(
                f"a Swiss tournament of {n} entries has 1 to {n - 1} rounds, got {rounds!r}"
            )
        every_game(field)
        self.rounds = rounds
        self.per_table = len(field.games) * field.deals * 2
        self.prefix = f"{field.tournament_id}-swiss-r"

    def total(self) -> int:
        return self.rounds * (len(self.field.entries) // 2) * self.per_table

    def start(self) -> State:
        return {"rounds": []}

    def next(self, state: State, room: int) -> tuple[State, list[ScheduledMatch]]:
        state = copy.deepcopy(state)
        rounds = state["rounds"]
        if len(rounds) < self.rounds and (not rounds or self.finished(rounds[-1])):
            rounds.append(self.pair(rounds))
        current = rounds[-1]
        first = current["issued"]
        last = min(first + room, len(current["tables"]) * self.per_table)
        current["issued"] = last
        return state, [self.match(len(rounds), i, current) for i in range(first, last)]

    def absorb(self, state: State, played: Sequence[Played]) -> State:
        state = copy.deepcopy(state)
        for p in played:
            r, t, _ = p.match_id[len(self.prefix) :].split("-", 2)
            table = state["rounds"][int(r) - 1]["tables"][int(t[1:]) - 1]
            add(table, unit_of(self.field.tournament_id, p.match_id), p.unit, self.field.paired)
        return state

    def decided(self, state: State) -> bool:
        rounds = state["rounds"]
        return len(rounds) == self.rounds and rounds[-1]["issued"] == self.round_size(rounds[-1])

    def round_size(self, round_: State) -> int:
        return len(round_["tables"]) * self.per_table

    def finished(self, round_: State) -> bool:
        """Every match of the round was handed out and has a result."""
        return round_["issued"] == self.round_size(round_) and all(
            t["done"] == self.per_table for t in round_["tables"]
        )

    def match(self, round_no: int, index: int, round_: State) -> ScheduledMatch:
        t, rest = divmod(index, self.per_table)
        g, rest = divmod(rest, 2 * self.field.deals)
        deal, half = divmod(rest, 2)
        table, game = round_["tables"][t], self.field.games[g]
        unit = f"swiss-r{round_no}-t{t + 1}-{game}-{deal}"
        return unit_matches(self.field, unit, game, table["a"], table["b"], deal)[half]

    def score(self, table: Tally) -> tuple[float, float] | None:
        """Round points of a finished table, None while it plays."""
        if table["done"] < self.per_table:
            return None
        a, b = table["units"]
        return (1.0, 0.0) if a > b else (0.0, 1.0) if a < b else (0.5, 0.5)

    def ranking(self, rounds: Sequence[State]) -> list[tuple[str, float, float, float]]:
        """(entry, points, Buchholz, units), best first, the ranking order."""
        points = dict.fromkeys(self.field.entries, 0.0)
        units = dict.fromkeys(self.field.entries, 0.0)
        met: dict[str, list[str]] = {e: [] for e in self.field.entries}
        for round_ in rounds:
            if round_["bye"]:
                points[round_["bye"]] += 1
            for t in round_["tables"]:
                met[t["a"]].append(t["b"])
                met[t["b"]].append(t["a"])
                units[t["a"]] += t["units"][0]
                units[t["b"]] += t["units"][1]
                if (score := self.score(t)) is not None:
                    points[t["a"]] += score[0]
                    points[t["b"]] += score[1]
        rows = [
            (e, points[e], sum(points[o] for o in met[e]), units[e]) for e in self.field.entries
        ]
        order = {e: i for i, e in enumerate(self.field.entries)}
        return sorted(rows, key=lambda r: (-r[1], -r[2], -r[3], order[r[0]]))

    def pair(self, rounds: Sequence[State]) -> State:
        """The next round, from the finished ones (see the module docstring)."""
        ranked = self.ranking(rounds)
        entries = [r[0] for r in ranked]
        met = {frozenset((t["a"], t["b"])) for r in rounds for t in r["tables"]}
        met |= {frozenset((r["bye"], BYE)) for r in rounds if r["bye"]}
        left = self.rounds - len(rounds) - 1
        pairs = pairing(entries, [r[1] for r in ranked], met, left)
        tables = [new_tally(a, b) for a, b in pairs if b != BYE]
        bye = next((a for a, b in pairs if b == BYE), "")
        return {"tables": tables, "bye": bye, "issued": 0}

    def standings(self, state: State) -> dict[str, Any]:
        rounds = [
            {
                "round": i + 1,
                "tables": [self.table_json(t) for t in r["tables"]],
                "bye": r["bye"],
                "complete": self.finished(r),
            }
            for i, r in enumerate(state["rounds"])
        ]
        ranked = self.ranking(state["rounds"])
        rows: list[dict[str, Any]] = []
        for i, (e, points, buchholz, units) in enumerate(ranked):
            level = i > 0 and ranked[i - 1][1:] == (points, buchholz, units)
            rank = rows[-1]["rank"] if level else i + 1
            rows.append(
                {"rank": rank, "entry": e, "points": points, "buchholz": buchholz, "units": units}
            )
        return {"swiss": {"rounds": rounds, "table": rows, "tie_break": TIE_BREAK}}

    def table_json(self, t: Tally) -> dict[str, Any]:
        a_points, b_points = self.score(t) or (0.0, 0.0)
        return {
            "a": t["a"],
            "b": t["b"],
            "a_units": t["units"][0],
            "b_units": t["units"][1],
            "a_points": a_points,
            "b_points": b_points,
        }

    @classmethod
    def params_text(cls, t: arena_pb2.Tournament) -> str:
        return f"{cls.title}, {t.spec.swiss.rounds} rounds"

    @classmethod
    def progress_text(cls, t: arena_pb2.Tournament) -> str:
        return f"swiss, round {len(t.standings.swiss.rounds)} of {t.spec.swiss.rounds}"
