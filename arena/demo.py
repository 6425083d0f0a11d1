"""``make demo``: a whole arena on this machine, a tournament across every game, the
leaderboard, and nothing left running.

It starts a Redis on a free loopback port, a referee, the arena API, two Celery workers
and two example bots (the rule-based house bot and a seeded random bot) as separate
processes, and registers them through the API by address. Two more bots are hosted: the
house bot as a Python package and the Node.js example bot as a Node package, submitted
through the API (which has the referee start and check them), and the referee starts
them in a sandbox for each seat of each match. It
then runs a round robin over all games with a progress bar, prints the leaderboard (all
games together, then each game's in one table) and stops everything it started.
"""

from __future__ import annotations

import argparse
import contextlib
import secrets
import tempfile
from pathlib import Path

from rich.console import Console

from arena.access import REFEREE
from arena.cli.connect import arena_api
from arena.cli.tournament import follow, print_game_boards
from arena.games import game_names
from arena.hosting.example_packages import (
    NODE_COMMAND,
    PYTHON_COMMAND,
    house_package,
    node_package,
)
from arena.hosting.package import pack
from arena.hosting.transfer import submission
from arena.local_redis import start_redis
from arena.processes import arena_command, start_service
from arena.tournament.progress import fairness
from arena.v1 import arena_pb2, arena_pb2_grpc

DEMO_SEED = 2026
BOTS = {
    "house": ("house",),
    "random": ("random", "--seed", "1"),
}
HOSTED = {
    "house-hosted": (house_package, "python3.11", PYTHON_COMMAND),
    "node-hosted": (node_package, "node20", NODE_COMMAND),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=2, help="deal seeds per pairing and game")
    parser.add_argument("--workers", type=int, default=2, help="Celery workers to start")
    parser.add_argument(
        "--seed",
        type=int,
        default=DEMO_SEED,
        help="the tournament's master seed: the same seed deals the same cards, and the "
        "demo's bots play them the same way, so two runs end on the same results",
    )
    args = parser.parse_args()
    # Soft wrap: a status line piped to a file or CI log stays one line, not cut at 80.
    console = Console(stderr=True, soft_wrap=True)
    replay_dir = tempfile.mkdtemp(prefix="arena-demo-")
    with contextlib.ExitStack() as stack:
        with console.status("starting Redis, a referee, the API, workers and bots"):
            redis_server = start_redis()
            stack.callback(redis_server.stop)
            url = redis_server.url()

            # The referee plays only for the demo's workers, which hold its token.
            referee_token = {REFEREE.env: secrets.token_urlsafe(32)}

            def start(*command: str, env: dict[str, str] | None = None) -> str:
                service = start_service(arena_command(*command), env=env)
                stack.callback(service.stop)
                return service.address

            referee = start(
                "referee", "serve", "--port", "0", "--replay-dir", replay_dir,
                "--hosting-dir", str(Path(replay_dir) / "hosting"), env=referee_token,
            )  # fmt: skip
            # The API checks submitted bots on the referee: no bot code runs in the API.
            api_address = start(
                "api", "serve", "--port", "0", "--redis", url, "--referee", referee,
                env=referee_token,
            )  # fmt: skip
            for n in range(args.workers):
                start(
                    "worker", "--redis", url, "--referee", referee, "--name", f"demo{n + 1}@%h",
                    env=referee_token,
                )  # fmt: skip
            bots = {
                name: start("bot", "serve", *flags, "--port", "0") for name, flags in BOTS.items()
            }
        console.print(
            f"Redis {url}, referee {referee}, arena API {api_address}, {args.workers} workers"
        )
        with arena_api(api_address) as api:
            for name, address in bots.items():
                api.RegisterBot(arena_pb2.RegisterBotRequest(name=name, address=address))
            console.print("bots: " + ", ".join(f"{n} ({a})" for n, a in bots.items()))
            with console.status("submitting the hosted bots' packages"):
                for name, (make, runtime, command) in HOSTED.items():
                    blob = pack(make(Path(replay_dir) / "packages" / name))
                    request = arena_pb2.SubmitBotRequest(
                        name=name, version="1", runtime=runtime, command=command, package=blob
                    )
                    version = api.SubmitBot(submission(request))
                    console.print(
                        f"hosted: {version.name}@{version.version} ({runtime}, "
                        f"{version.package_bytes:,} bytes, sha256 {version.package_sha256[:12]})"
                    )
            entries = [*bots, *HOSTED]
            tournament = api.SubmitTournament(
                arena_pb2.SubmitTournamentRequest(
                    spec=arena_pb2.TournamentSpec(
                        entries=entries, deals=args.deals, name="demo", master_seed=args.seed
                    )
                )
            )
            console.print(
                f"tournament {tournament.id}: {tournament.matches_total} matches over "
                f"{', '.join(game_names())}; {fairness(tournament)}"
            )
            follow(api, tournament.id)
            game_boards(api, tournament)
        console.print(f"replays in {replay_dir} (arena replay show --replay-dir {replay_dir} ID)")
    console.print("everything the demo started has stopped")


def game_boards(api: arena_pb2_grpc.ArenaStub, tournament: arena_pb2.Tournament) -> None:
    """Each game's board of the tournament in one table, the bots in their overall order:
    every bot ranked in every game with its interval (provisional ones marked), since a
    demo's few deals a game rank all the same."""

    def board(game: str) -> arena_pb2.Leaderboard:
        request = arena_pb2.GetLeaderboardRequest(tournament_id=tournament.id, game=game)
        found: arena_pb2.Leaderboard = api.GetLeaderboard(request, timeout=60)
        return found

    bots = [row.bot for row in board("").rows]
    print_game_boards([board(game) for game in tournament.games], bots)


if __name__ == "__main__":
    main()
