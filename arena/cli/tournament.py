"""``arena tournament run|status|resume|cancel|list|results``, ``arena leaderboard [serve]``
(``--history BOT`` for a bot's rating over time)."""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

from google.protobuf import json_format
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from arena import wire
from arena.cli.common import CliError, UsageError, loading
from arena.cli.connect import arena_api, token_from_flags
from arena.cli.parsers import READ_TOKEN_ENV
from arena.cli.parsers import game as game_name
from arena.cli.parsers.tournament import FAIR_PLAY, FORMAT_FLAGS, FORMATS, PARTNERS
from arena.ratings.texts import (
    bootstrap_text,
    cell_text,
    elo_text,
    every_row,
    interval_text,
    point_text,
    rank_text,
    ranking_text,
    rating_text,
    rows_under,
    standing_text,
    status_text,
)
from arena.tournament import formats
from arena.tournament.progress import (
    STATE_NAMES,
    bracket_lines,
    fairness,
    format_text,
    held_up_text,
    result_end_name,
    shown_standings,
    sprt_text,
    swiss_lines,
)
from arena.v1 import arena_pb2, arena_pb2_grpc
from arena.wording import count, printable

LOG_PAGE = 200
"""Results read at once with their records."""
FAIR_PLAY_CHOICES = {
    name: arena_pb2.FairPlay.Value(f"FAIR_PLAY_{name.upper()}") for name in FAIR_PLAY
}
PARTNERS_CHOICES = {name: arena_pb2.Partners.Value(f"PARTNERS_{name.upper()}") for name in PARTNERS}
FORMAT_CHOICES = {name: formats.get(name).proto for name in FORMATS}


def _given(args: argparse.Namespace, dest: str) -> bool:
    value = getattr(args, dest)
    return value is not None and value != []


def _format_params(args: argparse.Namespace) -> tuple[type[formats.Format], dict[str, Any]]:
    """The chosen format and the parameters its flags set (``Format.cli_params``). A flag
    of another format (the first in ``--help``'s order), then a flag of its own left out,
    is a usage error."""
    chosen = formats.get(args.format)
    takes = {p.flag: (f, p) for f in formats.FORMATS.values() for p in f.cli_params}
    for flag, _ in FORMAT_FLAGS:
        owner, param = takes[flag]
        if owner is not chosen and _given(args, param.dest):
            raise UsageError(f"{flag} is for --format {owner.name}")
    for param in chosen.cli_params:
        if not _given(args, param.dest):
            raise UsageError(f"--format {chosen.name} needs {param.needs}")
    return chosen, {p.field: getattr(args, p.dest) for p in chosen.cli_params}


def _spec(args: argparse.Namespace) -> arena_pb2.TournamentSpec:
    chosen, params = _format_params(args)
    spec = arena_pb2.TournamentSpec(
        entries=args.entry,
        games=args.game,
        deals=args.deals,
        move_deadline=wire.duration(args.deadline_ms / 1000),
        time_bank=wire.duration(args.time_bank_ms / 1000) if args.time_bank_ms else None,
        max_faults=args.max_faults,
        master_seed=args.seed,
        name=args.name,
        fair_play=FAIR_PLAY_CHOICES[args.fair_play],
        partners=PARTNERS_CHOICES[args.partners]
        if args.partners
        else arena_pb2.PARTNERS_UNSPECIFIED,
        max_entries_per_author=args.max_entries_per_author,
        broadcast_delay=wire.duration(args.broadcast_delay) if args.broadcast_delay else None,
        format=FORMAT_CHOICES[args.format],
    )
    if params and chosen.params_field:
        message = getattr(spec, chosen.params_field)
        message.SetInParent()
        json_format.ParseDict(params, message)
    for name, options in game_options(args.option).items():
        spec.game_options[name].options.update(options)
    return spec


def game_options(flags: Sequence[str]) -> dict[str, dict[str, str]]:
    """``--option GAME:NAME=VALUE`` flags by game (its canonical name); the API checks
    that the tournament plays the game and that the game has the option and the value."""
    found: dict[str, dict[str, str]] = {}
    for flag in flags:
        typed, colon, pair = flag.partition(":")
        name, equals, value = pair.partition("=")
        if not (colon and typed and equals and name):
            raise UsageError(
                f"--option takes GAME:NAME=VALUE (`arena games` lists the options), got {flag!r}"
            )
        try:
            canonical = game_name(typed)
        except argparse.ArgumentTypeError as error:
            raise UsageError(f"--option {flag}: {error}") from None
        found.setdefault(canonical, {})[name] = value
    return found


