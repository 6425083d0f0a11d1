"""``arena competition ...``: the organiser creates a competition from a TOML file,
issues invite codes, follows and cancels it (``docs/competitions.md``).

The file's keys are ``arena.v1.CompetitionSpec``'s fields, so the file and the API say
the same thing by the same names; the API checks the values and says what is allowed.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
import time
import tomllib
from typing import Any

from google.protobuf import json_format, timestamp_pb2

from arena.cli.common import CliError, UsageError
from arena.cli.connect import arena_api
from arena.v1 import arena_pb2
from arena.wording import count

_ENUMS = {"fair_play": "FAIR_PLAY_", "partners": "PARTNERS_"}
"""Rules given by their short names (``sealed``), as the API's enums spell them."""
_AFTER = re.compile(r"^(\d+)\s*([smhd])\Z")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def spec_from_toml(text: str, source: str, now: float) -> arena_pb2.CompetitionSpec:
    """The spec a TOML file describes; ``CliError`` naming what does not parse."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise CliError(f"{source}: not TOML: {error}") from None
    data = _plain(data, source)
    timeline = data.get("timeline")
    if isinstance(timeline, dict):
        for key, value in timeline.items():
            if isinstance(value, str) and _AFTER.match(value.strip()):
                timeline[key] = expiry(value, now).ToJsonString()
    rules = data.get("rules")
    if isinstance(rules, dict):
        for key, prefix in _ENUMS.items():
            value = rules.get(key)
            if isinstance(value, str) and not value.upper().startswith(prefix):
                rules[key] = prefix + value.upper()
    try:
        return json_format.ParseDict(data, arena_pb2.CompetitionSpec())
    except json_format.ParseError as error:
        raise CliError(f"{source}: {' '.join(str(error).split())}") from None


def _plain(value: Any, source: str) -> Any:
    """TOML's values as JSON's: date-times as RFC 3339 text, which must carry an offset."""
    if isinstance(value, dict):
        return {k: _plain(v, source) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, source) for v in value]
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            raise CliError(
                f"{source}: the time {value.isoformat()} has no offset: write it in UTC, "
                "as 2027-03-01T12:00:00Z"
            )
        return value.astimezone(datetime.UTC).isoformat().replace("+00:00", "Z")
    if isinstance(value, datetime.date | datetime.time):
        raise CliError(
            f"{source}: {value.isoformat()} is not a date-time: write 2027-03-01T12:00:00Z"
        )
    return value


def create(args: argparse.Namespace) -> None:
    try:
        with open(args.file, encoding="utf-8") as found:
            text = found.read()
    except OSError as error:
        raise CliError(f"cannot read {args.file}: {error.strerror}") from None
    spec = spec_from_toml(text, args.file, time.time())
    with arena_api(args) as api:
        made = api.CreateCompetition(arena_pb2.CreateCompetitionRequest(spec=spec), timeout=10)
    if args.json:
        print(_json(made))
        return
    print_competition(made)
    print(
        f"created: issue invites with `arena competition invite {made.spec.name} --count N`",
        file=sys.stderr,
    )


def show(args: argparse.Namespace) -> None:
    with arena_api(args) as api:
        found = api.GetCompetition(arena_pb2.GetCompetitionRequest(name=args.name), timeout=10)
    if args.json:
        print(_json(found))
    else:
        print_competition(found)


def list_(args: argparse.Namespace) -> None:
    with arena_api(args) as api:
        found = api.ListCompetitions(arena_pb2.ListCompetitionsRequest(), timeout=10)
    for competition in found.competitions:
        if args.json:
            print(_json(competition))
            continue
        timeline = competition.spec.timeline
        print(
            f"{competition.spec.name}  {_phase(competition.phase)}  opens "
            f"{_utc(timeline.opens_at)}  closes {_utc(timeline.submissions_close_at)}  "
            f"{count(len(competition.competitors), 'competitor')}"
        )


def wait(args: argparse.Namespace) -> None:
    """Polls once a second: phases change on the workers' watchdog rounds, seconds apart."""
    until = arena_pb2.CompetitionPhase.Value(f"COMPETITION_PHASE_{args.until.upper()}")
    deadline = None if args.timeout is None else time.monotonic() + args.timeout
    shown = 0
    with arena_api(args) as api:
        while True:
            found = api.GetCompetition(arena_pb2.GetCompetitionRequest(name=args.name), timeout=10)
            for step in found.transitions[shown:]:
                print(f"{_phase(step.phase)} at {_utc(step.due_at)}", flush=True)
            shown = len(found.transitions)
            if found.phase == arena_pb2.COMPETITION_PHASE_CANCELLED:
                raise CliError(f"competition {args.name} was cancelled before it was {args.until}")
            if found.phase >= until:
                return
            if deadline is not None and time.monotonic() > deadline:
                raise CliError(
                    f"competition {args.name} is still {_phase(found.phase)} after "
                    f"{args.timeout:g} s, not yet {args.until}"
                )
            time.sleep(1)


