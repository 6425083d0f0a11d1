"""Knockout: single elimination over a seeded bracket; each tie's winner goes on.

Seeding is the order of ``params["seeding"]`` (the API passes the entries by rating),
else the entries' order. The bracket has the next power of two of places, filled the
standard way (1 v 16, 8 v 9, ...: at every round the top seeds left are as far apart
as they can be, so 1 and 2 can only meet in the final); the places of missing seeds
are byes, which fall to the top seeds.

A tie plays every game, ``deals`` deals each, in both seatings. The winner wins more
units; level on units, the larger margin (points scored less points conceded over the
tie's scored units: the finer measure of the same play); level on that too, the higher
seed, the side the ratings favoured. Each round is handed out once every tie of the
round before has all its results.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from arena.tournament.formats.base import Field, Format, InvalidFormat, Played, State, unit_matches
from arena.tournament.formats.tally import Tally, add, every_game, new_tally, unit_of
from arena.tournament.schedule import ScheduledMatch
from arena.tournament.seeding import by_rating
from arena.v1 import arena_pb2


def bracket(size: int) -> list[int]:
    """Seeds (1 first) in bracket order for ``size`` places, a power of two: each pair
    of neighbours is a first-round tie, and seeds 1 and 2 sit in opposite halves."""
    order = [1]
    while len(order) < size:
        order = [s for seed in order for s in (seed, 2 * len(order) + 1 - seed)]
    return order


class Knockout(Format):
    name = "knockout"
    proto = arena_pb2.FORMAT_KNOCKOUT
    title = "Knockout"
    internal_params = frozenset({"seeding"})
    shared_games = True
    seeded = True
    shows_leaderboard = False

    def __init__(self, field: Field, params: Mapping[str, Any]) -> None:
        super().__init__(field, params)
        n = len(field.entries)
        if n < 2:
            raise InvalidFormat(f"a knockout needs at least 2 entries, got {n}")
        seeding = params.get("seeding") or field.entries  # none given: the entries' order
        if not isinstance(seeding, list | tuple) or sorted(map(str, seeding)) != sorted(
            field.entries
        ):
            raise InvalidFormat(
                "a knockout's seeding lists every entry exactly once, best first: "
                f"{', '.join(field.entries)} in some order; got {seeding!r}"
            )
        every_game(field)
        self.seeding = tuple(str(s) for s in seeding)
        self.depth = (len(self.seeding) - 1).bit_length()
        self.per_tie = len(field.games) * field.deals * 2
        self.prefix = f"{field.tournament_id}-knockout-r"

    def total(self) -> int:
        return (len(self.seeding) - 1) * self.per_tie

    def start(self) -> State:
        n, order = len(self.seeding), bracket(2**self.depth)
        ties = [self.tie(a, b if b <= n else 0) for a, b in neighbours(order)]
        return {"rounds": [{"ties": ties, "issued": 0}]}

    def tie(self, a_seed: int, b_seed: int) -> Tally:
        """A tie between two seeds, the higher first; ``b_seed`` 0 for a bye."""
        a_seed, b_seed = (b_seed, a_seed) if b_seed and b_seed < a_seed else (a_seed, b_seed)
        a = self.seeding[a_seed - 1]
        b = self.seeding[b_seed - 1] if b_seed else ""
        tie = {**new_tally(a, b), "a_seed": a_seed, "b_seed": b_seed, "winner": ""}
        return {**tie, "decided_by": ""} if b else {**tie, "winner": a, "decided_by": "bye"}

    def next(self, state: State, room: int) -> tuple[State, list[ScheduledMatch]]:
        state = copy.deepcopy(state)
        rounds = state["rounds"]
        if len(rounds) < self.depth and all(t["winner"] for t in rounds[-1]["ties"]):
            rounds.append(self.following(rounds[-1]))
        current = rounds[-1]
        playing = [(i, t) for i, t in enumerate(current["ties"]) if t["b"]]
        first = current["issued"]
        end = min(first + room, len(playing) * self.per_tie)
        current["issued"] = end
        return state, [self.match(len(rounds), playing, i) for i in range(first, end)]

    def following(self, round_: State) -> State:
        """The round after ``round_``: the winners of neighbouring ties meet."""
        seeds = [t["a_seed"] if t["winner"] == t["a"] else t["b_seed"] for t in round_["ties"]]
        return {"ties": [self.tie(a, b) for a, b in neighbours(seeds)], "issued": 0}

    def match(self, round_no: int, playing: list[tuple[int, Tally]], index: int) -> ScheduledMatch:
        p, rest = divmod(index, self.per_tie)
        g, rest = divmod(rest, 2 * self.field.deals)
        deal, half = divmod(rest, 2)
        (t, tie), game = playing[p], self.field.games[g]
        unit = f"knockout-r{round_no}-t{t + 1}-{game}-{deal}"
        return unit_matches(self.field, unit, game, tie["a"], tie["b"], deal)[half]

    def absorb(self, state: State, played: Sequence[Played]) -> State:
        state = copy.deepcopy(state)
        for p in played:
            r, t, _ = p.match_id[len(self.prefix) :].split("-", 2)
            tie = state["rounds"][int(r) - 1]["ties"][int(t[1:]) - 1]
            add(tie, unit_of(self.field.tournament_id, p.match_id), p.unit, self.field.paired)
            if tie["done"] == self.per_tie:
                tie["winner"], tie["decided_by"] = winner(tie)
        return state

    def decided(self, state: State) -> bool:
        rounds = state["rounds"]
        final = rounds[-1]
        return len(rounds) == self.depth and final["issued"] == len(final["ties"]) * self.per_tie

    def standings(self, state: State) -> dict[str, Any]:
        fields = ("a", "b", "a_seed", "b_seed", "winner", "decided_by")
        rounds = [
            {
                "round": i + 1,
                "ties": [
                    {
                        **{f: t[f] for f in fields},
                        "a_units": t["units"][0],
                        "b_units": t["units"][1],
                    }
                    for t in r["ties"]
                ],
            }
            for i, r in enumerate(state["rounds"])
        ]
        final = state["rounds"][-1]["ties"]
        champion = final[0]["winner"] if len(state["rounds"]) == self.depth else ""
        return {"knockout": {"rounds": rounds, "champion": champion}}

    @classmethod
    def with_seeding(
        cls,
        params: Mapping[str, Any],
        entries: Sequence[str],
        games: Sequence[str],
        boards: Mapping[str, Mapping[str, Any]],
    ) -> dict[str, Any]:
        """Best first by the arena's ratings (``arena.tournament.seeding.by_rating``)."""
        return {**params, "seeding": by_rating(entries, boards, games)}

    @classmethod
    def params_text(cls, t: arena_pb2.Tournament) -> str:
        return f"{cls.title}, seeded by the arena's ratings"

    @classmethod
    def progress_text(cls, t: arena_pb2.Tournament) -> str:
        champion = t.standings.knockout.champion
        return "knockout" + (f", won by {champion}" if champion else "")


def neighbours(seeds: list[int]) -> list[tuple[int, int]]:
    """The 1st and 2nd, 3rd and 4th... of ``seeds``."""
    return list(zip(seeds[::2], seeds[1::2], strict=True))


def winner(tie: Tally) -> tuple[str, str]:
    """Who goes on from a tie with all its results, and what decided it."""
    (a_units, b_units), margin = tie["units"], tie["margin"]
    if a_units != b_units:
        return (tie["a"] if a_units > b_units else tie["b"]), "units"
    if margin:
        return (tie["a"] if margin > 0 else tie["b"]), "margin"
    return tie["a"], "seed"
