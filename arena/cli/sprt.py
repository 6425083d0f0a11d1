"""``arena test NEW --vs OLD``: a version test in the style of fishtest, run by the arena
as an SPRT tournament (``arena.tournament.formats.sprt``), with its LLR shown live; with
``--local``, the same test played on this machine (``arena.tournament.local_sprt``)."""

from __future__ import annotations

import argparse
import os
import secrets
import time
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from arena import wire
from arena.cli.common import CliError, UsageError
from arena.cli.connect import arena_api
from arena.cli.tournament import FAIR_PLAY_CHOICES, summary
from arena.tournament.progress import VERDICTS, sprt_text
from arena.v1 import arena_pb2, arena_pb2_grpc

LOCAL_ONLY = ("workers", "seed")
NOT_LOCAL = ("api", "token", "token_file", "tls_ca", "fair_play", "deadline_ms")
PROGRESS_EVERY_S = 0.1


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def version_test(args: argparse.Namespace) -> None:
    if args.local:
        return local_test(args)
    given = [_flag(dest) for dest in LOCAL_ONLY if getattr(args, dest) is not None]
    if given:
        raise UsageError(f"{given[0]} is for --local tests only")
    for dest, default in args.remote_defaults.items():
        if getattr(args, dest) is None:
            setattr(args, dest, default)
    args.fair_play = args.fair_play or "open"
    args.deadline_ms = 1000 if args.deadline_ms is None else args.deadline_ms
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


def local_test(args: argparse.Namespace) -> None:
    from google.protobuf import json_format

    from arena.bots.named import BotLoadError, bot_factory
    from arena.tournament.formats.base import InvalidFormat
    from arena.tournament.local_sprt import BotFault, LocalTest, check, run

    given = [_flag(dest) for dest in NOT_LOCAL if getattr(args, dest) is not None]
    if given:
        raise UsageError(f"{given[0]} does not apply to --local tests")
    workers = os.cpu_count() or 1 if args.workers is None else args.workers
    if workers < 1:
        raise UsageError(f"--workers is 1 or more, got {workers}")
    for name in (args.new, args.vs):
        try:
            bot = bot_factory(name)()
        except BotLoadError as error:
            raise UsageError(str(error)) from None
        except Exception as error:  # the bot's constructor failed
            raise UsageError(f"bot {name!r} cannot be constructed: {error}") from None
        if bot.games and args.game not in bot.games:
            raise UsageError(f"bot {name!r} does not play {args.game} ({', '.join(bot.games)})")
    seed = secrets.randbelow(2**63) if args.seed is None else args.seed
    params = {
        "elo0": args.elo0,
        "elo1": args.elo1,
        "alpha": args.alpha,
        "beta": args.beta,
        "max_units": args.max_units,
    }
    test = LocalTest(args.game, args.new, args.vs, seed, workers, params)
    try:
        check(test)
    except (InvalidFormat, BotLoadError) as error:
        raise UsageError(str(error)) from None
    print(
        f"local test: {args.new} vs {args.vs} in {args.game}, duplicate pairs, seed {seed}, "
        f"{workers} {'worker' if workers == 1 else 'workers'}",
        flush=True,
    )
    console = Console(stderr=True)
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TimeElapsedColumn(),
        console=console,
        auto_refresh=False,  # no thread: the pool may fork
        transient=True,  # the result is printed below; a fault is one line
        disable=not console.is_terminal,  # a log gets the result lines only
    ) as progress:
        task = progress.add_task("local test", total=1.0)
        shown = [0.0]

        def show(sprt: dict[str, Any]) -> None:
            if time.monotonic() - shown[0] < PROGRESS_EVERY_S:
                return
            shown[0] = time.monotonic()
            _show(progress, task, json_format.ParseDict(sprt, arena_pb2.SprtStatus()))

        try:
            outcome = run(test, show if console.is_terminal else None)
        except BotFault as fault:
            raise CliError(str(fault)) from None
    status = json_format.ParseDict(outcome.sprt, arena_pb2.SprtStatus())
    rate = outcome.pairs / outcome.seconds if outcome.seconds else 0.0
    print(f"{outcome.pairs} duplicate pairs in {outcome.seconds:.1f} s ({rate:.1f} pairs/s)")
    print(f"{args.new} vs {args.vs}: {sprt_text(status)}")
    print(_verdict(args.new, args.vs, status))
    if status.verdict != arena_pb2.SPRT_VERDICT_H1:  # a failed check: exit 1, as bot check
        raise CliError(f"{args.new} did not pass the test against {args.vs}")


def _show(progress: Progress, task: Any, s: arena_pb2.SprtStatus) -> None:
    span = (s.upper - s.lower) or 1.0
    completed = min(max(s.llr - s.lower, 0.0), span) / span
    progress.update(task, completed=completed, description=sprt_text(s))
    progress.refresh()


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
