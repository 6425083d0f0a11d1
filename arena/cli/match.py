"""``arena games``, ``arena match play``, ``arena replay show`` and ``arena replay verify``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
from collections.abc import Iterator, Sequence
from pathlib import Path

from google.protobuf import json_format

from arena import wire
from arena.bots.launch import LaunchError, launched, per_seat
from arena.cli.common import CliError, UsageError, parse_options, replay_command
from arena.cli.connect import authorized, channel
from arena.games import UnknownGameError, get_game
from arena.v1 import referee_pb2, referee_pb2_grpc
from arena.wording import count, plural


@contextlib.contextmanager
def referee(args: argparse.Namespace) -> Iterator[referee_pb2_grpc.RefereeStub]:
    """A stub for the referee at ``args.referee`` that sends ``args.referee_token`` if
    the command has one."""
    with channel(args.referee, "a referee", args.tls_ca, args.tls_cert, args.tls_key) as chan:
        yield referee_pb2_grpc.RefereeStub(authorized(chan, getattr(args, "referee_token", None)))


def games(args: argparse.Namespace) -> None:
    if args.referee:
        with referee(args) as stub:
            games = list(stub.ListGames(referee_pb2.ListGamesRequest(), timeout=10).games)
    else:
        from arena.games import all_games

        games = [wire.game_description(g) for g in all_games()]
    for game in games:
        print(f"{game.name:<14} {game.title}, {game.seats} seats, {game.teams} teams")
        for option in game.options:
            print(f"    {option.name}={option.default_value}  {option.description}")


def play(args: argparse.Namespace) -> None:
    if not args.bot and not args.bot_command:
        raise UsageError(
            "give each team's bot: --bot HOST:PORT for a running one, --bot-command CMD "
            "(with {port}) for one to start; they mix, in team order"
        )
    if not args.bot_command:
        _play_and_print(args, args.bot)
        return
    try:
        game = get_game(args.game)
    except UnknownGameError as error:
        raise CliError(str(error)) from None
    try:
        with launched(per_seat(args.bot_command, game.info.seat_teams)) as addresses:
            _play_and_print(args, addresses)
    except LaunchError as error:
        raise CliError(str(error)) from None


def _play_and_print(args: argparse.Namespace, bots: Sequence[str]) -> None:
    request = referee_pb2.PlayMatchRequest(
        game=args.game,
        bots=bots,
        seed=args.seed,
        options=parse_options(args.option),
        move_deadline=wire.duration(args.deadline_ms / 1000),
        time_bank=wire.duration(args.time_bank_ms / 1000) if args.time_bank_ms else None,
        fault_policy=referee_pb2.FaultPolicy(max_faults=args.max_faults),
        match_id=args.match_id,
    )
    if args.referee:
        with referee(args) as stub:
            result: referee_pb2.MatchResult = stub.PlayMatch(request)
    else:
        result = asyncio.run(_play_local(request, args.replay_dir))
    unreached = not_reached(result)
    if args.json:  # the record whatever happened; the exit code says whether it played
        print(
            json_format.MessageToJson(
                result,
                always_print_fields_with_no_presence=True,
                preserving_proto_field_name=True,
            )
        )
    elif not unreached:
        show = replay_command(result.replay_id, args.replay_dir, args.referee or "")
        print(describe_result(result, show))
    if unreached:
        raise CliError(unreached)


def not_reached(result: referee_pb2.MatchResult) -> str:
    """Which seats' bots could not be reached at all, at which address and why, as one
    line; "" when every bot played. Such a match was never played: its "result" is a
    failure to say so (exit 1), not a forfeit to report as one (a match lost on faults
    after it began is a result, exit 0)."""
    if result.decisions:
        return ""
    address = {s: b for team in result.teams for s, b in zip(team.seats, team.bots, strict=False)}
    seats: dict[tuple[str, str], list[int]] = {}
    for fault in result.faults:
        if fault.kind == referee_pb2.FAULT_KIND_UNREACHABLE:
            seats.setdefault((address.get(fault.seat, "?"), fault.detail), []).append(fault.seat)
    return "; ".join(
        f"could not reach the bot of {plural('seat', len(found))} {', '.join(map(str, found))} "
        f"at {where}: {detail}"
        for (where, detail), found in seats.items()
    )


async def _play_local(
    request: referee_pb2.PlayMatchRequest, replay_dir: str
) -> referee_pb2.MatchResult:
    from arena.referee.service import local_referee

    async with local_referee(replay_dir) as stub:
        result: referee_pb2.MatchResult = await stub.PlayMatch(request)
        return result


def score_unit(game: str) -> str:
    """What the game's scores count (``GameInfo.score_unit``); "point" for a game this side
    does not know, such as a newer referee's."""
    try:
        return get_game(game).info.score_unit
    except UnknownGameError:
        return "point"


