"""``arena bot serve|check|register|submit|versions|logs|list|remove``."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from arena.cli.common import CliError, UsageError, loading
from arena.cli.connect import arena_api
from arena.v1 import arena_pb2
from arena.wording import printable

SUBMIT_TIMEOUT_S = 120
"""The arena starts the bot and asks it Hello before it answers."""


def serve(args: argparse.Namespace) -> None:
    with loading():
        from arena.bots import serve
        from arena.bots.examples import EXAMPLES, ChaosBot, PacedBot, RandomBot
        from arena.bots.examples.chaos import serve as serve_chaos
        from arena.cli.services import tls_from_flags

    factory = EXAMPLES.get(args.name)
    if factory is None:
        raise UsageError(f"unknown bot {args.name!r}; example bots: {', '.join(sorted(EXAMPLES))}")
    if args.mode and factory is not ChaosBot:
        raise UsageError("--mode is for the chaos bot only")
    kwargs: dict[str, Any] = {}
    if factory in (RandomBot, ChaosBot, PacedBot):
        kwargs["seed"] = args.seed
    if args.pace_file is not None and factory is not PacedBot:
        raise UsageError("--pace-file is for the paced bot only")
    if factory is PacedBot:
        kwargs["delay_ms"] = 50 if args.delay_ms is None else args.delay_ms
        kwargs["pace_file"] = args.pace_file
    if factory is ChaosBot:
        kwargs.update(mode=args.mode or "hang", after=args.after, delay_ms=args.delay_ms or 0)
    try:
        bot = factory(**kwargs)
    except ValueError as error:
        raise UsageError(str(error)) from None
    bot.supports_stream = not args.no_stream
    tls, _ = tls_from_flags(args)
    try:
        if isinstance(bot, ChaosBot):
            if tls is not None:
                raise UsageError("the chaos bot serves plaintext only")
            serve_chaos(bot, port=args.port, host=args.host)
        else:
            serve(bot, port=args.port, host=args.host, tls=tls)
    except OSError as error:
        raise CliError(str(error)) from None


def register(args: argparse.Namespace) -> None:
    with arena_api(args) as api:
        bot = api.RegisterBot(
            arena_pb2.RegisterBotRequest(name=args.name, address=args.address, author=args.author),
            timeout=30,
        )
    plays = ", ".join(bot.games)
    owner = f" for author {bot.author}" if bot.author else ""
    print(
        f"registered {bot.name} at {bot.address}{owner}: "
        f"{printable(bot.hello_name)} {printable(bot.version)}, "
        f"plays {plays}"
    )


def list_bots(args: argparse.Namespace) -> None:
    with arena_api(args) as api:
        bots = api.ListBots(arena_pb2.ListBotsRequest(), timeout=10).bots
    if not bots:
        print("no bots registered")
    for bot in bots:
        if bot.hosted:
            where = f"hosted ({bot.author})" if bot.author else "hosted"
        else:  # the API keeps the address from anonymous callers
            where = (bot.address or "(operator only)") + (f" ({bot.author})" if bot.author else "")
        print(f"{bot.name:<20} {where:<22} {', '.join(bot.games)}")


def submit(args: argparse.Namespace) -> None:
    from arena.hosting.package import MAX_PACKAGE_BYTES, InvalidPackage, pack
    from arena.hosting.transfer import submission

    directory = Path(args.directory)
    if not directory.is_dir():
        raise CliError(f"{directory} is not a directory: give the one holding the bot's files")
    try:
        blob = pack(directory)
    except InvalidPackage as error:
        raise CliError(f"cannot pack {directory}: {error}") from None
    except OSError as error:
        raise CliError(f"cannot pack {directory}: {error}") from None
    if len(blob) > MAX_PACKAGE_BYTES:
        raise CliError(
            f"{directory} packs to {len(blob):,} bytes; the arena takes at most "
            f"{MAX_PACKAGE_BYTES:,}: leave out what the bot does not need to run"
        )
    label = args.version or time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    request = arena_pb2.SubmitBotRequest(
        name=args.name, version=label, runtime=args.runtime, command=args.command, package=blob
    )
    with arena_api(args) as api:
        version = api.SubmitBot(submission(request), timeout=SUBMIT_TIMEOUT_S)
    print(
        f"submitted {version.name}@{version.version}: sha256 {version.package_sha256[:12]}, "
        f"{version.package_bytes:,} bytes, {printable(version.hello_name)} "
        f"{printable(version.hello_version)}, "
        f"plays {', '.join(version.games)}"
    )


def versions(args: argparse.Namespace) -> None:
    with arena_api(args) as api:
        versions = api.ListBotVersions(
            arena_pb2.ListBotVersionsRequest(name=args.name), timeout=10
        ).versions
    print(f"{'VERSION':<22} {'SUBMITTED (UTC)':<20} {'RUNTIME':<11} {'SHA256':<13} "
          f"{'BYTES':>11}  {'AUTHOR':<12} COMMAND")  # fmt: skip
    for n, version in enumerate(versions):
        submitted = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(version.submitted_at.seconds))
        label = version.version + (" *" if n == 0 else "")
        print(
            f"{label:<22} {submitted:<20} {version.runtime:<11} "
            f"{version.package_sha256[:12]:<13} {version.package_bytes:>11,}  "
            f"{version.author or '(operator)':<12} {printable(version.command)}"
        )
    print("* the version tournaments play unless an entry names one (NAME@VERSION)")


def logs(args: argparse.Namespace) -> None:
    with arena_api(args) as api:
        logs = api.GetBotLogs(
            arena_pb2.GetBotLogsRequest(
                bot=args.name, match_id=args.match, tournament_id=args.tournament
            ),
            timeout=30,
        )
    for seat in logs.seats:
        print(f"=== {logs.bot}@{logs.version}, seat {seat.seat}: {seat.exit} ===")
        output = printable(seat.output, lines=True)  # what the bot wrote, escapes and all
        print(output, end="" if output.endswith("\n") or not output else "\n")
        if seat.truncated:
            print("[arena: the output was longer; the middle was dropped]")


def remove(args: argparse.Namespace) -> None:
    with arena_api(args) as api:
        if args.version is None:
            bot = api.RemoveBot(arena_pb2.RemoveBotRequest(name=args.name), timeout=30)
            versions = ""
            if bot.versions:
                plural = "s" if len(bot.versions) > 1 else ""
                versions = f" and its version{plural} {', '.join(bot.versions)}"
            print(f"removed {args.name}{versions}{_packages(bot.packages)}")
            return
        one = api.RemoveBotVersion(
            arena_pb2.RemoveBotVersionRequest(name=args.name, version=args.version), timeout=30
        )
    also = f", its only version: {args.name} is removed too" if one.bot_removed else ""
    print(f"removed {args.name}@{args.version}{also}{_packages(one.packages)}")


def _packages(packages: arena_pb2.RemovedPackages) -> str:
    """What became of the removed versions' packages, for the line that says so."""
    said = []
    if packages.freed_bytes:
        said.append(f"{packages.freed_bytes:,} bytes of packages deleted")
    if packages.kept_bytes:
        held = list(packages.kept_for)
        why = (
            f"while tournament {held[0]} still plays them"
            if len(held) == 1
            else f"while tournaments {', '.join(held)} still play them"
            if held
            else "until the next sweep"
        )
        said.append(f"{packages.kept_bytes:,} bytes of packages kept {why}")
    return "; " + "; ".join(said) if said else ""


