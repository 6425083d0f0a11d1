"""Arguments of ``arena bot serve|check|register|template|submit|versions|logs|list|remove``."""

from __future__ import annotations

import argparse

from arena.cli.parsers import GAME_HELP, add_api_flag, add_tls_server_flags, game, subcommands
from arena.cli.parsers.match import bot_command

RUNTIMES = ("python3.11", "node20", "binary")
"""``arena.hosting.runtimes.NAMES``, for the help of ``--runtime``."""
TEMPLATES = ("python", "node")
"""``arena.cli.bot.TEMPLATES``' keys."""


def bot(parser: argparse.ArgumentParser) -> None:
    bots = subcommands(parser)
    serve = bots.add_parser("serve", help="serve one of the example bots")
    serve.add_argument("name", help="an example bot: house, random, paced, chaos or GAME-basic")
    serve.add_argument("--port", type=int, default=50061, help="port (default 50061; 0 picks one)")
    serve.add_argument("--host", default="127.0.0.1", help="interface to listen on")
    serve.add_argument("--seed", type=int, default=0, help="random, paced and chaos bots: seed")
    serve.add_argument("--no-stream", action="store_true", help="answer unary Act calls only")
    serve.add_argument(
        "--mode",
        help="chaos bot, mid-match: hang, late, slow, crash, illegal, error, oversize, "
        "wrong-match, garbage, double or stale; at Hello: die-before, mute or garbage-hello "
        "(default hang; see arena/bots/examples/chaos.py)",
    )
    serve.add_argument(
        "--after",
        type=int,
        default=0,
        help="chaos bot: decisions of a match (by any seat) before it misbehaves "
        "(die-before: Hello calls answered before dying)",
    )
    serve.add_argument(
        "--delay-ms",
        type=int,
        help="paced bot: time per decision (default 50); chaos bot: slow mode's delay, "
        "late mode's time past the deadline (default 50)",
    )
    serve.add_argument(
        "--pace-file",
        metavar="FILE",
        help="paced bot: take the time only while FILE exists (default: always)",
    )
    add_tls_server_flags(serve)
    serve.set_defaults(run="bot:serve")

    check = bots.add_parser(
        "check", help="play a bot against the house bot in every game it claims; exit 1 on a fault"
    )
    check.add_argument(
        "bot",
        nargs="?",
        help="the bot: a running one's host:port, or one to start here as `arena test "
        "--local` takes it (FILE.py[:CLASS], MODULE:CLASS or an example bot)",
    )
    check.add_argument(
        "--bot-command",
        type=bot_command,
        metavar="CMD",
        help="instead of BOT: start the bot with CMD, one process per seat of its team, "
        "'{port}' in CMD being its port",
    )
    check.add_argument(
        "--game",
        action="append",
        default=[],
        type=game,
        help=f"only this {GAME_HELP}; repeatable (default: all it plays)",
    )
    check.add_argument("--matches", type=int, default=4, help="matches per game (default 4)")
    check.add_argument(
        "--deadline-ms", type=float, default=1000, help="time per decision (default 1000)"
    )
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    check.set_defaults(run="bot:check")

    register = bots.add_parser("register", help="register a running bot with the arena")
    register.add_argument("name", help="registry name (letters, digits, '-', '_', '.')")
    register.add_argument("address", help="where referees reach the bot, host:port")
    register.add_argument(
        "--author",
        default="",
        help="the author who owns it (one `arena author add` made), held to tournaments' "
        "per-author entry limits (default: none, a house bot of the operator's)",
    )
    add_api_flag(register)
    register.set_defaults(run="bot:register")

    submit = bots.add_parser(
        "submit",
        help="submit a version of a hosted bot: its files, which the arena runs in a sandbox",
    )
    submit.add_argument("name", help="bot name (letters, digits, '-', '_', '.')")
    submit.add_argument("directory", help="the bot's files, packed as they are (no symlinks)")
    submit.add_argument(
        "--runtime", required=True, help=f"what runs it: one of {', '.join(RUNTIMES)}"
    )
    submit.add_argument(
        "--command",
        required=True,
        help="what starts it in that directory, e.g. 'python3 bot.py' or './engine --fast'",
    )
    submit.add_argument(
        "--version",
        help="a new label for this version (default: the time now in UTC, e.g. 20261203T101500Z)",
    )
    add_api_flag(submit)
    submit.set_defaults(run="bot:submit")

    versions = bots.add_parser("versions", help="list a hosted bot's versions, newest first")
    versions.add_argument("name")
    add_api_flag(versions)
    versions.set_defaults(run="bot:versions")

    logs = bots.add_parser(
        "logs", help="print what a hosted bot wrote in one match (its author or the operator)"
    )
    logs.add_argument("name")
    logs.add_argument("match", help="match id, as `arena tournament results` shows it")
    logs.add_argument(
        "--tournament",
        metavar="ID",
        default="",
        help="the tournament, when MATCH is a public id (p and 20 hex digits, as a running "
        "ladder's results show)",
    )
    add_api_flag(logs)
    logs.set_defaults(run="bot:logs")

    listing = bots.add_parser("list", help="list registered bots")
    add_api_flag(listing)
    listing.set_defaults(run="bot:list_bots")

    remove = bots.add_parser(
        "remove",
        help="remove a bot, or one version of a hosted bot, and the packages only it used "
        "(an author: bots of their own)",
    )
    remove.add_argument("name")
    remove.add_argument(
        "--version",
        metavar="V",
        help="remove only this version of the hosted bot (its only one: the bot too)",
    )
    add_api_flag(remove)
    remove.set_defaults(run="bot:remove")

    template = bots.add_parser(
        "template",
        help="lay out an example bot as a package `arena bot submit` takes as it is, and "
        "print the command that submits it",
    )
    template.add_argument(
        "kind",
        choices=TEMPLATES,
        help="python: the house bot in one file; node: the Node.js example bot with its "
        "node_modules and the arena's .proto files (needs a checkout of the repository, "
        "after `make node`)",
    )
    template.add_argument("directory", help="where to lay it out (must not exist yet)")
    template.set_defaults(run="bot:template")
