"""A competition's ladder: the tournament its open phase plays, as a pure function of
its spec (``workers.competitions`` starts and stops it).

The ladder takes everything the spec says a match is (games and their options,
fair-play mode, partners, move deadline, time bank, faults) and restricts its lineup
with data the ladder format reads itself (``arena.tournament.formats.ladder``):
``competition`` (only competitors' versions, ``max_entries_per_author`` active ones
each) and ``placement`` (a new version's first rated outcomes come in a burst), and
``leagues`` when the rules have them (each league's boss joins, units are drawn within
a league: ``arena.tournament.leagues``).
Each game's options (``CompetitionSpec.games``) go to every match of that game
(``TournamentPlan.game_options``), as they do in the final.
"""

from __future__ import annotations

import hashlib

from arena.competition.spec import CompetitionSpec
from arena.tournament.fair_play import MasterSeed
from arena.tournament.formats.ladder import COMPETITION, PLACEMENT
from arena.tournament.formats.ladder_leagues import LEAGUES
from arena.tournament.spec import LADDER, TournamentPlan

PLACEMENT_OUTCOMES = 10
"""Rated outcomes (duplicate pairs, or matches rated alone) a new version plays first in
each game, in a burst: enough for a provisional rating whose 95% interval is within
about ±250 Elo (``bench/competition_placement.py``), half the board's ``MIN_PAIRS``."""


def ladder_id(spec: CompetitionSpec, created_at: float) -> str:
    """The ladder's tournament id: derived from the competition, so a worker that died
    between recording it and storing the tournament leaves the next one the same id."""
    digest = hashlib.sha256(f"competition {spec.name} {created_at!r}".encode()).hexdigest()
    return "t" + digest[:12]


def ladder_plan(spec: CompetitionSpec) -> TournamentPlan:
    """The ladder's spec, with a fresh master seed (committed to as every tournament's)."""
    rules = spec.rules
    params: dict[str, object] = {COMPETITION: spec.name, PLACEMENT: PLACEMENT_OUTCOMES}
    if rules.leagues is not None:
        params[LEAGUES] = rules.leagues.to_json()
    return TournamentPlan(
        entries=(),
        games=tuple(game for game, _ in spec.games),
        deals=1,
        move_deadline_ms=rules.move_deadline_ms,
        time_bank_ms=rules.time_bank_ms,
        max_faults=rules.max_faults,
        seed=MasterSeed.draw(),
        name=f"competition {spec.name}: open ladder",
        lineup={},
        fair_play=rules.fair_play,
        format=LADDER,
        format_params=params,
        partners=rules.partners,
        max_entries_per_author=rules.active_versions,
        game_options=spec.game_options(),
    )