def check(args: argparse.Namespace) -> None:
    import asyncio
    import json

    from arena.bots.launch import LaunchError, launched
    from arena.referee.bot_check import CheckError, CheckReport, check_bot, render
    from arena.referee.requests import InvalidRequest, check_address

    if not 1 <= args.matches <= 1000:
        raise UsageError(f"--matches must be 1..1000, got {args.matches}")
    if not 0 < args.deadline_ms <= 60_000:
        raise UsageError(
            f"--deadline-ms must be positive and at most 60000, got {args.deadline_ms:g}"
        )
    if (args.bot is None) == (args.bot_command is None):
        raise UsageError(
            "give the bot to check: a running bot's HOST:PORT, FILE.py[:CLASS], MODULE:CLASS "
            "or an example bot, or --bot-command CMD"
        )
    commands, label = _check_commands(args)

    def run(where: str | list[str]) -> CheckReport:
        return asyncio.run(
            check_bot(where, args.game, args.matches, args.deadline_ms / 1000, label=label)
        )

    try:
        if commands:
            with launched(commands) as addresses:
                report = run(addresses)
        else:
            check_address(args.bot)
            report = run(args.bot)
    except (CheckError, InvalidRequest, LaunchError) as error:
        raise CliError(str(error)) from None
    print(json.dumps(report.to_json(), indent=1) if args.json else render(report))
    if not report.ok:
        raise SystemExit(1)


def _check_commands(args: argparse.Namespace) -> tuple[list[str], str]:
    """What ``arena bot check`` starts (nothing for a running bot's address): a command
    once per seat of the bot's team in the games checked, a local bot once."""
    from arena.bots.named import BotLoadError, bot_factory, command, is_local
    from arena.games import game_names, get_game

    if args.bot_command is not None:
        games = args.game or game_names()
        team = max(len(get_game(g).info.seats_of_team(0)) for g in games)
        return [args.bot_command] * team, args.bot_command
    if not is_local(args.bot):
        return [], ""
    try:
        bot_factory(args.bot)
    except BotLoadError as error:
        raise UsageError(f"{error} (or a running bot's HOST:PORT)") from None
    return [command(args.bot)], args.bot


TEMPLATES = {
    "python": ("python3.11", "python3 bot.py"),
    "node": ("node20", "node bot.js"),
}
"""Each template: its runtime and command (``arena.hosting.example_packages``)."""


def template(args: argparse.Namespace) -> None:
    from arena.hosting import example_packages

    directory = Path(args.directory)
    if directory.exists():
        raise CliError(f"{directory} exists: give a directory to make")
    runtime, command = TEMPLATES[args.kind]
    try:
        if args.kind == "node":
            example_packages.node_package(directory)
        else:
            example_packages.house_package(directory)
    except (FileNotFoundError, OSError) as error:
        raise CliError(f"cannot lay out the {args.kind} template: {error}") from None
    print(
        f"arena bot submit NAME {directory} --runtime {runtime} --command {command!r}",
    )
    print(
        f"{directory} holds the {args.kind} example bot, ready to submit as it is (the line "
        "above, with your bot's name and --token-file); change its code as you like",
        file=sys.stderr,
    )