def describe_result(result: referee_pb2.MatchResult, show: str = "") -> str:
    """The result as people read it; ``show`` is the command that prints its replay."""
    unit = score_unit(result.game)
    lines = [
        f"match {result.match_id}: {result.game}, seed {result.seed}, "
        f"{count(result.decisions, 'decision')}"
    ]
    for team in result.teams:
        lines.append(
            f"  team {team.team} ({plural('seat', len(team.seats))} "
            f"{', '.join(map(str, team.seats))}; {', '.join(dict.fromkeys(team.bots))}): "
            f"{count(team.score, unit)}, {count(team.faults, 'fault')}"
        )
    if result.end == referee_pb2.MATCH_END_NO_CONTEST:
        lines.append("no contest: no team could play, or the decision cap was reached")
    elif result.end == referee_pb2.MATCH_END_FORFEIT:
        lines.append(f"team {result.forfeit_team} forfeits; team {result.winner_team} wins")
    elif result.HasField("winner_team"):
        lines.append(f"team {result.winner_team} wins")
    else:
        lines.append("draw")
    for fault in result.faults:
        kind = referee_pb2.FaultKind.Name(fault.kind).removeprefix("FAULT_KIND_").lower()
        lines.append(
            f"  fault: seat {fault.seat}, decision {fault.decision_index}, {kind}: {fault.detail}"
        )
    show = show or replay_command(result.replay_id)
    lines.append(f"replay: {result.replay_id}  ({show})")
    return "\n".join(lines)


def _replay_text(args: argparse.Namespace) -> str:
    """The JSON text of ``args.replay``: a file path, an id in ``--replay-dir``, or an id
    on ``--referee``."""
    from arena.replay import ReplayNotFound, ReplayStore

    path = Path(args.replay)
    if args.tournament:
        from arena.cli.connect import arena_api
        from arena.v1 import arena_pb2

        with arena_api(args) as api:
            reply = api.GetMatchReplay(
                arena_pb2.GetMatchReplayRequest(
                    tournament_id=args.tournament, match_id=args.replay
                ),
                timeout=60,
            )
            return reply.json
    if args.referee:
        with referee(args) as stub:
            text: str = stub.GetReplay(
                referee_pb2.GetReplayRequest(replay_id=args.replay), timeout=10
            ).json
            return text
    if path.suffix == ".json" or path.exists():
        try:
            return path.read_text(encoding="utf-8")
        except OSError as error:
            raise CliError(f"cannot read {path}: {error.strerror}") from None
        except UnicodeDecodeError:
            raise CliError(f"{path} is not a Card Arena replay (not UTF-8 text)") from None
    try:
        return ReplayStore(args.replay_dir).load_text(args.replay)
    except ReplayNotFound as error:
        raise CliError(str(error)) from None
    except UnicodeDecodeError:
        raise CliError(f"{args.replay} is not a Card Arena replay (not UTF-8 text)") from None


def show_replay(args: argparse.Namespace) -> None:
    from arena.replay.render import render

    text = _replay_text(args)
    try:
        doc = json.loads(text)
        print(json.dumps(doc, indent=1) if args.json else render(doc))
    except (ValueError, KeyError, TypeError) as error:
        raise CliError(f"{args.replay} is not a Card Arena replay ({error})") from None


def verify_replay(args: argparse.Namespace) -> None:
    from arena.replay.verify import ReplayMismatch, verify_text

    try:
        verified = verify_text(_replay_text(args))
    except ReplayMismatch as mismatch:
        if args.json:
            print(json.dumps({"verified": False, "replay": args.replay, "reason": str(mismatch)}))
        raise CliError(f"replay {args.replay} does not verify: {mismatch}") from None
    print(json.dumps(verified.to_json()) if args.json else verified.summary())


def import_replays(args: argparse.Namespace) -> None:
    import redis

    from arena.store import TournamentStore
    from arena.store.replay_import import ImportFailed, import_replays

    directory = Path(args.directory)
    try:
        report = import_replays(TournamentStore(redis.Redis.from_url(args.redis)), directory)
    except ImportFailed as error:
        raise CliError(f"nothing imported: {error}") from None
    except redis.RedisError as error:
        raise CliError(f"cannot use Redis at {args.redis}: {error}") from None
    print(report.summary(directory))