def games_text(t: arena_pb2.Tournament) -> str:
    """The games it plays, each with the options it gives it: ``GAME (NAME=VALUE)``."""
    shown = []
    for name in t.games:
        options = t.spec.game_options[name].options if name in t.spec.game_options else {}
        given = ", ".join(f"{n}={v}" for n, v in sorted(options.items()))
        shown.append(f"{name} ({given})" if given else name)
    return ", ".join(shown)


def summary(t: arena_pb2.Tournament) -> str:
    waiting = held_up_text(t)
    total = t.matches_total or "?"
    return (
        f"tournament {t.id} ({STATE_NAMES.get(t.state, '?')}, {format_text(t)}): "
        f"{t.matches_done}/{total} matches, {count(t.forfeits, 'forfeit')}; "
        f"entries {', '.join(t.spec.entries) or 'every registered bot that plays its games'}; "
        f"games {games_text(t)}; {fairness(t)}" + (f"; {waiting}" if waiting else "")
    )


def verify(args: argparse.Namespace) -> None:
    from arena.tournament.verify import TournamentMismatch, verify_tournament

    with arena_api(args) as api:
        tournament = api.GetTournament(arena_pb2.GetTournamentRequest(id=args.id), timeout=10)
        # The records are published with the seed: verify says so if it is not yet.
        results = with_logs(api, args.id) if tournament.seed.revealed else []
    try:
        print(verify_tournament(tournament, results, pinned=args.commitment))
    except TournamentMismatch as mismatch:
        raise CliError(f"tournament {args.id} does not verify: {mismatch}") from None


def with_logs(api: arena_pb2_grpc.ArenaStub, tournament_id: str) -> list[arena_pb2.MatchRecord]:
    """Every result with its record, a page at a time: records of a big tournament
    would not fit in one message."""
    results: list[arena_pb2.MatchRecord] = []
    token = ""
    while True:
        page = api.ListResults(
            arena_pb2.ListResultsRequest(
                tournament_id=tournament_id, page_size=LOG_PAGE, page_token=token, with_logs=True
            ),
            timeout=60,
        )
        results.extend(page.results)
        token = page.next_page_token
        if not token:
            return results


def run(args: argparse.Namespace) -> None:
    spec = _spec(args)  # the command line's own mistakes first, before any connection
    with arena_api(args) as api:
        tournament = api.SubmitTournament(arena_pb2.SubmitTournamentRequest(spec=spec), timeout=60)
        print(tournament.id if args.quiet else summary(tournament))
        if args.wait:
            follow(api, tournament.id, quiet=args.quiet)


def progress_bar(
    api: arena_pb2_grpc.ArenaStub, tournament_id: str, label: str, quiet: bool = False
) -> arena_pb2.Tournament | None:
    """The tournament's matches as a bar on stderr, with what holds it up, until it ends;
    its last update (None if none came)."""
    last = None
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True, quiet=quiet),
    ) as progress:
        task = progress.add_task(f"{label} {tournament_id}", total=None)
        for update in api.WatchTournament(arena_pb2.WatchTournamentRequest(id=tournament_id)):
            waiting = held_up_text(update)
            progress.update(
                task,
                total=update.matches_total,
                completed=update.matches_done,
                description=f"{label} {tournament_id}" + (f": {waiting}" if waiting else ""),
            )
            last = update
    return last


def follow(api: arena_pb2_grpc.ArenaStub, tournament_id: str, quiet: bool = False) -> None:
    """Progress until the tournament ends, then its standings and leaderboard (``quiet``:
    nothing, unless it did not finish)."""
    last = progress_bar(api, tournament_id, "tournament", quiet)
    if last is None or last.state != arena_pb2.TOURNAMENT_STATE_FINISHED:
        raise CliError(
            f"tournament {tournament_id} stopped: {summary(last) if last else 'no progress'}"
        )
    if quiet:
        return
    print(summary(last))
    print_standings(last)
    board = api.GetLeaderboard(
        arena_pb2.GetLeaderboardRequest(tournament_id=tournament_id), timeout=60
    )
    print_leaderboard(board)


def status(args: argparse.Namespace) -> None:
    with arena_api(args) as api:
        tournament = api.GetTournament(arena_pb2.GetTournamentRequest(id=args.id), timeout=10)
    print(summary(tournament))
    print_standings(tournament)


