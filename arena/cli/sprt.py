"""``arena test NEW --vs OLD``: a version test in the style of fishtest, run by the arena
as an SPRT tournament (``arena.tournament.formats.sprt``), with its LLR shown live; with
``--local``, the same test played on this machine (``arena.tournament.local_sprt``).

With ``--games N`` it is a fixed-length match instead, as cutechess's ``-games N``: exactly
N units (duplicate pairs, or matches in open play), then a strength report of won,
drawn and lost, the score, the Elo difference with its 95% interval and the likelihood
of superiority (``Strength``). The numbers are the project's own: the Elo estimate and
its interval are fishtest's plain estimate (``arena.ratings.sprt.elo_estimate``; a
fixed length has no stopping rule to bias it, unlike the SPRT's), the LOS
is ``arena.ratings.compare.los`` on the decisive units, as cutechess computes it. In the
arena the N units are a round robin of the two entries in the one game.
"""

from __future__ import annotations

import argparse
import math
import os
import secrets
import time
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from arena import wire
from arena.cli.common import CliError, UsageError, parse_options
from arena.cli.connect import arena_api
from arena.cli.tournament import FAIR_PLAY_CHOICES, progress_bar, summary
from arena.ratings.compare import los
from arena.ratings.duplicate import DuplicateResult, pair_outcomes
from arena.ratings.sprt import elo_estimate
from arena.tournament.progress import VERDICTS, sprt_text
from arena.v1 import arena_pb2, arena_pb2_grpc
from arena.wording import count

