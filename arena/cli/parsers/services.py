"""Arguments of ``arena referee serve``, ``arena api serve`` and ``arena worker``."""

from __future__ import annotations

import argparse
import os

from arena.cli.parsers import (
    API_TOKEN_ENV,
    READ_TOKEN_ENV,
    REFEREE_TOKEN_ENV,
    add_bot_network_flags,
    add_tls_server_flags,
    positive,
    subcommands,
)
from arena.hosting.private import state_root
from arena.quotas import BOTS_ENV, BYTES_ENV, VERSIONS_ENV, AuthorQuotas, MiB
from arena.throttle import BURST, JOIN_BURST, JOINS_PER_MINUTE, READS_PER_S

DEFAULT_HOSTING_DIR = state_root() / "hosting"
"""As ``arena.referee.hosted.DEFAULT_DIRECTORY``, without loading the referee here."""


def referee(parser: argparse.ArgumentParser) -> None:
    serve = subcommands(parser).add_parser("serve", help="serve the Referee gRPC API")
    serve.add_argument(
        "--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)"
    )
    serve.add_argument("--port", type=int, default=50051, help="port (default 50051; 0 picks one)")
    serve.add_argument(
        "--replay-dir",
        default="",
        help="keep a copy of each replay here, for GetReplay (default: none; every result "
        "carries its match's record, which the arena stores with it)",
    )
    serve.add_argument(
        "--max-concurrent",
        type=int,
        default=256,
        help="matches played at once (by each process, with --processes)",
    )
    serve.add_argument(
        "--processes",
        type=int,
        default=1,
        metavar="N",
        help="serve from N referee processes sharing the port (SO_REUSEPORT), to use N "
        "cores: one process plays its matches on one core (default 1). WatchMatch "
        "reaches the process playing the match through private unix sockets",
    )
    serve.add_argument(
        "--max-watchers",
        type=int,
        default=256,
        metavar="N",
        help="WatchMatch streams open at once (by each process, with --processes; "
        "default 256): more get RESOURCE_EXHAUSTED. Watching is open to anyone who "
        "reaches the port",
    )
    serve.add_argument(
        "--watchers-per-client",
        type=int,
        default=64,
        metavar="N",
        help="WatchMatch streams one client address may hold at once (by each process; "
        "default 64), so that one client cannot take them all; callers with the referee's "
        "token (--token-file) or the read token (--read-token-file) are held only to "
        "--max-watchers",
    )
    serve.add_argument(
        "--caller-keepalive",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="ping callers this often and abandon the matches of one that has not answered "
        "within as long again (default 10): a stopped or cut-off worker's match ends "
        "within twice this, before its lease (ARENA_MATCH_LEASE, 30 s) lets another "
        "worker play it again",
    )
    serve.add_argument(
        "--metrics-port",
        type=int,
        help="serve Prometheus metrics on this port; with --processes, the sum of all "
        "of them (prometheus-client's multiprocess mode: files in $PROMETHEUS_MULTIPROC_DIR, "
        "emptied at start, or in a temporary directory)",
    )
    serve.add_argument(
        "--token-file",
        help="file holding the token that PlayMatch calls must carry "
        f"(default: ${REFEREE_TOKEN_ENV}; neither leaves PlayMatch open)",
    )
    serve.add_argument(
        "--read-token-file",
        help="file holding the read token of a site that watches matches for many people "
        "(arena leaderboard serve --read-token-file): WatchMatch holds it to no client's "
        f"share, and it opens nothing else (default: ${READ_TOKEN_ENV}; neither: no such "
        "token)",
    )
    add_tls_server_flags(serve, calls_bots=True, verifies_clients=True)
    add_bot_network_flags(serve)
    serve.add_argument(
        "--hosting-dir",
        default=str(DEFAULT_HOSTING_DIR),
        help="where hosted bots' packages are kept, one directory per SHA-256, and their "
        f"logs while they play (default {DEFAULT_HOSTING_DIR})",
    )
    serve.add_argument(
        "--sandbox-pool",
        type=int,
        default=0,
        metavar="N",
        help="keep N started sandboxes ready per hosted bot (package, runtime and command), "
        "each for one seat of one match, so that a match need not wait for its bots to "
        "start; 0 (the default) starts them when the match begins (bubblewrap only; "
        "each process keeps its own pool, with --processes)",
    )
    serve.add_argument(
        "--unsafe-no-cgroups",
        action="store_true",
        help="with --launcher bubblewrap, where this host cannot give each sandbox a "
        "cgroup (not root, or no such controllers): run hosted bots anyway, each process "
        "held only by its own limits, so one bot can take the host's memory. For a laptop; "
        "without it such a referee refuses hosted bots",
    )
    serve.add_argument(
        "--launcher",
        choices=("bubblewrap", "kubernetes"),
        default="bubblewrap",
        help="how hosted bots start: a bubblewrap sandbox on this host (the default), or "
        "a pod per seat through the Kubernetes API of the cluster the referee runs in",
    )
    serve.add_argument(
        "--hosted-image",
        action="append",
        default=[],
        metavar="RUNTIME=IMAGE",
        help="with --launcher kubernetes: the image of a runtime's pods (e.g. "
        "python3.11=registry.example/card-arena:1.0), repeatable",
    )
    serve.add_argument(
        "--pod-template",
        metavar="FILE",
        help="with --launcher kubernetes: the pod templates, by runtime (JSON as kubectl "
        "-o json writes it; YAML if PyYAML is installed); default deploy/k8s/hosted-bot/pod.yaml",
    )
    serve.add_argument(
        "--kubernetes-namespace",
        metavar="NAME",
        help="with --launcher kubernetes: the namespace of the bots' pods (default the "
        "referee's own)",
    )
    serve.set_defaults(run="services:referee_serve")