def print_standings(t: arena_pb2.Tournament) -> None:
    """The format's own view, printed as what it is: Swiss rounds and table, the bracket,
    the SPRT's verdict, the entries a ladder has suspended."""
    shown = shown_standings(t.standings)
    if isinstance(shown, arena_pb2.SwissStandings):
        for line in swiss_lines(shown):
            print(line)
        table = Table("rank", "entry", "points", "buchholz", "units", title="swiss standings")
        for row in shown.table:
            table.add_row(
                str(row.rank), row.entry, f"{row.points:g}", f"{row.buchholz:g}", f"{row.units:g}"
            )
        Console().print(table)
        print(f"tie-breaks: {shown.tie_break}")
    elif isinstance(shown, arena_pb2.KnockoutBracket):
        for line in bracket_lines(shown):
            print(line)
    elif isinstance(shown, arena_pb2.SprtStatus):
        print(f"sprt: {sprt_text(shown)}")
    elif isinstance(shown, arena_pb2.LadderStandings):
        for line in suspended_lines(shown):
            print(line)


def suspended_lines(ladder: arena_pb2.LadderStandings) -> list[str]:
    """The entries a ladder does not pair for now, and why (its ranking is its board)."""
    if not ladder.suspended:
        return []
    lines = [
        f"suspended (each one's last {ladder.suspend_after} matches were all forfeited or "
        "faulted by it; paired again once it answers Hello):"
    ]
    for s in ladder.suspended:
        since = s.since.ToDatetime().strftime("%Y-%m-%d %H:%M:%S UTC")
        hello = s.probe_from.ToDatetime().strftime("%Y-%m-%d %H:%M:%S UTC")
        every = s.probe_every.ToTimedelta().total_seconds()
        lines.append(
            f"  {printable(s.entry)}: since {since}: {printable(s.reason)}; Hello asked from "
            f"{hello}, every {every:g} s"
        )
    return lines


def resume(args: argparse.Namespace) -> None:
    with arena_api(args) as api:
        print(
            summary(api.ResumeTournament(arena_pb2.ResumeTournamentRequest(id=args.id), timeout=60))
        )
        if args.wait:
            follow(api, args.id)


def cancel(args: argparse.Namespace) -> None:
    with arena_api(args) as api:
        print(
            summary(api.CancelTournament(arena_pb2.CancelTournamentRequest(id=args.id), timeout=10))
        )


def live(args: argparse.Namespace) -> None:
    """The matches being played, with their pages: what to open to watch one."""
    if not 0 <= args.wait <= 3600:
        raise SystemExit(f"arena: --wait must be 0 to 3600 seconds, not {args.wait:g}")
    deadline = time.monotonic() + args.wait
    request = arena_pb2.ListLiveMatchesRequest(tournament_id=args.id)
    with arena_api(args) as api:
        while True:
            reply = api.ListLiveMatches(request, timeout=10)
            if reply.matches or time.monotonic() >= deadline:
                break
            time.sleep(0.2)
    for match in reply.matches:
        print(
            f"{match.match_id}  {match.game}  {' vs '.join(match.entries)}  "
            f"/live/{match.tournament_id}/{match.match_id}"
        )
    if reply.withheld:
        print(f"({reply.withheld} more being played, not shown until their deals may be)")
    if not reply.matches and not reply.withheld:
        print(
            f"no match of {args.id} is being played"
            + (f" (waited {args.wait:g} s)" if args.wait else "")
        )


def list_tournaments(args: argparse.Namespace) -> None:
    with arena_api(args) as api:
        tournaments = api.ListTournaments(
            arena_pb2.ListTournamentsRequest(), timeout=10
        ).tournaments
    if not tournaments:
        print("no tournaments")
    for t in tournaments:
        print(summary(t))


RESULT_COLUMNS = (
    "match_id",
    "game",
    "pair_key",
    "deal",
    "seed",
    "entry_0",
    "entry_1",
    "score_0",
    "score_1",
    "winner_team",
    "end",
    "forfeit_team",
    "faults_0",
    "faults_1",
    "decisions",
    "duration_ms",
    "replay_id",
    "referee",
)


