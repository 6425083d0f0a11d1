"""``arena referee serve``, ``arena api serve`` and ``arena worker``: the long-running parts."""

from __future__ import annotations

import argparse
import functools
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from arena.access import API, REFEREE
from arena.cli.common import (
    DEFAULT_REPLAY_DIR,
    CliError,
    Groups,
    add_bot_network_flags,
    add_tls_server_flags,
    bot_networks_from_flags,
    group,
    tls_from_flags,
    token_from_flags,
)

if TYPE_CHECKING:
    from arena.api.hosted import Referees
    from arena.hosting.pool import Launcher
    from arena.referee.processes import Siblings

DEFAULT_HOSTING_DIR = Path(tempfile.gettempdir()) / "arena-hosting"
"""As ``arena.referee.hosted.DEFAULT_DIRECTORY``, without loading the referee here."""


def add_commands(groups: Groups) -> None:
    serve = group(groups, "referee", "run a referee").add_parser(
        "serve", help="serve the Referee gRPC API"
    )
    serve.add_argument(
        "--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)"
    )
    serve.add_argument("--port", type=int, default=50051, help="port (default 50051; 0 picks one)")
    serve.add_argument("--replay-dir", default=DEFAULT_REPLAY_DIR, help="where replays are written")
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
        "--metrics-port",
        type=int,
        help="serve Prometheus metrics on this port; with --processes, the sum of all "
        "of them (prometheus-client's multiprocess mode: files in $PROMETHEUS_MULTIPROC_DIR, "
        "emptied at start, or in a temporary directory)",
    )
    serve.add_argument(
        "--token-file",
        help=f"file holding the token that PlayMatch calls must carry (default: ${REFEREE.env}; "
        "neither leaves PlayMatch open)",
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
    serve.set_defaults(run=_referee_serve)

    api = group(groups, "api", "run the arena API").add_parser(
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
        help=f"file holding the token that write calls must carry (default: ${API.env}; "
        "neither leaves writes open)",
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
    api.set_defaults(run=_api_serve)

    worker = groups.add_parser("worker", help="run a Celery worker that plays tournament matches")
    _redis_flag(worker)
    worker.add_argument(
        "--referee",
        action="append",
        default=[],
        metavar="ADDR",
        help="referee host:port, repeatable (default $ARENA_REFEREES or 127.0.0.1:50051)",
    )
    worker.add_argument("--concurrency", type=int, default=2, help="matches at once (default 2)")
    worker.add_argument("--name", default="", help="worker node name (default: celery's)")
    worker.add_argument("--loglevel", default="WARNING", help="Celery log level (default WARNING)")
    worker.add_argument(
        "--metrics-port", type=int, help="serve Prometheus metrics of all its processes here"
    )
    worker.add_argument("--metrics-host", default="127.0.0.1", help="interface for --metrics-port")
    _referee_client_flags(worker)
    worker.set_defaults(run=_worker)


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
        help=f"file holding the referees' token (default ${REFEREE.env})",
    )


def _redis_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--redis",
        default=os.environ.get("ARENA_REDIS_URL", "redis://127.0.0.1:6379/0"),
        help="Redis URL (default $ARENA_REDIS_URL or redis://127.0.0.1:6379/0)",
    )


def _referee_serve(args: argparse.Namespace) -> None:
    if args.processes < 1:
        raise CliError(f"--processes must be 1 or more, not {args.processes}")
    if args.processes == 1:
        _serve_referee(args)
        return
    from arena.referee import processes
    from arena.referee.banner import announce

    # Every child reads the flags again; check them once here, where a mistake is one line.
    _check_limits(args)
    _launcher(args)
    tls, _ = tls_from_flags(args)
    token = token_from_flags(args.token_file, REFEREE)
    try:
        processes.run(
            args.processes,
            args.host,
            args.port,
            functools.partial(_referee_child, args),
            functools.partial(
                announce, args.host, tls=tls, token=token, metrics_port=args.metrics_port
            ),
            metrics_port=args.metrics_port,
        )
    except (OSError, processes.ChildFailed) as error:
        raise CliError(str(error)) from None


def _referee_child(
    args: argparse.Namespace, port: int, siblings: Siblings, ready: Callable[[int], None]
) -> None:
    """One of ``--processes`` referees, on the port its parent reserved; the parent
    serves the metrics and says where it listens."""
    args.port = port
    args.metrics_port = None
    try:
        _serve_referee(args, siblings, on_ready=ready)
    except CliError as error:
        print(f"arena: error: {error}", file=sys.stderr)
        sys.exit(1)


def _check_limits(args: argparse.Namespace) -> None:
    if args.max_watchers < 1:
        raise CliError(f"--max-watchers must be 1 or more, not {args.max_watchers}")
    if args.sandbox_pool < 0:
        raise CliError(f"--sandbox-pool must be 0 (no pool) or more, not {args.sandbox_pool}")


def _serve_referee(
    args: argparse.Namespace,
    siblings: Siblings | None = None,
    on_ready: Callable[[int], None] | None = None,
) -> None:
    from arena.referee.service import serve

    _check_limits(args)
    launcher = _launcher(args)
    tls, bot_credentials = tls_from_flags(args)
    token = token_from_flags(args.token_file, REFEREE)
    try:
        serve(
            host=args.host,
            port=args.port,
            replay_dir=args.replay_dir,
            max_concurrent=args.max_concurrent,
            metrics_port=args.metrics_port,
            token=token or None,
            tls=tls,
            bot_credentials=bot_credentials,
            bot_networks=bot_networks_from_flags(args),
            hosting_dir=args.hosting_dir,
            sandbox_pool=args.sandbox_pool,
            launcher=launcher,
            max_watchers=args.max_watchers,
            siblings=siblings,
            on_ready=on_ready,
        )
    except OSError as error:
        raise CliError(str(error)) from None


