"""``arena games``, ``arena match play``, ``arena replay show`` and ``arena replay verify``."""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Sequence
from pathlib import Path

from google.protobuf import json_format

from arena import wire
from arena.bots.launch import LaunchError, launched, per_seat
from arena.cli.common import (
    DEFAULT_REPLAY_DIR,
    CliError,
    Groups,
    add_referee_flags,
    group,
    parse_options,
    referee,
)
from arena.games import UnknownGameError, get_game
from arena.v1 import referee_pb2


def add_commands(groups: Groups) -> None:
    games = groups.add_parser("games", help="list the games and their options")
    add_referee_flags(games, "ask this referee (host:port) instead of the local engines")
    games.set_defaults(run=_games)

    play = group(groups, "match", "play matches").add_parser(
        "play", help="play one match between bots through a referee"
    )
    play.add_argument("--game", required=True, help="game name, e.g. bid-euchre")
    bots = play.add_mutually_exclusive_group(required=True)
    bots.add_argument(
        "--bot",
        action="append",
        metavar="ADDR",
        help="bot address host:port, once per team or once per seat, in order",
    )
    bots.add_argument(
        "--bot-command",
        action="append",
        metavar="CMD",
        help="start the bot: one process per seat, '{port}' in CMD is its port "
        "(once per team or once per seat)",
    )
    play.add_argument("--seed", type=int, default=1, help="deal seed (default 1)")
    play.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE", help="game option"
    )
    play.add_argument(
        "--deadline-ms", type=float, default=1000, help="time per decision (default 1000)"
    )
    play.add_argument(
        "--time-bank-ms",
        type=float,
        default=0,
        help="extra time per seat for the match beyond the deadlines (default 0: none)",
    )
    play.add_argument(
        "--max-faults", type=int, default=0, help="faults before a forfeit (default 3)"
    )
    play.add_argument("--match-id", default="", help="id for the match (default: generated)")
    add_referee_flags(play, "referee host:port (default: start one in this process)", plays=True)
    play.add_argument(
        "--replay-dir", default=DEFAULT_REPLAY_DIR, help="replays, for the in-process referee"
    )
    play.add_argument("--json", action="store_true", help="print the result as JSON")
    play.set_defaults(run=_match_play)

    replays = group(groups, "replay", "read and check replays")
    show = replays.add_parser("show", help="print a replay hand by hand")
    show.add_argument("replay", help="replay id or path to a replay JSON file")
    show.add_argument("--replay-dir", default=DEFAULT_REPLAY_DIR, help="where to look for an id")
    add_referee_flags(show, "fetch the replay from this referee instead")
    show.add_argument("--json", action="store_true", help="print the raw JSON")
    show.set_defaults(run=_replay_show)

    verify = replays.add_parser(
        "verify",
        help="check a replay's deal commitment and re-play it on the engine",
        description="Check that the replay's deal commitment is the sha256 of its match id "
        "and seed, then re-deal from the seed and check every deal, decision and score.",
    )
    verify.add_argument("replay", help="replay id or path to a replay JSON file")
    verify.add_argument("--replay-dir", default=DEFAULT_REPLAY_DIR, help="where to look for an id")
    add_referee_flags(verify, "fetch the replay from this referee instead")
    verify.add_argument("--json", action="store_true", help="print the outcome as JSON")
    verify.set_defaults(run=_replay_verify)


def _games(args: argparse.Namespace) -> None:
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


def _match_play(args: argparse.Namespace) -> None:
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
    if args.json:
        print(json_format.MessageToJson(result, always_print_fields_with_no_presence=True))
        return
    print(describe_result(result))


async def _play_local(
    request: referee_pb2.PlayMatchRequest, replay_dir: str
) -> referee_pb2.MatchResult:
    from arena.referee.service import local_referee

    async with local_referee(replay_dir) as stub:
        result: referee_pb2.MatchResult = await stub.PlayMatch(request)
        return result


def describe_result(result: referee_pb2.MatchResult) -> str:
    lines = [
        f"match {result.match_id}: {result.game}, seed {result.seed}, {result.decisions} decisions"
    ]
    for team in result.teams:
        lines.append(
            f"  team {team.team} (seats {', '.join(map(str, team.seats))}; "
            f"{', '.join(dict.fromkeys(team.bots))}): {team.score} points, {team.faults} faults"
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
    lines.append(f"replay: {result.replay_id}  (arena replay show {result.replay_id})")
    return "\n".join(lines)


def _replay_text(args: argparse.Namespace) -> str:
    """The JSON text of ``args.replay``: a file path, an id in ``--replay-dir``, or an id
    on ``--referee``."""
    from arena.replay import ReplayNotFound, ReplayStore

    path = Path(args.replay)
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


def _replay_show(args: argparse.Namespace) -> None:
    from arena.replay.render import render

    text = _replay_text(args)
    try:
        doc = json.loads(text)
        print(json.dumps(doc, indent=1) if args.json else render(doc))
    except (ValueError, KeyError, TypeError) as error:
        raise CliError(f"{args.replay} is not a Card Arena replay ({error})") from None


def _replay_verify(args: argparse.Namespace) -> None:
    from arena.replay.verify import ReplayMismatch, verify_text

    try:
        verified = verify_text(_replay_text(args))
    except ReplayMismatch as mismatch:
        if args.json:
            print(json.dumps({"verified": False, "replay": args.replay, "reason": str(mismatch)}))
        raise CliError(f"replay {args.replay} does not verify: {mismatch}") from None
    print(json.dumps(verified.to_json()) if args.json else verified.summary())