def cancel(args: argparse.Namespace) -> None:
    with arena_api(args) as api:
        found = api.CancelCompetition(
            arena_pb2.CancelCompetitionRequest(name=args.name), timeout=10
        )
    print(f"competition {found.spec.name} is {_phase(found.phase)}")


def invite(args: argparse.Namespace) -> None:
    request = arena_pb2.CreateInvitesRequest(
        competition=args.name, count=args.count, uses=args.uses
    )
    if args.expires:
        request.expires_at.CopyFrom(expiry(args.expires, time.time()))
    with arena_api(args) as api:
        issued = api.CreateInvites(request, timeout=10)
    for code in issued.codes:
        print(code)
    uses = "single-use" if issued.uses == 1 else f"{issued.uses} uses each"
    print(
        f"{count(len(issued.codes), 'invite code')} to {issued.competition} ({uses}, until "
        f"{_utc(issued.expires_at)}), shown only now (the arena keeps their hashes): an author "
        "joins with `arena author join --invite CODE NAME`",
        file=sys.stderr,
    )


def expiry(text: str, now: float) -> timestamp_pb2.Timestamp:
    """``--expires``: a UTC time in RFC 3339, or a time from ``now`` (``90m``, ``7d``)."""
    stamp = timestamp_pb2.Timestamp()
    after = _AFTER.match(text.strip())
    if after:
        stamp.FromNanoseconds(int((now + int(after[1]) * _UNITS[after[2]]) * 1e9))
        return stamp
    try:
        stamp.FromJsonString(text.strip())
    except ValueError:
        raise UsageError(
            f"--expires takes a UTC time such as 2027-03-01T12:00:00Z or a time from now such "
            f"as 90m, 12h or 7d, not {text!r}"
        ) from None
    return stamp


def final(args: argparse.Namespace) -> None:
    request = arena_pb2.MarkFinalVersionRequest(competition=args.name, version=args.version)
    with arena_api(args) as api:
        marked = api.MarkFinalVersion(request, timeout=10)
    print(f"{marked.author}'s final version in {marked.competition}: {marked.version}")


def board(args: argparse.Namespace) -> None:
    request = arena_pb2.GetCompetitionLeaderboardRequest(
        name=args.name, game=args.game, mine=args.mine
    )
    with arena_api(args) as api:
        found = api.GetCompetitionLeaderboard(request, timeout=30)
    if args.json:
        print(_json(found))
        return
    print(
        f"competition {found.competition}: {_phase(found.phase)}, "
        f"{found.game or 'all games'}, {count(found.matches, 'rated match')} "
        f"on ladder {found.ladder_tournament_id}"
    )
    _rows(found.rows, grouped=True)
    if args.mine:
        print()
        print("versions:")
        _rows(found.versions)


def _rows(rows: Any, grouped: bool = False) -> None:
    """One line a row; with leagues, the board's rows under a line naming each league
    (the top first), the versions' with their league at the end."""
    league = None
    for row in rows:
        if grouped and row.league and row.league != league:
            league = row.league
            print(f"  league {league}:")
        r = row.rating
        status = arena_pb2.RatingStatus.Name(r.status).removeprefix("RATING_STATUS_").lower()
        rank = str(row.rank) if row.rank else "-"
        who = "(boss)" if row.boss else row.author
        where = f"  [{row.league}]" if row.league and not grouped else ""
        print(
            f"  {rank:>3}  {who:<20} {row.version:<30} {r.elo:7.0f} ±{r.elo_ci95:<5.0f} "
            f"{r.pairs:>4} pairs  {status}{'' if row.active else '  (retired)'}{where}"
        )


