"""Who played a match, made explicit: each side is a team of seats, each seat a bot.

In a game of two partnerships (``GameInfo.seat_teams`` ``(0, 1, 0, 1)``) seats 0 and 2 are partners
against seats 1 and 3. Today both seats of a team are held by one bot, the team's entry,
so a team has one member; a format that pairs bots with different partners would give
two-member teams. The Elo rates entries; a team model (``arena.ratings.skill``) rates a
team's members, so the same code rates individuals whoever their partners were.

A stored result names the bot in each seat (``MatchResult.seat_bots``) when a team's
seats are held by different bots (a later format); without it every seat of team ``t``
is ``entries[t]``, which is what the arena stores today.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from arena.games.api import UnknownGameError
from arena.games.registry import get_game
from arena.ratings.duplicate import DuplicateResult, keyed_outcomes

if TYPE_CHECKING:
    from arena.store.results import MatchResult

SEPARATOR = " & "
"""Between the members in a team's label: ``ace & bee``."""


@dataclass(frozen=True)
class Team:
    """One side of a match."""

    seats: tuple[tuple[int, str], ...]
    """``(seat, bot)`` for each of the team's seats, by seat."""

    @property
    def members(self) -> tuple[str, ...]:
        """The distinct bots that played for the team, sorted: who a team model rates."""
        return tuple(sorted({bot for _, bot in self.seats}))

    @property
    def label(self) -> str:
        """One name for the team: the bot's own name for a one-member team, so a
        one-member team's units are exactly the Elo's."""
        return SEPARATOR.join(self.members)


@dataclass(frozen=True, order=True)
class TeamOutcome:
    """One rated unit between two teams: ``score`` is 1 if ``a`` won, 0.5 for a draw,
    0 if ``b`` won (as ``arena.ratings.elo.Outcome``)."""

    key: str
    """The unit's pair key: what a sequential model orders the units by."""
    a: tuple[str, ...]
    """Team ``a``'s members."""
    b: tuple[str, ...]
    score: float


def seat_teams(game: str, seats: int = 2) -> tuple[int, ...]:
    """Which team each seat is on. A game this process does not know (a test's, an
    engine since removed) is taken as ``seats`` seats alternating between two teams,
    the layout of every game the arena has."""
    try:
        return get_game(game).info.seat_teams
    except UnknownGameError:
        return tuple(seat % 2 for seat in range(seats))


def match_teams(result: MatchResult) -> tuple[Team, Team]:
    """The two teams of a stored result, team 0 first."""
    seated = result.seat_bots
    layout = seat_teams(result.game, len(seated) if seated else 2)
    if seated is not None and len(seated) != len(layout):
        raise ValueError(f"{len(seated)} seat bots for {len(layout)} seats")
    bots = seated or [result.entries[team] for team in layout]
    sides: list[list[tuple[int, str]]] = [[], []]
    for seat, (team, bot) in enumerate(zip(layout, bots, strict=True)):
        sides[team].append((seat, bot))
    return Team(tuple(sides[0])), Team(tuple(sides[1]))


def team_outcomes(results: Iterable[MatchResult]) -> list[TeamOutcome]:
    """One outcome per complete unit, decided as the Elo's are (``pair_outcomes``):
    a duplicate pair by its total margin or a forfeit, a match rated alone by its own.

    The two halves of a duplicate pair seat the same two teams, swapped; a pair whose
    halves do not is an error in the format that scheduled it, and raises ValueError.
    """
    halves: list[DuplicateResult] = []
    members: dict[str, tuple[str, ...]] = {}
    sides: dict[str, set[frozenset[str]]] = defaultdict(set)
    for result in results:
        if result.end == "no_contest":
            continue
        teams = match_teams(result)
        for team in teams:
            members[team.label] = team.members
        a, b = (team.label for team in teams)
        forfeit = result.forfeit_team
        halves.append(
            DuplicateResult(
                pair_key=result.pair_key,
                a=a,
                b=b,
                margin=result.margin,
                forfeit_by=None if forfeit is None else teams[forfeit].label,
                paired=result.paired,
            )
        )
        sides[result.pair_key].add(frozenset((a, b)))
    mixed = sorted(key for key, seen in sides.items() if len(seen) > 1)
    if mixed:
        raise ValueError(f"the halves of pair {mixed[0]} seat different teams")
    return [
        TeamOutcome(key, members[o.a], members[o.b], o.score) for key, o in keyed_outcomes(halves)
    ]


def players(results: Iterable[MatchResult]) -> list[str]:
    """Every bot that held a seat in ``results``, sorted."""
    return sorted({bot for r in results for team in match_teams(r) for bot in team.members})
