"""A pairing's score so far (a Swiss table, a knockout tie), kept in a format's state.

Its matches' results arrive one by one, in any order. A unit (a duplicate pair, or a
single match when deals are not shared) is scored once all of it is in, exactly as the
ratings score it (``pair_outcomes``): a forfeit loses the unit, and a unit with a
no-contest match in it counts as not played. The margin is what breaks a knockout tie
level on units: the points each side scored, over the matches of its scored units; a
forfeited match has no score to count, so it adds none.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from arena.ratings.duplicate import DuplicateResult, pair_outcomes
from arena.tournament.formats.base import Field, InvalidFormat

Tally = dict[str, Any]
"""JSON: ``a``, ``b``, ``units`` (won by each, draws half), ``margin`` (``a``'s points
less ``b``'s), ``done`` (matches absorbed) and ``waiting`` (halves of unfinished units)."""


def new_tally(a: str, b: str) -> Tally:
    return {"a": a, "b": b, "units": [0.0, 0.0], "margin": 0, "done": 0, "waiting": {}}


def add(tally: Tally, unit: str, result: DuplicateResult | None, paired: bool) -> None:
    """Counts one match of ``unit`` (None: no contest) into ``tally``, in place."""
    tally["done"] += 1
    half = None if result is None else asdict(result)
    if paired and unit not in tally["waiting"]:
        tally["waiting"][unit] = half
        return
    halves = [tally["waiting"].pop(unit), half] if paired else [half]
    if any(h is None for h in halves):
        return
    results = [DuplicateResult(**h) for h in halves if h is not None]
    (outcome,) = pair_outcomes(results)
    score = outcome.score if outcome.a == tally["a"] else 1 - outcome.score
    tally["units"][0] += score
    tally["units"][1] += 1 - score
    tally["margin"] += sum(
        r.margin if r.a == tally["a"] else -r.margin for r in results if r.forfeit_by is None
    )


def unit_of(tournament_id: str, match_id: str) -> str:
    """The unit a match of ``unit_matches`` belongs to: its id less tournament and seating."""
    return match_id[len(tournament_id) + 1 : -2]


def every_game(field: Field) -> None:
    """Raises InvalidFormat unless every entry plays every game: a pairing plays them all."""
    lacking = [
        f"{e} lacks {', '.join(g for g in field.games if g not in field.games_of[e])}"
        for e in field.entries
        if not set(field.games) <= set(field.games_of[e])
    ]
    if lacking:
        raise InvalidFormat(
            "every entry must play every game of the tournament: "
            + "; ".join(lacking)
            + "; choose games they all play"
        )