def print_competition(found: arena_pb2.Competition) -> None:
    spec, rules, timeline = found.spec, found.spec.rules, found.spec.timeline
    print(f"competition {spec.name}: {_phase(found.phase)}")
    games = []
    for game in spec.games:
        options = ", ".join(f"{k}={v}" for k, v in sorted(game.options.items()))
        games.append(f"{game.game} ({options})" if options else game.game)
    print(f"  games: {', '.join(games)}")
    print(
        f"  timeline (UTC): opens {_utc(timeline.opens_at)}, submissions close "
        f"{_utc(timeline.submissions_close_at)}, final ends {_utc(timeline.final_ends_at)}"
    )
    fair_play = arena_pb2.FairPlay.Name(rules.fair_play).removeprefix("FAIR_PLAY_").lower()
    partners = arena_pb2.Partners.Name(rules.partners).removeprefix("PARTNERS_").lower()
    bank = rules.time_bank.ToTimedelta().total_seconds()
    print(
        f"  rules: fair play {fair_play}, partners {partners}, "
        f"{count(rules.daily_submissions, 'submission')} a day, "
        f"{count(rules.active_versions, 'active version')} per author, "
        f"at most {count(rules.final_deals, 'final deal')} per pairing and game, "
        f"final LOS {rules.final_los:g}, "
        f"{rules.move_deadline.ToTimedelta().total_seconds():g} s a move"
        + (f", a {bank:g} s time bank" if bank else "")
        + (f", {count(rules.max_faults, 'fault')} to forfeit" if rules.max_faults else "")
    )
    if rules.leagues:
        tiers = ", ".join(
            f"{x.name} (boss {x.boss})" if x.boss else f"{x.name} (top)" for x in rules.leagues
        )
        print(
            f"  leagues, lowest first: {tiers}; a version moves up at LOS "
            f"{rules.promotion_los:g} over its boss, judged from "
            f"{count(rules.promotion_pairs, 'pair')} on"
        )
    names = f": {', '.join(found.competitors)}" if found.competitors else ""
    print(f"  {count(len(found.competitors), 'competitor')}{names}")
    if found.ladder_tournament_id:
        print(f"  ladder: tournament {found.ladder_tournament_id}")
    for step in found.transitions:
        print(f"  {_phase(step.phase)} at {_utc(step.due_at)} (recorded {_utc(step.recorded_at)})")
    print_final(found)
    if spec.description:
        print()
        print(spec.description.rstrip())


def print_final(found: arena_pb2.Competition) -> None:
    """The final: its tournament and seed commitment, each author's version, and once
    frozen, the board."""
    if found.final_tournament_id:
        print(
            f"  final: tournament {found.final_tournament_id}, seed commitment "
            f"{found.final_seed_commitment or '(not yet published)'}"
        )
    elif found.final_versions:
        print("  final: none played (fewer than two final versions can meet)")
    if found.final_deals:
        print(
            f"  final deals: {found.final_deals} per pairing and game ({found.final_deals_reason})"
        )
    for chosen in found.final_versions:
        print(f"    {chosen.author:<20} {chosen.version:<30} {_choice(chosen.chosen)}")
    if not found.HasField("final_board"):
        return
    board = found.final_board
    unplayed = f", {count(board.unplayed, 'match')} left unplayed" if board.unplayed else ""
    print(
        f"  final board (frozen {_utc(board.frozen_at)}, {count(board.matches, 'result')}"
        f"{unplayed}; tied: LOS under {board.tie_los:g}):"
    )
    for row in board.rows:
        rank = str(row.rank) if row.rank else "-"
        if not row.rank:
            los = f"  ({row.status})"
        elif row.los_next:
            los = f"  LOS {row.los_next:.2f}" + (
                " tied with the next" if row.tied_with_next else ""
            )
        else:
            los = ""
        print(
            f"  {rank:>3}  {row.author:<20} {row.version:<30} {row.elo:7.0f} ±{row.elo_ci95:<5.0f}"
            f" {row.wins}-{row.draws}-{row.losses} pairs, {row.matches_won}/{row.matches} "
            f"matches won{los}"
        )


def _choice(value: arena_pb2.FinalChoice.ValueType) -> str:
    return arena_pb2.FinalChoice.Name(value).removeprefix("FINAL_CHOICE_").lower().replace("_", " ")


def _json(message: Any) -> str:
    return json.dumps(json_format.MessageToDict(message, preserving_proto_field_name=True))


def _phase(value: arena_pb2.CompetitionPhase.ValueType) -> str:
    return arena_pb2.CompetitionPhase.Name(value).removeprefix("COMPETITION_PHASE_").lower()


def _utc(stamp: timestamp_pb2.Timestamp) -> str:
    return stamp.ToDatetime(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