def _launcher(args: argparse.Namespace) -> Launcher:
    """What starts hosted bots: ``--launcher`` and the pod launcher's flags."""
    from arena.hosting.pool import BUBBLEWRAP

    pod_flags = args.hosted_image or args.pod_template or args.kubernetes_namespace
    if args.launcher != "kubernetes":
        if pod_flags:
            raise CliError(
                "--hosted-image, --pod-template and --kubernetes-namespace need "
                "--launcher kubernetes"
            )
        return BUBBLEWRAP
    from arena.hosting.kubernetes import (
        POD_RUNTIMES,
        KubernetesApi,
        KubernetesError,
        PodLauncher,
        load_templates,
    )
    from arena.hosting.sandbox import SandboxError

    if args.sandbox_pool:
        raise CliError("--sandbox-pool needs --launcher bubblewrap: pods start per match")
    images = {}
    for item in args.hosted_image:
        name, equals, image = item.partition("=")
        if not equals or not image or name not in POD_RUNTIMES:
            raise CliError(
                f"--hosted-image {item!r}: give RUNTIME=IMAGE, RUNTIME one of "
                f"{', '.join(POD_RUNTIMES)}"
            )
        images[name] = image
    try:
        templates = load_templates(Path(args.pod_template)) if args.pod_template else None
        api = KubernetesApi.in_cluster()
    except (OSError, SandboxError, KubernetesError, ValueError) as error:
        raise CliError(str(error)) from None
    if args.kubernetes_namespace:
        api.namespace = args.kubernetes_namespace
    return PodLauncher(api, images=images, templates=templates)


def _api_serve(args: argparse.Namespace) -> None:
    os.environ["ARENA_REDIS_URL"] = args.redis  # the Celery app that queues matches reads it
    from arena.api.service import serve

    tls, bot_credentials = tls_from_flags(args)
    token = token_from_flags(args.token_file, API)
    referees = _referees(args)
    try:
        serve(
            args.redis,
            host=args.host,
            port=args.port,
            metrics_port=args.metrics_port,
            token=token or None,
            tls=tls,
            bot_credentials=bot_credentials,
            bot_networks=bot_networks_from_flags(args),
            referees=referees,
        )
    except OSError as error:
        raise CliError(str(error)) from None


def _referees(args: argparse.Namespace) -> Referees | None:
    """The referees that check submitted bots: ``--referee`` or $ARENA_REFEREES, with
    the token, CA and client certificate the workers use (their flags or variables)."""
    from arena.api.hosted import Referees
    from arena.referee.requests import InvalidRequest, check_address
    from arena.tls import channel_credentials

    listed = args.referee or os.environ.get("ARENA_REFEREES", "").split(",")
    addresses = tuple(a.strip() for a in listed if a.strip())
    if not addresses:
        return None
    for address in addresses:
        try:
            check_address(address)
        except InvalidRequest as error:
            raise CliError(f"--referee / ARENA_REFEREES: {error}") from None
    ca = args.referee_ca or os.environ.get("ARENA_REFEREE_CA", "")
    cert = args.referee_cert or os.environ.get("ARENA_REFEREE_CERT", "")
    key = args.referee_key or os.environ.get("ARENA_REFEREE_KEY", "")
    if (cert or key) and not ca:
        raise CliError("--referee-cert and --referee-key need --referee-ca (TLS)")
    try:
        credentials = channel_credentials(ca, cert or None, key or None) if ca else None
    except (OSError, ValueError) as error:
        raise CliError(f"referee TLS: {error}") from None
    token = token_from_flags(args.referee_token_file, REFEREE)
    return Referees(addresses, token, credentials)


def _worker(args: argparse.Namespace) -> None:
    # Settings are read from the environment when the Celery app is imported.
    os.environ["ARENA_REDIS_URL"] = args.redis
    if args.referee:
        os.environ["ARENA_REFEREES"] = ",".join(args.referee)
    for flag, variable in (
        (args.referee_ca, "ARENA_REFEREE_CA"),
        (args.referee_cert, "ARENA_REFEREE_CERT"),
        (args.referee_key, "ARENA_REFEREE_KEY"),
    ):
        if flag:
            os.environ[variable] = flag
    if args.referee_token_file:
        os.environ[REFEREE.env] = token_from_flags(args.referee_token_file, REFEREE)
    from arena.store.reach import StoreUnreachable, connect
    from workers.settings import Settings

    try:
        Settings()  # the Celery app reads them on import, where a mistake is a traceback
    except ValueError as error:
        raise CliError(str(error)) from None
    try:
        connect(args.redis).close()  # Celery would retry in silence for ever
    except StoreUnreachable as error:
        raise CliError(str(error)) from None
    if args.metrics_port is not None:
        from workers import multiproc

        try:
            multiproc.prepare()
        except (OSError, RuntimeError) as error:
            raise CliError(f"cannot set up the metrics directory: {error}") from None
    from workers import metrics
    from workers.app import app

    if args.metrics_port is not None:
        try:
            metrics.serve(args.metrics_port, args.redis, host=args.metrics_host)
        except OSError as error:
            raise CliError(f"cannot serve metrics on port {args.metrics_port}: {error}") from None
        print(
            f"worker metrics on http://{args.metrics_host}:{args.metrics_port}/metrics", flush=True
        )

    argv = [
        "worker",
        f"--loglevel={args.loglevel}",
        f"--concurrency={args.concurrency}",
        "--without-gossip",
        "--without-mingle",
    ]
    if args.name:
        argv.append(f"--hostname={args.name}")
    app.worker_main(argv)
