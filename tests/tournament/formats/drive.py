"""Running a format to its end as the scheduler would, with simulated results."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.ratings.duplicate import DuplicateResult
from arena.tournament.fair_play import deal_seed
from arena.tournament.formats import Field, Format, Played, State
from arena.tournament.schedule import ScheduledMatch

Results = Callable[[ScheduledMatch], DuplicateResult | None]


def field(
    n: int,
    games: Sequence[str] = ("seep",),
    deals: int = 1,
    paired: bool = True,
    games_of: dict[str, tuple[str, ...]] | None = None,
) -> Field:
    entries = tuple(f"e{i + 1}" for i in range(n))
    return Field(
        tournament_id="t1",
        entries=entries,
        games=tuple(games),
        games_of=games_of or dict.fromkeys(entries, tuple(games)),
        deals=deals,
        master_seed=42,
        paired=paired,
    )


def result(m: ScheduledMatch, margin: int, forfeit_by: str | None = None) -> DuplicateResult:
    """``m``'s result, ``margin`` being its first-seated entry's points less the other's."""
    a, b = m.entries
    return DuplicateResult(m.pair_key, a, b, margin, forfeit_by, m.paired)


def winner_scores(winner: Callable[[str, str], str | None]) -> Results:
    """Results where ``winner(a, b)`` (None: level) takes every deal by 10 points."""

    def play(m: ScheduledMatch) -> DuplicateResult:
        a, b = m.entries
        won = winner(a, b)
        return result(m, 0 if won is None else 10 if won == a else -10)

    return play


def strength(entries: Sequence[str]) -> Results:
    """The entry earlier in ``entries`` wins every deal."""
    return winner_scores(lambda a, b: a if entries.index(a) < entries.index(b) else b)


def random_results(seed: int) -> Results:
    """Each match won, drawn, lost, forfeited or not contested, at random: a function of
    ``seed`` and the match alone, so the same matches always get the same results."""

    def play(m: ScheduledMatch) -> DuplicateResult | None:
        rng = random.Random(f"{seed}-{m.match_id}")
        roll = rng.random()
        if roll < 0.03:
            return None
        if roll < 0.06:
            return result(m, 0, forfeit_by=rng.choice(m.entries))
        return result(m, rng.choice((-20, -5, 0, 5, 20)))

    return play


@dataclass
class Run:
    state: State
    matches: list[ScheduledMatch]
    """In the order handed out."""
    next_calls: int


def drive(fmt: Format, results: Results, room: int = 1000, absorb_seed: int | None = None) -> Run:
    """Hands out at most ``room`` matches at a time and feeds back their results: all of
    them at once, or (``absorb_seed``) a random share of those outstanding, shuffled."""
    rng = random.Random(absorb_seed)
    state, handed, out, calls = fmt.start(), [], [], 0
    while True:
        state, matches = fmt.next(state, room)
        calls += 1
        assert len(matches) <= room
        handed += matches
        out += [Played(m.match_id, results(m)) for m in matches]
        if not out and not matches:
            assert fmt.decided(state), "waits for results while none are outstanding"
            return Run(state, handed, calls)
        if absorb_seed is None:
            take, out = out, []
        else:
            rng.shuffle(out)
            cut = rng.randint(1 if not matches else 0, len(out))
            take, out = out[:cut], out[cut:]
        state = fmt.absorb(state, take)
        assert calls < 100_000


UNIT = re.compile(r"[A-Za-z0-9-]+")


def check_matches(fmt: Format, matches: Sequence[ScheduledMatch]) -> None:
    """Ids unique; each match one seating of a unit named by ``unit_matches``, whose seed
    derives from its deal key as the verifier expects."""
    f = fmt.field
    assert len({m.match_id for m in matches}) == len(matches)
    assert len(matches) == fmt.total()
    for m in matches:
        unit, half = m.match_id.removeprefix(f"{f.tournament_id}-")[:-2], m.match_id[-1]
        assert UNIT.fullmatch(unit) and half in "ab"
        assert m.deal_key == (unit if f.paired else f"{unit}-{half}")
        assert m.seed == deal_seed(f.master_seed, m.deal_key)
        assert m.pair_key == (f"{f.tournament_id}-{unit}" if f.paired else m.match_id)
        assert m.paired == f.paired and m.game in f.games


def tables(state: State) -> Any:
    """Swiss: per round, its pairs as (a, b) and its bye."""
    return [([(t["a"], t["b"]) for t in r["tables"]], r["bye"]) for r in state["rounds"]]


def pieces(make: Callable[[], Format], results: Results, rooms: Sequence[int]) -> Run:
    """Drive fresh formats with every window size in ``rooms`` and shuffled absorb
    orders; each must hand out exactly what one large window does, and end with the
    same standings. The one-window run."""
    whole = drive(make(), results)
    for room in rooms:
        for absorb_seed in (None, 1, 2):
            fmt = make()
            run = drive(fmt, results, room=room, absorb_seed=absorb_seed)
            assert run.matches == whole.matches
            assert fmt.standings(run.state) == make().standings(whole.state)
    check_matches(make(), whole.matches)
    return whole