def collusion(args: argparse.Namespace) -> None:
    with arena_api(args) as api:
        report = api.GetCollusionReport(
            arena_pb2.GetCollusionReportRequest(tournament_id=args.id), timeout=120
        )
    flagged = [p for p in report.pairs if p.flagged]
    shown = list(report.pairs) if args.all else flagged
    print(
        f"tournament {report.tournament_id}{' (so far)' if report.partial else ''}: "
        f"{count(len(report.pairs), 'pair')} of entries met, {len(flagged)} flagged "
        f"(|z| >= {report.flag_z:g} on at least {report.min_outcomes} rated outcomes)"
    )
    if not shown:
        return
    table = Table("game", "below", "above", "outcomes", "W-D-L", "score", "expected", "z", "flag")
    for p in shown:
        record = (
            f"{p.wins}-{p.draws}-{p.losses}" if p.a == p.below else f"{p.losses}-{p.draws}-{p.wins}"
        )
        score = p.score if p.a == p.below else p.outcomes - p.score
        expected = (
            ""
            if not p.HasField("expected")
            else (f"{p.expected if p.a == p.below else p.outcomes - p.expected:.1f}")
        )
        table.add_row(
            p.game,
            p.below,
            p.above,
            str(p.outcomes),
            record,
            f"{score:g}",
            expected,
            f"{-abs(p.z):+.2f}" if p.HasField("z") else "",  # from the view of `below`
            "FLAGGED" if p.flagged else "",
        )
    Console().print(table)
    print(
        "below: the entry that scored under what its other results predict against this "
        "opponent (a possible thrower); a flag is a reason to read the replays, not a verdict"
    )


def results(args: argparse.Namespace) -> None:
    with arena_api(args) as api:
        records = api.ListResults(
            arena_pb2.ListResultsRequest(tournament_id=args.id), timeout=60
        ).results
    if not args.csv:
        rows = [
            json_format.MessageToDict(
                r, always_print_fields_with_no_presence=True, preserving_proto_field_name=True
            )
            for r in records
        ]
        print(json.dumps(rows, indent=1))
        return
    out = csv.writer(sys.stdout)
    out.writerow(RESULT_COLUMNS)
    for r in records:
        end = result_end_name(r.end)
        out.writerow(
            [
                r.match_id,
                r.game,
                r.pair_key,
                r.deal if r.HasField("deal") else "",
                r.seed if r.HasField("seed") else "",
                *r.entries,
                *r.scores,
                r.winner_team if r.HasField("winner_team") else "",
                end,
                r.forfeit_team if r.HasField("forfeit_team") else "",
                *r.team_faults,
                r.decisions,
                r.duration_ms,
                r.replay_id,
                r.referee,
            ]
        )


def _openskill(row: arena_pb2.LeaderboardRow, places: int) -> tuple[str, ...]:
    values = (row.openskill_mu, row.openskill_sigma, row.openskill_ordinal)
    return tuple(f"{v:.{places}f}" for v in values)


def _has_openskill(board: arena_pb2.Leaderboard) -> bool:
    """Whether the board was asked for with OpenSkill: a rated sigma is never 0."""
    return any(row.openskill_sigma for row in board.rows)


def print_leaderboard(board: arena_pb2.Leaderboard) -> None:
    games = sorted({g for row in board.rows for g in row.game_elo})
    skill = ("OS mu", "OS sigma", "OS ordinal") if _has_openskill(board) else ()
    scope = f"tournament {board.tournament_id}" if board.tournament_id else "all tournaments"
    table = Table(
        title=f"Leaderboard, {board.game or 'all games'}, {scope} ({board.matches} matches)"
    )
    boot = ("bootstrap 95%",) if board.bootstrap else ()
    for column in (
        "rank", "bot", "Elo", "± 95%", *boot, "pairs", "W-D-L", "matches", *skill, *games
    ):  # fmt: skip
        table.add_column(column, justify="left" if column == "bot" else "right")
    for row, folded_under in rows_under(board):
        table.add_row(
            rank_text(row),
            f"  ↳ {row.bot}" if folded_under else row.bot,
            rating_text(row, board),
            interval_text(row).removeprefix("± "),
            *((bootstrap_text(row, board),) if boot else ()),
            str(row.pairs),
            f"{row.wins}-{row.draws}-{row.losses}",
            str(row.matches),
            *(_openskill(row, 2) if skill else ()),
            *(elo_text(row.game_elo[g]) if g in row.game_elo else "" for g in games),
            style="dim" if folded_under else None,
        )
    console = Console(width=max(120, 70 + 15 * len(games) + 12 * len(skill) + 16 * len(boot)))
    console.print(table)
    _print_notes(console, board)
    if board.bootstrap:
        console.print(
            f"Bootstrap: {board.bootstrap} resamples of each pairing's rated units, the "
            "board refitted on each; each interval is the basic bootstrap's (the 2.5th "
            "and 97.5th percentiles reflected about the estimate).",
            markup=False,
            soft_wrap=True,
        )


