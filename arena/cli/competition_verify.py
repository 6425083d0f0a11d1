"""``arena competition verify NAME``: checks a finished competition's final board from
what any reader can fetch, as ``arena tournament verify`` checks a tournament.

1. The final round robin verifies (``arena.tournament.verify``): it plays the
   competition's game options, its revealed seed hashes to the commitment the
   competition published as the final began (and to the one given with
   ``--commitment``, if any), every match's seed derives from it by the schedule's deal
   key, every record was played with its game's options and re-runs to its result, and
   the results hash to the digest published when it finished.
2. The frozen board was fitted from exactly those results: their count and digest are
   the board's.
3. The board is a refit of those results: the same function that froze it
   (``arena.competition.final_board.final_rows``) gives the same ranks, versions and
   counts, and ratings, intervals and LOS within the stated tolerances.

A result is read back into the stored form the fit takes (``result_of``): the fit reads
its game, entries, scores, ending, forfeit, pair and fair-play mode, all published.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence

from arena.cli.common import CliError
from arena.cli.connect import arena_api
from arena.cli.tournament import with_logs
from arena.competition.final import BEST_RATED, MARKED, NEWEST, FinalVersion
from arena.competition.final_board import TOLERANCE_ELO, TOLERANCE_LOS, differences, final_rows
from arena.competition.final_board import FinalRow as Row
from arena.store.results import MatchResult
from arena.tournament.digest import read_line, results_digest
from arena.tournament.fair_play import MODES, OPEN, duplicate
from arena.tournament.progress import result_end_name
from arena.tournament.verify import TournamentMismatch, verify_tournament
from arena.v1 import arena_pb2

CHOICES = {
    arena_pb2.FINAL_CHOICE_MARKED: MARKED,
    arena_pb2.FINAL_CHOICE_BEST_RATED: BEST_RATED,
    arena_pb2.FINAL_CHOICE_NEWEST: NEWEST,
}


class FinalMismatch(ValueError):
    """The first check that failed, said for a reader."""


def verify(args: argparse.Namespace) -> None:
    with arena_api(args) as api:
        competition = api.GetCompetition(
            arena_pb2.GetCompetitionRequest(name=args.name), timeout=10
        )
        final = competition.final_board.tournament_id
        tournament = (
            api.GetTournament(arena_pb2.GetTournamentRequest(id=final), timeout=10)
            if final
            else None
        )
        results = with_logs(api, final) if tournament and tournament.seed.revealed else []
    try:
        print(verify_final(competition, tournament, results, args.commitment))
    except (FinalMismatch, TournamentMismatch) as mismatch:
        raise CliError(f"competition {args.name} does not verify: {mismatch}") from None


def verify_final(
    competition: arena_pb2.Competition,
    tournament: arena_pb2.Tournament | None,
    results: Sequence[arena_pb2.MatchRecord],
    pinned: str = "",
) -> str:
    """One line when every check holds; else ``FinalMismatch`` or ``TournamentMismatch``."""
    name = competition.spec.name
    if not competition.HasField("final_board"):
        raise FinalMismatch(
            f"competition {name} has no final board yet: it is frozen when the final ends"
        )
    board = competition.final_board
    if tournament is None:
        if board.rows and any(r.rank for r in board.rows):
            raise FinalMismatch("the board ranks versions, but names no final that was played")
        return f"verified: competition {name} played no final (fewer than two versions met)"
    if tournament.id != competition.final_tournament_id:
        raise FinalMismatch(
            f"the board was fitted from tournament {tournament.id}, but the competition's final "
            f"is {competition.final_tournament_id}"
        )
    wanted = {g.game: dict(g.options) for g in competition.spec.games if g.options}
    played = {g: dict(o.options) for g, o in tournament.spec.game_options.items() if o.options}
    if played != wanted:
        raise FinalMismatch(
            f"the final plays game options {_options_text(played)}, but the competition's "
            f"are {_options_text(wanted)}"
        )
    published = competition.final_seed_commitment
    if pinned and published and pinned != published:
        raise FinalMismatch(
            f"seed commitment mismatch: {pinned} was published when the final began, but the "
            f"competition now shows {published}"
        )
    summary = verify_tournament(tournament, results, pinned=pinned or published)
    digest = results_digest(read_line(r) for r in results)
    if len(results) != board.matches or digest != board.results_digest:
        raise FinalMismatch(
            f"the board was fitted from {board.matches} results hashing to "
            f"{board.results_digest}, but the final has {len(results)} hashing to {digest}"
        )
    entries = set(tournament.spec.entries)
    versions = [_version(row) for row in board.rows]
    if {v.version for v in versions} != entries:
        raise FinalMismatch(
            f"the board lists {', '.join(sorted(v.version for v in versions))}, but the final's "
            f"entries are {', '.join(sorted(entries))}"
        )
    frozen = [_row(r) for r in board.rows]
    refit = final_rows([result_of(r, tournament) for r in results], versions, board.tie_los)
    different = differences(frozen, refit)
    if different is not None:
        raise FinalMismatch(f"the final board is not a refit of the final's results: {different}")
    ranked = sum(1 for r in frozen if r.rank)
    tied = sum(1 for r in frozen if r.tied_with_next)
    return (
        f"verified: competition {name}: {summary.removeprefix('verified: ')}; the final board "
        f"({ranked} ranked, {tied} adjacent {'pair' if tied == 1 else 'pairs'} tied under LOS "
        f"{board.tie_los:g}) is a refit of its {len(results)} results (Elo within "
        f"{TOLERANCE_ELO:g}, LOS within {TOLERANCE_LOS:g})"
    )


def _options_text(options: Mapping[str, Mapping[str, str]]) -> str:
    if not options:
        return "none (every game at its defaults)"
    return "; ".join(
        f"{game}: {', '.join(f'{n}={v}' for n, v in sorted(given.items()))}"
        for game, given in sorted(options.items())
    )


def result_of(record: arena_pb2.MatchRecord, tournament: arena_pb2.Tournament) -> MatchResult:
    """A published result in the stored form the fit reads (what is not published, such
    as the referee's address, left empty: the fit does not read it)."""
    mode = MODES.get(tournament.fair_play, OPEN)
    return MatchResult(
        match_id=record.match_id,
        tournament_id=tournament.id,
        game=record.game,
        pair_key=record.pair_key,
        deal=record.deal,
        seed=record.seed,
        entries=tuple(record.entries),
        scores=tuple(record.scores),
        winner_team=record.winner_team if record.HasField("winner_team") else None,
        end=result_end_name(record.end),
        forfeit_team=record.forfeit_team if record.HasField("forfeit_team") else None,
        team_faults=tuple(record.team_faults),
        team_fault_kinds=None,
        decisions=record.decisions,
        duration_ms=record.duration_ms,
        replay_id=record.replay_id,
        referee=record.referee,
        finished_at=None,
        deal_key=record.deal_key,
        paired=duplicate(mode),
        deal_commitment=record.deal_commitment,
        deal_salt=record.deal_salt,
        referee_match_id=record.referee_match_id,
        fair_play=mode,
        operator_seed=tournament.seed.source == arena_pb2.SEED_SOURCE_OPERATOR,
    )


def _version(row: arena_pb2.FinalBoardRow) -> FinalVersion:
    return FinalVersion(row.author, row.version, CHOICES.get(row.chosen, NEWEST))


def _row(row: arena_pb2.FinalBoardRow) -> Row:
    return Row(
        rank=row.rank,
        author=row.author,
        version=row.version,
        chosen=CHOICES.get(row.chosen, NEWEST),
        elo=row.elo,
        elo_ci95=row.elo_ci95,
        los_next=row.los_next,
        tied_with_next=row.tied_with_next,
        pairs=row.pairs,
        wins=row.wins,
        draws=row.draws,
        losses=row.losses,
        matches=row.matches,
        matches_won=row.matches_won,
        status=row.status,
    )
