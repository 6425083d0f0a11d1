"""The ``arena`` command: serve a referee or a bot, play a match, show a replay.

Every failure is one readable line on stderr and a nonzero exit code: 2 for a command
line that does not parse, 1 for anything that went wrong while running it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

import grpc
from google.protobuf import json_format

from arena import __version__, wire
from arena.v1 import referee_pb2, referee_pb2_grpc

DEFAULT_REPLAY_DIR = "replays"
CONNECT_TIMEOUT_S = 5.0


class CliError(Exception):
    """A failure to report as one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    top = _Parser(
        prog="arena", description="Card Arena: a referee, bots and matches for five card games."
    )
    top.add_argument("--version", action="version", version=f"arena {__version__}")
    groups = top.add_subparsers(dest="group", required=True, parser_class=_Parser)

    referee = groups.add_parser("referee", help="run a referee").add_subparsers(
        dest="command", required=True
    )
    serve = referee.add_parser("serve", help="serve the Referee gRPC API")
    serve.add_argument(
        "--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)"
    )
    serve.add_argument("--port", type=int, default=50051, help="port (default 50051; 0 picks one)")
    serve.add_argument("--replay-dir", default=DEFAULT_REPLAY_DIR, help="where replays are written")
    serve.add_argument("--max-concurrent", type=int, default=256, help="matches played at once")
    serve.set_defaults(run=_referee_serve)

    bot = groups.add_parser("bot", help="serve an example bot").add_subparsers(
        dest="command", required=True
    )
    bot_serve = bot.add_parser("serve", help="serve one of the example bots")
    bot_serve.add_argument("name", help="random, bid-euchre-basic or chaos")
    bot_serve.add_argument(
        "--port", type=int, default=50061, help="port (default 50061; 0 picks one)"
    )
    bot_serve.add_argument("--host", default="127.0.0.1", help="interface to listen on")
    bot_serve.add_argument("--seed", type=int, default=0, help="seed of the bot's own randomness")
    bot_serve.add_argument("--no-stream", action="store_true", help="answer unary Act calls only")
    bot_serve.add_argument(
        "--mode", help="chaos bot: hang, slow, crash, illegal, error, wrong-match"
    )
    bot_serve.add_argument("--after", type=int, default=0, help="chaos bot: good decisions first")
    bot_serve.add_argument("--delay-ms", type=int, default=0, help="chaos bot, slow mode: delay")
    bot_serve.set_defaults(run=_bot_serve)

    games = groups.add_parser("games", help="list the games and their options")
    games.add_argument(
        "--referee", help="ask this referee (host:port) instead of the local engines"
    )
    games.set_defaults(run=_games)

    match = groups.add_parser("match", help="play matches").add_subparsers(
        dest="command", required=True
    )
    play = match.add_parser("play", help="play one match between bots through a referee")
    play.add_argument("--game", required=True, help="game name, e.g. bid-euchre")
    play.add_argument(
        "--bot",
        action="append",
        required=True,
        metavar="ADDR",
        help="bot address host:port, once per team or once per seat, in order",
    )
    play.add_argument("--seed", type=int, default=1, help="deal seed (default 1)")
    play.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE", help="game option"
    )
    play.add_argument(
        "--deadline-ms", type=float, default=1000, help="time per decision (default 1000)"
    )
    play.add_argument(
        "--max-faults", type=int, default=0, help="faults before a forfeit (default 3)"
    )
    play.add_argument("--match-id", default="", help="id for the match (default: generated)")
    play.add_argument("--referee", help="referee host:port (default: start one in this process)")
    play.add_argument(
        "--replay-dir", default=DEFAULT_REPLAY_DIR, help="replays, for the in-process referee"
    )
    play.add_argument("--json", action="store_true", help="print the result as JSON")
    play.set_defaults(run=_match_play)

    replay = groups.add_parser("replay", help="read replays").add_subparsers(
        dest="command", required=True
    )
    show = replay.add_parser("show", help="print a replay hand by hand")
    show.add_argument("replay", help="replay id or path to a replay JSON file")
    show.add_argument("--replay-dir", default=DEFAULT_REPLAY_DIR, help="where to look for an id")
    show.add_argument("--referee", help="fetch the replay from this referee instead")
    show.add_argument("--json", action="store_true", help="print the raw JSON")
    show.set_defaults(run=_replay_show)
    return top


def _referee_serve(args: argparse.Namespace) -> None:
    from arena.referee.service import serve

    try:
        serve(
            host=args.host,
            port=args.port,
            replay_dir=args.replay_dir,
            max_concurrent=args.max_concurrent,
        )
    except OSError as error:
        raise CliError(str(error)) from None