def _print_notes(console: Console, board: arena_pb2.Leaderboard) -> None:
    """Each row's note, the ranking rule, the caveats: a line each, however long (a note
    is one line in a pipe or a log; tables keep the width)."""
    for row in every_row(board):
        if row.note:
            console.print(f"{row.bot}: {row.note}.", markup=False, soft_wrap=True)
    if folded := [row for row in board.rows if row.older_versions]:
        console.print(
            f"↳ older versions of {', '.join(row.bot.partition('@')[0] for row in folded)}, "
            "rated on their own results and not ranked: a bot's newest version on the "
            "board holds its place (--every-version ranks each).",
            markup=False,
            soft_wrap=True,
        )
    if rule := ranking_text(board):
        console.print(rule, markup=False, soft_wrap=True)
    for caveat in board.caveats:
        console.print(f"Note: {caveat}.", markup=False, soft_wrap=True)


def print_game_boards(boards: Sequence[arena_pb2.Leaderboard], bots: Sequence[str]) -> None:
    """Each game's board in one table, a column per game: each bot's rank there and its
    rating with its interval, provisional ones marked; then the ranking rule."""
    table = Table(title="Each game's board: #rank Elo ± 95%")
    table.add_column("bot")
    for board in boards:
        table.add_column(board.game)
    rows = [{row.bot: row for row in every_row(board)} for board in boards]

    def cell(row: arena_pb2.LeaderboardRow) -> str:
        rank = f"#{rank_text(row)} " if row.rank else ""
        return rank + cell_text(row)

    for bot in bots:
        table.add_row(bot, *(cell(found[bot]) if bot in found else "" for found in rows))
    console = Console(width=max(120, 20 + 22 * len(boards)))
    console.print(table)
    rule = next((text for board in boards if (text := ranking_text(board))), "")
    if rule:
        console.print(rule, markup=False, soft_wrap=True)


def leaderboard(args: argparse.Namespace) -> None:
    if args.json and args.csv:
        raise UsageError("choose one of --json and --csv")
    if args.compare:
        _compare(args)
        return
    if args.history:
        _history(args)
        return
    with arena_api(args) as api:
        board = api.GetLeaderboard(
            arena_pb2.GetLeaderboardRequest(
                tournament_id=args.tournament,
                game=args.game,
                los=args.los,
                openskill=args.openskill,
                anchor=args.anchor,
                anchor_elo=args.anchor_elo,
                bootstrap=args.bootstrap,
                bootstrap_seed=args.seed,
                every_version=args.every_version,
                **({} if args.prior_sd is None else {"prior_sd": args.prior_sd}),
            ),
            timeout=120 if args.bootstrap else 60,
        )
    if args.json:
        print(
            json.dumps(
                json_format.MessageToDict(
                    board,
                    always_print_fields_with_no_presence=True,
                    preserving_proto_field_name=True,
                ),
                indent=1,
            )
        )
    elif args.csv:
        games = sorted({g for row in board.rows for g in row.game_elo})
        out = csv.writer(sys.stdout)
        out.writerow(
            [
                "rank",
                "bot",
                "elo",
                "elo_ci95",
                "pairs",
                "wins",
                "draws",
                "losses",
                "matches",
                "status",
                *(
                    ("openskill_mu", "openskill_sigma", "openskill_ordinal")
                    if args.openskill
                    else ()
                ),
                *(("elo_low", "elo_high") if board.bootstrap else ()),
                *games,
                "folded_under",
            ]
        )
        for row, folded_under in rows_under(board):
            out.writerow(
                [
                    row.rank,
                    row.bot,
                    f"{row.elo:.1f}",
                    f"{row.elo_ci95:.1f}",
                    row.pairs,
                    row.wins,
                    row.draws,
                    row.losses,
                    row.matches,
                    arena_pb2.RatingStatus.Name(row.status).removeprefix("RATING_STATUS_").lower(),
                    *(_openskill(row, 3) if args.openskill else ()),
                    *(
                        (f"{row.elo_low:.1f}", f"{row.elo_high:.1f}")
                        if board.bootstrap and bootstrap_text(row, board)
                        else ("", "")
                        if board.bootstrap
                        else ()
                    ),
                    *(f"{row.game_elo[g]:.1f}" if g in row.game_elo else "" for g in games),
                    folded_under,
                ]
            )
    else:
        print_leaderboard(board)
        print_los(board)