def api(parser: argparse.ArgumentParser) -> None:
    api = subcommands(parser).add_parser(
        "serve", help="serve the Arena gRPC API (bots, tournaments, leaderboard)"
    )
    api.add_argument(
        "--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)"
    )
    api.add_argument("--port", type=int, default=50050, help="port (default 50050; 0 picks one)")
    _redis_flag(api)
    api.add_argument("--metrics-port", type=int, help="serve Prometheus metrics on this port")
    api.add_argument(
        "--token-file",
        help=f"file holding the token that write calls must carry (default: ${API_TOKEN_ENV}; "
        "neither leaves writes open)",
    )
    api.add_argument(
        "--read-token-file",
        help="file holding a token that exempts a client's costly reads from the budget of "
        "its address (the leaderboard site's, which reads for all its visitors) and opens "
        f"nothing else (default: ${READ_TOKEN_ENV}; neither: no such token)",
    )
    api.add_argument(
        "--reads-per-s",
        type=positive(float),
        default=READS_PER_S,
        metavar="R",
        help="costly reads (OpenSkill, CompareBots, every result of a tournament, replays) "
        f"one client address without a token may make a second (default {READS_PER_S:g}); "
        "more get RESOURCE_EXHAUSTED with retry-after",
    )
    api.add_argument(
        "--read-burst",
        type=positive(int),
        default=BURST,
        metavar="N",
        help=f"how many of those it may make at once after a pause (default {BURST})",
    )
    api.add_argument(
        "--joins-per-minute",
        type=positive(float),
        default=JOINS_PER_MINUTE,
        metavar="R",
        help="JoinCompetition calls (joining a competition by invite, anonymous) one client "
        f"address may make a minute (default {JOINS_PER_MINUTE:g}); more get "
        "RESOURCE_EXHAUSTED with retry-after",
    )
    api.add_argument(
        "--join-burst",
        type=positive(int),
        default=JOIN_BURST,
        metavar="N",
        help=f"how many joins it may make at once after a pause (default {JOIN_BURST})",
    )
    add_tls_server_flags(api, calls_bots=True)
    add_bot_network_flags(api)
    api.add_argument(
        "--referee",
        action="append",
        default=[],
        metavar="ADDR",
        help="referee host:port, repeatable (default $ARENA_REFEREES): SubmitBot starts "
        "each submitted bot there (CheckBot), one referee after another while one is "
        "unreachable; with none, the API starts it in a bubblewrap sandbox on this host",
    )
    _referee_client_flags(api)
    quotas = AuthorQuotas()
    api.add_argument(
        "--author-max-bots",
        default=os.environ.get(BOTS_ENV, str(quotas.bots)),
        metavar="N",
        help=f"hosted bots an author may have (default ${BOTS_ENV} or {quotas.bots}); the "
        "operator has no quotas",
    )
    api.add_argument(
        "--author-max-versions",
        default=os.environ.get(VERSIONS_ENV, str(quotas.versions)),
        metavar="N",
        help=f"versions of each (default ${VERSIONS_ENV} or {quotas.versions})",
    )
    api.add_argument(
        "--author-max-bytes",
        default=os.environ.get(BYTES_ENV, f"{quotas.bytes // MiB}MiB"),
        metavar="SIZE",
        help=f"bytes of packages an author's versions hold, each distinct package once, e.g. "
        f"64MiB or 1GiB (default ${BYTES_ENV} or {quotas.bytes // MiB}MiB)",
    )
    api.set_defaults(run="services:api_serve")


def worker(parser: argparse.ArgumentParser) -> None:
    _redis_flag(parser)
    parser.add_argument(
        "--referee",
        action="append",
        default=[],
        metavar="ADDR",
        help="referee host:port, repeatable (default $ARENA_REFEREES or 127.0.0.1:50051)",
    )
    parser.add_argument("--concurrency", type=int, default=2, help="matches at once (default 2)")
    parser.add_argument("--name", default="", help="worker node name (default: celery's)")
    parser.add_argument("--loglevel", default="WARNING", help="Celery log level (default WARNING)")
    parser.add_argument(
        "--metrics-port", type=int, help="serve Prometheus metrics of all its processes here"
    )
    parser.add_argument("--metrics-host", default="127.0.0.1", help="interface for --metrics-port")
    _referee_client_flags(parser)
    parser.set_defaults(run="services:worker")


def _referee_client_flags(parser: argparse.ArgumentParser) -> None:
    """How a process reaches the referees: TLS and their token (the workers; the API)."""
    parser.add_argument(
        "--referee-ca",
        help="call referees over TLS, trusting the CAs in this PEM file "
        "(default $ARENA_REFEREE_CA)",
    )
    parser.add_argument(
        "--referee-cert",
        help="client certificate (PEM) for referees that require mutual TLS, with "
        "--referee-key and --referee-ca (default $ARENA_REFEREE_CERT)",
    )
    parser.add_argument(
        "--referee-key", help="the client certificate's key (default $ARENA_REFEREE_KEY)"
    )
    parser.add_argument(
        "--referee-token-file",
        help=f"file holding the referees' token (default ${REFEREE_TOKEN_ENV})",
    )


def _redis_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--redis",
        default=os.environ.get("ARENA_REDIS_URL", "redis://127.0.0.1:6379/0"),
        help="Redis URL (default $ARENA_REDIS_URL or redis://127.0.0.1:6379/0)",
    )
