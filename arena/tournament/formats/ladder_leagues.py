"""A competition ladder's leagues (``arena.tournament.leagues`` has the rule).

With ``leagues`` in its parameters (``arena.competition.ladder.ladder_plan``), the ladder

- adds each league's boss to its lineup (``boss_entries``);
- keeps each version's league in its state (``"league"``: version -> its league's
  index, only for versions above the lowest), moving versions up as the pairs against
  their boss arrive (``promote``), never down;
- draws pairings only within a league: versions of one league with each other and with
  that league's boss, a boss with nobody else (``groups``; ``ladder._Board`` masks the
  rest, and its placement burst works league by league).

Without ``leagues`` none of this runs, and the ladder's state and draws are what they
were.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from arena.tournament.formats.base import State
from arena.tournament.leagues import Leagues, climb, league_of

if TYPE_CHECKING:
    from arena.store.bots import RegisteredBot
    from arena.tournament.spec import Entry, VersionLookup

LEAGUES = "leagues"
"""Parameter: the competition's leagues (``Leagues.to_json``)."""
KEY = "league"
"""The state's record of each version's league above the lowest."""


def read(params: Mapping[str, Any]) -> Leagues | None:
    """The leagues in a ladder's parameters; None without any."""
    given = params.get(LEAGUES)
    return Leagues.from_json(given) if given else None


def reached(state: State) -> dict[str, int]:
    """Each version's league so far (absent: the lowest)."""
    return dict(state.get(KEY, {}))


def groups(rules: Leagues, state: State, players: Sequence[str]) -> list[int]:
    """Each player's league, in order: only players of one league are paired."""
    now = reached(state)
    return [league_of(rules, now, p) for p in players]


def promote(rules: Leagues, state: State) -> State:
    """``state`` with every version that beats its league's boss moved up (in place:
    the ladder's ``absorb`` works on a copy)."""
    bosses = rules.bosses()
    counts = state["counts"]
    seen = {
        label
        for by_pair in counts.values()
        for a, by in by_pair.items()
        for label in (a, *by)
        if label not in bosses
    }
    now = reached(state)
    for version in sorted(seen):
        league = climb(rules, counts, version, now.get(version, 0))
        if league:
            now[version] = league
    if now:
        state[KEY] = now
    return state


def boss_entries(
    rules: Leagues, registered: Sequence[RegisteredBot], version_of: VersionLookup
) -> list[Entry]:
    """The bosses as entries, each the version its label names; a boss whose bot or
    version is gone is left out (nobody then moves past its league)."""
    from arena.tournament.spec import hosted_entry  # the spec imports the formats

    by_name = {bot.name: bot for bot in registered}
    found = []
    for label in rules.bosses():
        name, _, version = label.partition("@")
        bot = by_name.get(name)
        hosted = None if bot is None or not bot.hosted else version_of(name, version)
        if bot is not None and hosted is not None:
            found.append(hosted_entry(hosted, bot.author))
    return found