def _compare(args: argparse.Namespace) -> None:
    """The difference and LOS; then where each bot stands on the board compared on, as
    the leaderboard shows it (provisional or established)."""
    a, b = args.compare
    with arena_api(args) as api:
        found = api.CompareBots(
            arena_pb2.CompareBotsRequest(tournament_id=args.tournament, game=args.game, a=a, b=b),
            timeout=60,
        )
        if args.json:
            print(json.dumps(json_format.MessageToDict(found, preserving_proto_field_name=True)))
            return
        board = api.GetLeaderboard(
            arena_pb2.GetLeaderboardRequest(
                tournament_id=args.tournament, game=args.game, every_version=True
            ),
            timeout=60,
        )
    print(
        f"{a} - {b}: {found.elo_difference:+.0f} ± {found.ci95:.0f} Elo (95%), "
        f"LOS {100 * found.los:.1f}% that {a} is the stronger"
    )
    rows = {row.bot: row for row in board.rows}
    for bot in (a, b):
        if bot in rows:
            print(f"{bot}: {standing_text(rows[bot])}")
    if any(
        rows[bot].status == arena_pb2.RATING_STATUS_PROVISIONAL for bot in (a, b) if bot in rows
    ):
        print(
            f"A provisional rating has fewer than {board.min_pairs} pairs: its estimate may "
            "run ahead of the truth; the interval and LOS stay calibrated."
        )


def _history(args: argparse.Namespace) -> None:
    if args.tournament or args.csv or args.los:
        raise UsageError(
            "--history reads the arena-wide ratings: --tournament, --csv and --los do not apply"
        )
    with arena_api(args) as api:
        history = api.GetRatingHistory(
            arena_pb2.GetRatingHistoryRequest(bot=args.history, game=args.game), timeout=60
        )
    if args.json:
        print(
            json.dumps(
                json_format.MessageToDict(
                    history,
                    preserving_proto_field_name=True,
                    always_print_fields_with_no_presence=True,
                ),
                indent=1,
            )
        )
        return
    print_history(history)


def print_history(history: arena_pb2.RatingHistory) -> None:
    """A table per board, oldest first, in UTC."""
    if not any(s.points for s in history.series):
        print(f"no ratings recorded for {history.bot} yet")
        return
    console = Console(width=120)
    versions = any(p.version for s in history.series for p in s.points)
    for found in history.series:
        table = Table(title=f"Rating history of {history.bot}, {found.game or 'all games'}")
        columns = ("time (UTC)", "event", *(("version",) if versions else ()), "Elo ± 95%")
        for column in (*columns, "pairs", "status"):
            table.add_column(
                column, justify="right" if column in ("Elo ± 95%", "pairs") else "left"
            )
        for point in found.points:
            table.add_row(
                point.recorded_at.ToDatetime().strftime("%Y-%m-%d %H:%M:%S"),
                point.event,
                *((point.version,) if versions else ()),
                point_text(point),
                str(point.pairs),
                status_text(point.status),
            )
        if not found.points:
            table.add_row("", "(not rated on this board yet)", *[""] * len(columns))
        console.print(table)


def print_los(board: arena_pb2.Leaderboard) -> None:
    """The likelihood-of-superiority matrix, in percent, as BayesElo prints it."""
    if not board.los:
        return
    bots = [row.bot for row in board.los]
    print("Likelihood of superiority, % (that the row is stronger than the column):")
    table = Table()
    table.add_column("bot")
    for bot in bots:
        table.add_column(bot[:10], justify="right")
    for row in board.los:
        table.add_row(
            row.bot,
            *("" if a == row.bot else f"{100 * v:.0f}" for a, v in zip(bots, row.los, strict=True)),
        )
    Console(width=max(120, 14 + 11 * len(bots))).print(table)


def serve(args: argparse.Namespace) -> None:
    if args.json or args.csv or args.game or args.tournament or args.history:
        raise UsageError(
            "--game, --tournament, --history, --json and --csv do not apply to leaderboard serve"
        )
    with loading():
        from arena.web import serve

    read_token = token_from_flags(args.read_token_file, READ_TOKEN_ENV)
    try:
        serve(
            args.api,
            host=args.host,
            port=args.port,
            viewers_per_client=args.viewers_per_client,
            replay_reads_per_s=args.replay_reads_per_s,
            read_token=read_token,
        )
    except OSError as error:
        raise CliError(
            f"cannot listen on {args.host}:{args.port}: {error.strerror or error}"
        ) from None
