"""A competition's final: which version of each author plays it, and the round robin
they play, as pure functions (``workers.competition_final`` starts it once).

Each competitor's final version, picked as submissions close:

1. the version they marked (``MarkFinalVersion``), if it is still one of their active
   versions (a mark picks among what plays: submitting a version that retires the marked
   one drops the mark);
2. else their best-rated active version on the open ladder's board, in the board's
   order (established before provisional, then by Elo: ``arena.ratings.board.ranked``),
   with leagues the one in the highest league first, as the competition's board ranks;
3. else (none of them rated) their newest active version.

The final is a round robin of those versions in the competition's games, played as
sealed duplicate pairs: every entry is a competitor's hosted version, so no bot can
remember one half in the other, whatever mode the open ladder played. Each game is
played with the competition's options for it, as on the open ladder. Partners, move
deadline, time bank and faults are the rules'. Its deals per pairing and game are
chosen as the versions are picked, from the open ladder's board
(``arena.competition.final_deals``): as many as adjacent ranks are predicted to need
to be separated at the rules' ``final_los``, within the budget, the rules'
``final_deals`` or fewer if that many would pass the arena's tournament limits
(``final_plan`` without deals gives that ceiling). The choice is recorded with the
versions, so every worker builds the same round robin.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from arena.competition.final_deals import DealsChoice, choose_deals
from arena.competition.spec import CompetitionSpec
from arena.ratings.board import Leaderboard, is_ranked
from arena.records import Fields, RecordError
from arena.tournament import formats
from arena.tournament.fair_play import SEALED, MasterSeed
from arena.tournament.spec import MAX_ENTRIES, MAX_MATCHES, Entry, TournamentPlan

MARKED = "marked"
BEST_RATED = "best rated"
NEWEST = "newest"
CHOICES = (MARKED, BEST_RATED, NEWEST)
"""How a final version was picked, in the order the rule tries them."""


@dataclass(frozen=True)
class FinalVersion:
    """One competitor's entry in the final."""

    author: str
    version: str
    """``name@version``, as tournaments name it."""
    chosen: str
    """One of ``CHOICES``."""

    def to_json(self) -> dict[str, str]:
        return {"author": self.author, "version": self.version, "chosen": self.chosen}

    @classmethod
    def from_json(cls, data: object) -> FinalVersion:
        f = Fields("final version", data if isinstance(data, Mapping) else {})
        return cls(
            f.text("author", empty=False), f.text("version", empty=False), f.text("chosen", CHOICES)
        )


def versions_json(versions: Sequence[FinalVersion]) -> str:
    return json.dumps([v.to_json() for v in versions])


def versions_from_json(text: str | bytes) -> tuple[FinalVersion, ...]:
    found = json.loads(text)
    if not isinstance(found, list):
        raise RecordError(f"final versions: expected a JSON list, got {type(found).__name__}")
    return tuple(FinalVersion.from_json(v) for v in found)


def choose(
    active: Mapping[str, Sequence[str]],
    marks: Mapping[str, str],
    board: Leaderboard | None,
    limit: int = MAX_ENTRIES,
    leagues: Mapping[str, int] | None = None,
) -> list[FinalVersion]:
    """Each author's final version (``active``: each competitor's active versions, newest
    first; ``marks``: the version each marked; ``board``: the open ladder's, if any;
    ``leagues``: with leagues, the league each version reached, by index), by author.
    Over ``limit`` authors (a tournament's most entries), those whose version stands
    highest on the board play, then by name: stated, since it leaves some out."""
    ranked = [row.bot for row in board.rows if is_ranked(row)] if board is not None else []
    if leagues:  # the highest league first, as the competition's board ranks them
        ranked.sort(key=lambda bot: -leagues.get(bot, 0))  # stable: the board's order within
    place = {bot: i for i, bot in enumerate(ranked)}
    chosen: list[FinalVersion] = []
    for author in sorted(active):
        labels = list(active[author])
        if not labels:
            continue
        mark = marks.get(author)
        rated = sorted((v for v in labels if v in place), key=place.__getitem__)
        if mark in labels:
            chosen.append(FinalVersion(author, str(mark), MARKED))
        elif rated:
            chosen.append(FinalVersion(author, rated[0], BEST_RATED))
        else:
            chosen.append(FinalVersion(author, labels[0], NEWEST))
    if len(chosen) > limit:
        kept = sorted(chosen, key=lambda v: (place.get(v.version, len(place)), v.author))[:limit]
        chosen = sorted(kept, key=lambda v: v.author)
    return chosen


def final_id(spec: CompetitionSpec, created_at: float) -> str:
    """The final's tournament id: derived from the competition, so two workers starting
    it at once name the same tournament, and ``only_new`` stores it once."""
    digest = hashlib.sha256(f"competition {spec.name} {created_at!r} final".encode()).hexdigest()
    return "t" + digest[:12]


def final_plan(
    spec: CompetitionSpec, lineup: Sequence[Entry], deals: int | None = None
) -> TournamentPlan:
    """The final round robin of ``lineup`` (the final versions as entries), ``deals``
    deals per pairing and game (None: the budget's ceiling, the rules' ``final_deals``),
    with a fresh master seed, committed to when it is stored as every tournament's is;
    ``total`` 0 when no two entries share a game (then there is no final to play). Over
    the tournament limits it plays as many deals as fit."""
    rules = spec.rules
    plan = TournamentPlan(
        entries=tuple(e.label for e in lineup),
        games=tuple(game for game, _ in spec.games),
        deals=min(deals, rules.final_deals) if deals else rules.final_deals,
        move_deadline_ms=rules.move_deadline_ms,
        time_bank_ms=rules.time_bank_ms,
        max_faults=rules.max_faults,
        seed=MasterSeed.draw(),
        name=f"competition {spec.name}: final",
        lineup={e.label: e for e in lineup},
        fair_play=SEALED,
        format=formats.ROUND_ROBIN,
        partners=rules.partners,
        max_entries_per_author=1,
        game_options=spec.game_options(),
    )
    total = formats.build("check", plan).total() or 0
    if total > MAX_MATCHES:  # as many deals as fit in the limit
        per_deal = total // plan.deals
        plan = replace(plan, deals=max(MAX_MATCHES // per_deal, 1))
        total = formats.build("check", plan).total() or 0
    return replace(plan, total=total)


def final_deals(
    spec: CompetitionSpec, lineup: Sequence[Entry], board: Leaderboard | None
) -> DealsChoice:
    """The final's deals for ``lineup``, chosen from the open ladder's ``board``
    (``arena.competition.final_deals``) within the budget ``final_plan`` gives."""
    ceiling = final_plan(spec, lineup)
    games = max(len(ceiling.played_games()), 1)
    labels = [e.label for e in lineup]
    return choose_deals(board, labels, games, ceiling.deals, spec.rules.final_los)
