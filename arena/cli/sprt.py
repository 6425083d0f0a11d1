"""``arena test NEW --vs OLD``: a version test in the style of fishtest, run by the arena
as an SPRT tournament (``arena.tournament.formats.sprt``), with its LLR shown live."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from arena import wire
from arena.cli.common import CliError
from arena.cli.connect import arena_api
from arena.cli.tournament import FAIR_PLAY_CHOICES, summary
from arena.tournament.progress import VERDICTS, sprt_text
from arena.v1 import arena_pb2, arena_pb2_grpc


def version_test(args: argparse.Namespace) -> None:
    spec = arena_pb2.TournamentSpec(
        entries=[args.new, args.vs],
        games=[args.game],
        deals=1,
        move_deadline=wire.duration(args.deadline_ms / 1000),
        fair_play=FAIR_PLAY_CHOICES[args.fair_play],
        format=arena_pb2.FORMAT_SPRT,
        sprt=arena_pb2.SprtParams(
            elo0=args.elo0,
            elo1=args.elo1,
            alpha=args.alpha,
            beta=args.beta,
            max_units=args.max_units,
        ),
    )
    with arena_api(args) as api:
        tournament = api.SubmitTournament(arena_pb2.SubmitTournamentRequest(spec=spec), timeout=60)
        print(summary(tournament))
        last = follow_sprt(api, tournament.id)
    status = last.standings.sprt
    if last.state != arena_pb2.TOURNAMENT_STATE_FINISHED:
        raise CliError(f"test {last.id} stopped before a verdict: {summary(last)}")
    print(f"{args.new} vs {args.vs}: {sprt_text(status)}")
    print(_verdict(args.new, args.vs, status))
    if status.verdict != arena_pb2.SPRT_VERDICT_H1:  # a failed check: exit 1, as bot check
        raise CliError(f"{args.new} did not pass the test against {args.vs}")


def _verdict(new: str, old: str, s: arena_pb2.SprtStatus) -> str:
    bounds = f"[{s.params.elo0:g}, {s.params.elo1:g}]"
    if s.verdict == arena_pb2.SPRT_VERDICT_H1:
        return f"passed: H1 accepted, {new} is better than {old} by Elo {bounds} or more"
    if s.verdict == arena_pb2.SPRT_VERDICT_H0:
        return f"failed: H0 accepted, {new} is not better than {old} by Elo {bounds}"
    return f"{VERDICTS.get(s.verdict, 'pending')}: neither bound reached in {s.units} units"


def follow_sprt(api: arena_pb2_grpc.ArenaStub, tournament_id: str) -> arena_pb2.Tournament:
    """Show the LLR between its bounds as a bar until the test ends; the last update."""
    last = None
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
    ) as progress:
        task = progress.add_task(f"test {tournament_id}", total=1.0)
        for update in api.WatchTournament(arena_pb2.WatchTournamentRequest(id=tournament_id)):
            last = update
            if not update.standings.HasField("sprt"):
                continue
            s = update.standings.sprt
            span = (s.upper - s.lower) or 1.0
            progress.update(
                task,
                completed=min(max(s.llr - s.lower, 0.0), span) / span,
                description=sprt_text(s),
            )
    if last is None:
        raise CliError(f"test {tournament_id}: no progress received")
    return last
