"""What the ``arena`` command loads: ``--help`` nothing that its commands run, a read such
as ``bot list`` grpc and the API's messages but no server, store or rating code; and the
lazily built parser says and does exactly what the whole one does."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Iterator

import pytest

from arena import access, bot_networks, limits
from arena.cli import command, parser
from arena.cli import tournament as tournament_run
from arena.cli.parsers import (
    API_TOKEN_ENV,
    BOT_ALLOW_ENV,
    BOT_DENY_ENV,
    COMMANDS,
    GAMES,
    READ_TOKEN_ENV,
    REFEREE_TOKEN_ENV,
    bot,
    tournament,
)
from arena.games import game_names
from arena.games.registry import builtin_game_packages
from arena.hosting.runtimes import NAMES
from arena.local_redis import LocalRedis
from arena.processes import Service, arena_command, start_service
from arena.tournament.fair_play import MAX_SEED
from arena.v1 import arena_pb2
from arena.web import relay
from tests.support.database import next_database

ENGINES = tuple(builtin_game_packages())
NEVER_FOR_HELP = ("grpc", "google.protobuf", "celery", "redis", "numpy", "rich", *ENGINES)
NEVER_FOR_A_READ = ("celery", "redis", "numpy", "scipy", "starlette", "prometheus_client", *ENGINES)

# Runs the command in this interpreter and says which modules it loaded, as JSON on the
# last line of stdout.
MODULES_AFTER = """
import json, sys
from arena.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as done:
    code = done.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def run_and_list_modules(*args: str) -> tuple[int, list[str], set[str]]:
    """The exit code, the output lines before the report, and the modules loaded."""
    done = subprocess.run(
        [sys.executable, "-c", MODULES_AFTER, *args], capture_output=True, text=True, timeout=120
    )
    *lines, last = done.stdout.splitlines()
    report = json.loads(last)
    return report["code"], lines, set(report["modules"])


def loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    """Which of ``names``, or of their submodules, are among ``modules``."""
    return sorted(m for m in modules if m in names or m.startswith(tuple(n + "." for n in names)))


@pytest.mark.parametrize("args", [("--help",), ("bot", "--help"), ("tournament", "run", "--help")])
def test_help_loads_nothing_its_commands_run(args: tuple[str, ...]) -> None:
    code, lines, modules = run_and_list_modules(*args)
    assert code == 0
    assert lines[0].startswith("usage: arena")
    assert loaded(modules, NEVER_FOR_HELP) == []


def test_the_whole_parser_loads_nothing_its_commands_run() -> None:
    probe = "import json, sys; from arena.cli import parser; parser(); print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    modules = set(json.loads(done.stdout))
    assert "arena.cli.parsers.services" in modules  # it did build every command
    assert loaded(modules, NEVER_FOR_HELP) == []


def test_the_house_and_random_bots_start_without_any_games_rules() -> None:
    """A hosted house bot starts afresh in a sandbox for every match: it loads each game's
    example bot, never the engines (a third of its start-up once)."""
    probe = (
        "import json, sys; from arena.bots.examples import EXAMPLES; "
        "house = EXAMPLES['house'](); EXAMPLES['random'](); "
        "print(json.dumps([sorted(house.games), sorted(sys.modules)]))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    games, modules = json.loads(done.stdout)
    assert games == sorted(game_names())
    assert {f"{package}.bot" for package in ENGINES} <= set(modules)
    assert [m for m in modules if m.endswith((".game", ".state", ".rules"))] == []


@pytest.fixture
def api(local_redis: LocalRedis) -> Iterator[Service]:
    url = local_redis.url(next_database())
    started = start_service(arena_command("api", "serve", "--port", "0", "--redis", url))
    yield started
    started.stop()


def test_bot_list_loads_no_server_store_or_rating_code(api: Service, random_bot: Service) -> None:
    registered = subprocess.run(
        arena_command("bot", "register", "lister", random_bot.address, "--api", api.address),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert registered.returncode == 0, registered.stderr
    code, lines, modules = run_and_list_modules("bot", "list", "--api", api.address)
    assert code == 0
    assert [line.split()[:2] for line in lines] == [["lister", random_bot.address]]
    assert "grpc" in modules and "arena.v1.arena_pb2" in modules
    assert loaded(modules, NEVER_FOR_A_READ) == []


def commands(top: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    yield path
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from commands(sub, (*path, name))


def at(top: argparse.ArgumentParser, path: tuple[str, ...]) -> argparse.ArgumentParser:
    for name in path:
        action = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
        top = action.choices[name]
    return top


@pytest.mark.parametrize("path", list(commands(parser())), ids=" ".join)
def test_the_parser_built_for_a_command_is_the_whole_ones(path: tuple[str, ...]) -> None:
    whole = at(parser(), path)
    built = at(parser([*path, "--help"]), path)
    assert built.format_help() == whole.format_help()
    if whole.get_default("run"):
        assert callable(command(whole.get_default("run")))


def test_every_top_level_command_is_listed_with_its_arguments() -> None:
    top = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert list(top.choices) == list(COMMANDS)
    for name, (module, _) in COMMANDS.items():
        assert top.choices[name]._actions[1:], f"{module}.{name} added no arguments"


def test_the_copies_in_the_parsers_match_what_they_copy() -> None:
    assert tuple(game_names()) == GAMES
    assert bot.RUNTIMES == NAMES
    assert tournament.MAX_SEED == MAX_SEED
    assert tournament.MAX_BROADCAST_DELAY_S == limits.MAX_BROADCAST_DELAY_S
    assert tournament.VIEWERS_PER_CLIENT == relay.PER_CLIENT
    every_partners = set(arena_pb2.Partners.values()) - {arena_pb2.PARTNERS_UNSPECIFIED}
    assert set(tournament_run.PARTNERS_CHOICES.values()) == every_partners
    assert (access.API.env, access.REFEREE.env) == (API_TOKEN_ENV, REFEREE_TOKEN_ENV)
    assert access.READ_TOKEN_ENV == READ_TOKEN_ENV
    assert (BOT_ALLOW_ENV, BOT_DENY_ENV) == (bot_networks.ALLOW_ENV, bot_networks.DENY_ENV)
    every_format = set(arena_pb2.TournamentFormat.values()) - {arena_pb2.FORMAT_UNSPECIFIED}
    assert set(tournament_run.FORMAT_CHOICES.values()) == every_format
    every_mode = set(arena_pb2.FairPlay.values()) - {arena_pb2.FAIR_PLAY_UNSPECIFIED}
    assert set(tournament_run.FAIR_PLAY_CHOICES.values()) == every_mode