def _bot_serve(args: argparse.Namespace) -> None:
    from arena.bots import serve
    from arena.bots.examples import EXAMPLES

    factory = EXAMPLES.get(args.name)
    if factory is None:
        raise CliError(f"unknown bot {args.name!r}; example bots: {', '.join(sorted(EXAMPLES))}")
    kwargs: dict[str, Any] = {"seed": args.seed}
    if args.name == "chaos":
        kwargs.update(mode=args.mode or "hang", after=args.after, delay_ms=args.delay_ms)
    elif args.mode:
        raise CliError("--mode is for the chaos bot only")
    try:
        bot = factory(**kwargs) if args.name != "bid-euchre-basic" else factory()
    except ValueError as error:
        raise CliError(str(error)) from None
    bot.supports_stream = not args.no_stream
    try:
        serve(bot, port=args.port, host=args.host)
    except OSError as error:
        raise CliError(str(error)) from None


def _games(args: argparse.Namespace) -> None:
    if args.referee:
        with _referee(args.referee) as stub:
            games = list(stub.ListGames(referee_pb2.ListGamesRequest(), timeout=10).games)
    else:
        from arena.games import all_games

        games = [wire.game_description(g) for g in all_games()]
    for game in games:
        print(f"{game.name:<14} {game.title}, {game.seats} seats, {game.teams} teams")
        for option in game.options:
            print(f"    {option.name}={option.default_value}  {option.description}")


def _parse_options(pairs: Sequence[str]) -> dict[str, str]:
    options = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise CliError(f"--option takes NAME=VALUE, got {pair!r}")
        options[name] = value
    return options


def _match_play(args: argparse.Namespace) -> None:
    request = referee_pb2.PlayMatchRequest(
        game=args.game,
        bots=args.bot,
        seed=args.seed,
        options=_parse_options(args.option),
        move_deadline=wire.duration(args.deadline_ms / 1000),
        fault_policy=referee_pb2.FaultPolicy(max_faults=args.max_faults),
        match_id=args.match_id,
    )
    if args.referee:
        result = _play_remote(args.referee, request)
    else:
        result = asyncio.run(_play_local(request, args.replay_dir))
    if args.json:
        print(json_format.MessageToJson(result, always_print_fields_with_no_presence=True))
        return
    print(_describe_result(result))


@contextlib.contextmanager
def _referee(address: str) -> Iterator[referee_pb2_grpc.RefereeStub]:
    """A stub for a referee that answers within a few seconds, or one clear error."""
    with grpc.insecure_channel(address) as channel:
        try:
            grpc.channel_ready_future(channel).result(timeout=CONNECT_TIMEOUT_S)
        except grpc.FutureTimeoutError:
            raise CliError(f"cannot reach a referee at {address}") from None
        yield referee_pb2_grpc.RefereeStub(channel)


def _play_remote(address: str, request: referee_pb2.PlayMatchRequest) -> referee_pb2.MatchResult:
    with _referee(address) as stub:
        result: referee_pb2.MatchResult = stub.PlayMatch(request)
        return result


async def _play_local(
    request: referee_pb2.PlayMatchRequest, replay_dir: str
) -> referee_pb2.MatchResult:
    from arena.referee.service import start_server

    server, port = await start_server(port=0, replay_dir=replay_dir)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            result: referee_pb2.MatchResult = await referee_pb2_grpc.RefereeStub(channel).PlayMatch(
                request
            )
            return result
    finally:
        await server.stop(grace=None)


def _describe_result(result: referee_pb2.MatchResult) -> str:
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


def _replay_show(args: argparse.Namespace) -> None:
    from arena.replay import ReplayNotFound, ReplayStore
    from arena.replay.render import render

    path = Path(args.replay)
    if args.referee:
        with _referee(args.referee) as stub:
            text = stub.GetReplay(
                referee_pb2.GetReplayRequest(replay_id=args.replay), timeout=10
            ).json
    elif path.suffix == ".json" or path.exists():
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise CliError(f"cannot read {path}: {error.strerror}") from None
    else:
        try:
            text = ReplayStore(args.replay_dir).load_text(args.replay)
        except ReplayNotFound as error:
            raise CliError(str(error)) from None
    try:
        doc = json.loads(text)
        if args.json:
            print(json.dumps(doc, indent=1))
        else:
            print(render(doc))
    except (ValueError, KeyError, TypeError) as error:
        raise CliError(f"{args.replay} is not a Card Arena replay ({error})") from None


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        args.run(args)
    except CliError as error:
        print(f"arena: error: {error}", file=sys.stderr)
        return 1
    except grpc.RpcError as error:
        code = error.code().name if hasattr(error, "code") else "ERROR"
        details = error.details() if hasattr(error, "details") else str(error)
        print(f"arena: error: {code}: {details}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
