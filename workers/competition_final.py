"""Competitions' finals, started and frozen in every watchdog round (``workers.watchdog``,
after the phases and the ladders).

Once a competition's ``final`` phase is recorded, ``finals`` picks each competitor's
final version (``arena.competition.final.choose``: marked, else best-rated active on the
open ladder's board, else newest active), chooses the final's deals from the same board
(``arena.competition.final_deals``) and records them with the final's tournament id
on the competition in one script that writes only if nothing is recorded yet
(``CompetitionStore.start_final``): every worker then builds the same round robin from
what was recorded, and ``TournamentStore.create(..., only_new=True)`` stores it once,
with one secret seed, whose commitment is copied onto the competition. The same round's
scheduler steps hand out its first matches.

The final ends when its tournament does, or when the timeline's ``final_ends_at`` passes
(the clock records ``finished``; the final is then cancelled, and what finished
counts). Its board is frozen once no result can still arrive: the tournament finished,
or, cancelled, once no attempt at its matches holds a lease (its bookkeeping trimmed).
The board is written once (HSETNX) and never recomputed; a competition whose final
finished early is then recorded ``finished``. With fewer than two final versions (or no
game two of them play) no final is played, and the board (unranked) is frozen when the
timeline ends the final. A cancelled competition's running final is cancelled.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from arena.competition.final import choose, final_deals, final_id, final_plan
from arena.competition.final_board import FinalBoard, final_rows
from arena.competition.phases import CANCELLED, FINAL, FINISHED
from arena.ratings.leaderboard import leaderboard
from arena.store import BotRegistry
from arena.store.competitions import CompetitionRecord, CompetitionStore, Transition
from arena.store.packages import PackageStore
from arena.store.tournaments import CANCELLED as TOURNAMENT_CANCELLED
from arena.store.tournaments import RUNNING, TournamentRecord, TournamentStore
from arena.tournament.active_versions import by_author
from arena.tournament.digest import results_digest, stored_line
from arena.tournament.formats import ladder_leagues
from arena.tournament.spec import Entry, hosted_entry

log = logging.getLogger(__name__)


def finals(
    store: CompetitionStore,
    tournaments: TournamentStore,
    bots: BotRegistry,
    packages: PackageStore,
    clock: Callable[[], float] = time.time,
) -> list[tuple[str, str]]:
    """Start, stop and freeze the finals now due; (competition, what was done) for each
    thing this call did: "started", "cut short", "frozen", "finished"."""
    done: list[tuple[str, str]] = []
    for name in store.names():
        record = store.get(name)
        if record is None or record.final_board is not None:
            continue
        if record.phase == CANCELLED:
            if record.final and tournaments.state(record.final) == RUNNING:
                tournaments.set_state(record.final, TOURNAMENT_CANCELLED)
                done.append((name, "cut short"))
            continue
        if record.phase not in (FINAL, FINISHED):
            continue
        if record.final_versions is None:
            _pick(store, tournaments, bots, packages, record)
            record = store.get(name)
            if record is None or record.final_versions is None:
                continue
        done += [(name, step) for step in _follow(store, tournaments, packages, record, clock)]
    return done


def _pick(
    store: CompetitionStore,
    tournaments: TournamentStore,
    bots: BotRegistry,
    packages: PackageStore,
    record: CompetitionRecord,
) -> None:
    """Record the final versions, and the final's id and deals if two or more of them can
    meet."""
    spec = record.spec
    games = [game for game, _ in spec.games]
    active = by_author(
        bots.all(), packages.versions, set(record.competitors), spec.rules.active_versions, games
    )
    ladder = tournaments.get(record.ladder) if record.ladder else None
    board = leaderboard(tournaments.results(record.ladder)) if record.ladder else None
    reached = ladder_leagues.reached((ladder.scheduler or {}).get("format", {})) if ladder else {}
    labels = {author: [v.label for v in versions] for author, versions in active.items()}
    chosen = choose(labels, store.marks(record.name), board, leagues=reached)
    by_label = {v.label: v for versions in active.values() for v in versions}
    lineup = [hosted_entry(by_label[c.version], c.author) for c in chosen]
    plays = record.phase == FINAL and len(lineup) > 1 and bool(final_plan(spec, lineup).total)
    tournament_id = final_id(spec, record.created_at) if plays else ""
    deals = final_deals(spec, lineup, board) if plays else None
    store.start_final(record.name, tournament_id, chosen, deals)
    log.info(
        "competition %s: final versions %s; %s",
        record.name,
        [c.version for c in chosen],
        deals.reason if deals else "no final",
    )


def _lineup(record: CompetitionRecord, packages: PackageStore) -> list[Entry]:
    """The final versions as entries, from the store (a version removed since is left
    out)."""
    lineup = []
    for chosen in record.final_versions or ():
        name, _, label = chosen.version.partition("@")
        version = packages.version(name, label)
        if version is not None:
            lineup.append(hosted_entry(version, chosen.author))
    return lineup


def _follow(
    store: CompetitionStore,
    tournaments: TournamentStore,
    packages: PackageStore,
    record: CompetitionRecord,
    clock: Callable[[], float],
) -> list[str]:
    """Start the recorded final if it is not stored, stop it when its time is up, and
    freeze its board once no result can still arrive."""
    final = tournaments.get(record.final) if record.final else None
    if record.final and final is None and record.phase == FINAL:
        plan = final_plan(record.spec, _lineup(record, packages), record.final_deals or None)
        if plan.total and tournaments.create(
            record.final, plan, sorted(plan.played_games()), total=plan.total, only_new=True
        ):
            store.set_final_commitment(record.name, plan.commitment(record.final))
            log.info("competition %s: final %s started", record.name, record.final)
            return ["started"]
        return []
    if final is None:  # no final to play: the board waits for the timeline
        ended = record.phase == FINISHED
        return _freeze(store, tournaments, record, None, clock) if ended else []
    if not record.final_commitment:  # its starter died before copying it
        store.set_final_commitment(record.name, final.spec.published_commitment)
    if final.state == RUNNING:
        if record.phase != FINISHED:
            return []
        tournaments.set_state(final.id, TOURNAMENT_CANCELLED)  # its time is up
        log.info("competition %s: final %s cut short by the timeline", record.name, final.id)
        return ["cut short"]
    if final.state == TOURNAMENT_CANCELLED and final.attempts is None:
        return []  # an attempt may still store a result: wait until none holds a lease
    return _freeze(store, tournaments, record, final, clock)


def _freeze(
    store: CompetitionStore,
    tournaments: TournamentStore,
    record: CompetitionRecord,
    final: TournamentRecord | None,
    clock: Callable[[], float],
) -> list[str]:
    """Freeze the board from the final's results, then record ``finished`` if the clock
    has not already."""
    steps = []
    results = tournaments.results(final.id) if final else []
    logs = tournaments.match_logs(final.id, [r.match_id for r in results]) if final else []
    board = FinalBoard(
        tournament_id=final.id if final else "",
        frozen_at=clock(),
        matches=len(results),
        unplayed=max(final.total - len(results), 0) if final else 0,
        results_digest=(
            results_digest(stored_line(r, b) for r, b in zip(results, logs, strict=True))
            if final
            else ""
        ),
        rows=final_rows(results, record.final_versions or (), record.spec.rules.final_los),
        tie_los=record.spec.rules.final_los,
    )
    if store.freeze(record.name, board):
        log.info("competition %s: final board frozen (%d results)", record.name, len(results))
        steps.append("frozen")
    if record.phase == FINAL:
        now = clock()
        if store.advance(record.name, FINAL, Transition(FINISHED, now, now)):
            steps.append("finished")
    return steps