LOCAL_ONLY = ("workers", "seed")
NOT_LOCAL = ("api", "token", "token_file", "tls_ca", "fair_play", "deadline_ms")
SPRT_DEFAULTS = {"elo0": 0.0, "elo1": 5.0, "alpha": 0.05, "beta": 0.05, "max_units": 0}
"""The SPRT's flags, unset unless given (so that --games can refuse them); 0 units: the
format's own default."""
PROGRESS_EVERY_S = 0.1
RESULTS_PAGE = 1000


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def version_test(args: argparse.Namespace) -> None:
    if args.games is not None:
        given = [_flag(dest) for dest in SPRT_DEFAULTS if getattr(args, dest) is not None]
        if given:
            raise UsageError(f"{given[0]} is for the SPRT; --games plays a fixed number")
        if args.games < 1:
            raise UsageError(f"--games is 1 or more, got {args.games}")
    for dest, default in SPRT_DEFAULTS.items():
        if getattr(args, dest) is None:
            setattr(args, dest, default)
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
    if args.games is not None:
        return fixed_test(args)
    spec = arena_pb2.TournamentSpec(
        entries=[args.new, args.vs],
        games=[args.game],
        game_options=_game_options(args),
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


def _game_options(args: argparse.Namespace) -> dict[str, arena_pb2.GameOptions]:
    """``--option`` flags as the spec's: the API checks them against the game's."""
    options = parse_options(args.option)
    return {args.game: arena_pb2.GameOptions(options=options)} if options else {}


def local_test(args: argparse.Namespace) -> None:
    from google.protobuf import json_format

    from arena.bots.named import BotLoadError, bot_factory
    from arena.games.api import OptionError
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
    options = parse_options(args.option)
    test = LocalTest(args.game, args.new, args.vs, seed, workers, params, args.games, options)
    try:
        check(test)
    except (InvalidFormat, BotLoadError, OptionError) as error:
        raise UsageError(str(error)) from None
    named = ", ".join(f"{name}={value}" for name, value in sorted(options.items()))
    played = f"{args.game} ({named})" if named else args.game
    pairs = "duplicate pairs" if args.games is None else count(args.games, "duplicate pair")
    print(
        f"local test: {args.new} vs {args.vs} in {played}, {pairs}, seed {seed}, "
        f"{count(workers, 'worker')}",
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
        task = progress.add_task("local test", total=1.0 if args.games is None else args.games)
        shown = [0.0]

        def show(sprt: dict[str, Any]) -> None:
            if time.monotonic() - shown[0] < PROGRESS_EVERY_S:
                return
            shown[0] = time.monotonic()
            status = json_format.ParseDict(sprt, arena_pb2.SprtStatus())
            if args.games is None:
                _show(progress, task, status)
                return
            done = status.wins + status.draws + status.losses
            found = Strength(status.wins, status.draws, status.losses)
            progress.update(task, completed=done, description=found.elo_text())
            progress.refresh()

        try:
            outcome = run(test, show if console.is_terminal else None)
        except BotFault as fault:
            raise CliError(str(fault)) from None
    status = json_format.ParseDict(outcome.sprt, arena_pb2.SprtStatus())
    rate = outcome.pairs / outcome.seconds if outcome.seconds else 0.0
    print(f"{outcome.pairs} duplicate pairs in {outcome.seconds:.1f} s ({rate:.1f} pairs/s)")
    if args.games is not None:
        found = Strength(status.wins, status.draws, status.losses)
        for line in found.lines(args.new, args.vs, "duplicate pair"):
            print(line)
        return
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


# --- a fixed number of games ----------------------------------------------------------


@dataclass(frozen=True)
class Strength:
    """What a fixed-length match says about NEW against OLD, from its units' outcomes."""

    wins: int
    draws: int
    losses: int

    @property
    def units(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """NEW's mean score per unit: 1 a win, 1/2 a draw."""
        return (self.wins + self.draws / 2) / self.units if self.units else 0.5

    @property
    def elo(self) -> tuple[float, float]:
        """NEW's Elo over OLD and the half-width of its 95% interval: the SPRT's estimate
        (an outcome not seen yet counts as half a unit, so a clean sweep stays finite)."""
        return elo_estimate(self.wins, self.draws, self.losses)

    @property
    def los(self) -> float:
        """The chance that NEW is the stronger, from the decisive units, as cutechess:
        Phi((W - L) / sqrt(W + L))."""
        return los(self.wins - self.losses, math.sqrt(self.wins + self.losses))

    def elo_text(self) -> str:
        elo, ci95 = self.elo
        elo += 0.0  # an even score's -0.0 reads +0.0
        return f"Elo {elo:+.1f} ± {ci95:.1f} (95%), LOS {self.los:.1%}"

    def lines(self, new: str, old: str, unit: str) -> list[str]:
        """The report, as cutechess prints it after ``-games N``."""
        if not self.units:
            return [f"{new} vs {old}: no {unit} could be rated"]
        return [
            f"{new} vs {old}, {count(self.units, unit)}: won {self.wins}, drawn {self.draws}, "
            f"lost {self.losses}; score {self.score:.1%}",
            f"Elo difference {self.elo_text().removeprefix('Elo ')}, "
            f"draw ratio {self.draws / self.units:.1%}",
        ]


def fixed_test(args: argparse.Namespace) -> None:
    """``--games N`` in the arena: a round robin of NEW and OLD in the one game, N units."""
    from arena.tournament.spec import MAX_DEALS

    paired = args.fair_play != "open"
    unit = "duplicate pair" if paired else "match"
    if not paired and args.games % 2:
        raise UsageError(
            f"--games counts matches in open play, each deal played in both seatings: give "
            f"an even number (got {args.games}), or --fair-play trusted for duplicate pairs"
        )
    deals = args.games if paired else args.games // 2
    if deals > MAX_DEALS:
        most = MAX_DEALS if paired else 2 * MAX_DEALS
        raise UsageError(f"--games is at most {count(most, unit)} in the arena, got {args.games}")
    spec = arena_pb2.TournamentSpec(
        entries=[args.new, args.vs],
        games=[args.game],
        game_options=_game_options(args),
        deals=deals,
        move_deadline=wire.duration(args.deadline_ms / 1000),
        fair_play=FAIR_PLAY_CHOICES[args.fair_play],
        format=arena_pb2.FORMAT_ROUND_ROBIN,
    )
    with arena_api(args) as api:
        tournament = api.SubmitTournament(arena_pb2.SubmitTournamentRequest(spec=spec), timeout=60)
        print(summary(tournament))
        last = progress_bar(api, tournament.id, "test")
        if last is None:
            raise CliError(f"test {tournament.id}: no progress received")
        if last.state != arena_pb2.TOURNAMENT_STATE_FINISHED:
            raise CliError(f"test {last.id} stopped before its last match: {summary(last)}")
        records = _results(api, tournament.id)
    found, void = tally(records, args.new, args.vs)
    if void:
        print(f"{count(void, unit)} without a result (no contest), not rated")
    for line in found.lines(args.new, args.vs, unit):
        print(line)


def _results(api: arena_pb2_grpc.ArenaStub, tournament_id: str) -> list[arena_pb2.MatchRecord]:
    """Every stored result of an ended tournament, a page at a time."""
    records: list[arena_pb2.MatchRecord] = []
    token = ""
    while True:
        page = api.ListResults(
            arena_pb2.ListResultsRequest(
                tournament_id=tournament_id, page_size=RESULTS_PAGE, page_token=token
            ),
            timeout=60,
        )
        records.extend(page.results)
        token = page.next_page_token
        if not token:
            return records


def _side(entry: str, new: str, old: str) -> str | None:
    """Which of NEW and OLD a result's entry is: the one it names, else the one it is a
    version of (``bot@v2`` for ``bot``), else the one naming a version of it."""
    if entry in (new, old):
        return entry
    for name in (new, old):
        if entry.startswith(name + "@") or name.startswith(entry + "@"):
            return name
    return None


def tally(records: list[arena_pb2.MatchRecord], new: str, old: str) -> tuple[Strength, int]:
    """NEW's wins, draws and losses over the rated units of ``records`` (a pair's two
    halves share their ``pair_key``; in open play each match is its own unit), scored as
    the arena rates them (``arena.ratings.duplicate``); and the units left without a
    result (a half with no contest voids its pair)."""
    halves: dict[str, list[DuplicateResult | None]] = {}
    for r in records:
        if len(r.entries) != 2 or len(r.scores) != 2:
            continue
        a, b = (_side(entry, new, old) for entry in r.entries)
        if a is None or b is None or a == b:
            raise CliError(f"result {r.match_id} is not between {new} and {old}: {list(r.entries)}")
        paired = r.pair_key != r.match_id
        unit: DuplicateResult | None = None
        if r.end != arena_pb2.RESULT_END_NO_CONTEST:
            forfeit = (a, b)[r.forfeit_team] if r.HasField("forfeit_team") else None
            margin = r.scores[0] - r.scores[1]
            unit = DuplicateResult(r.pair_key, a, b, margin, forfeit, paired)
        halves.setdefault(r.pair_key, []).append(unit)
    rated = [h for h in halves.values() if None not in h]
    outcomes = pair_outcomes(u for h in rated for u in h if u is not None)
    scores = [o.score if o.a == new else 1.0 - o.score for o in outcomes]
    found = Strength(scores.count(1.0), scores.count(0.5), scores.count(0.0))
    return found, len(halves) - len(outcomes)
