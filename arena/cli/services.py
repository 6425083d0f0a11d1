"""``arena referee serve``, ``arena api serve`` and ``arena worker``: the long-running parts."""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from arena.access import API, REFEREE
from arena.bot_networks import ALLOW_ENV, DENY_ENV, BotNetworks, parse_networks
from arena.cli.common import CliError, UsageError, loading
from arena.cli.connect import token_from_flags
from arena.cli.parsers import READ_TOKEN_ENV
from arena.quotas import BOTS_ENV, BYTES_ENV, VERSIONS_ENV, AuthorQuotas, parse_count, parse_size
from arena.tls import ServerTls, channel_credentials, server_tls

if TYPE_CHECKING:
    import grpc

    from arena.api.hosted import Referees
    from arena.hosting.pool import Launcher
    from arena.referee.processes import Siblings


def tls_from_flags(
    args: argparse.Namespace,
) -> tuple[ServerTls | None, grpc.ChannelCredentials | None]:
    """A server's TLS and, for one that calls bots, the credentials it calls them with."""
    try:
        tls = server_tls(args.tls_cert, args.tls_key, getattr(args, "tls_client_ca", None))
        ca = getattr(args, "bot_tls_ca", None)
        return tls, channel_credentials(ca) if ca else None
    except (OSError, ValueError) as error:
        raise CliError(str(error)) from None


def bot_networks_from_flags(args: argparse.Namespace) -> BotNetworks:
    try:
        return BotNetworks(
            parse_networks(args.bot_networks_allow, f"--bot-networks-allow (${ALLOW_ENV})"),
            parse_networks(args.bot_networks_deny, f"--bot-networks-deny (${DENY_ENV})"),
        )
    except ValueError as error:
        raise CliError(str(error)) from None


def referee_serve(args: argparse.Namespace) -> None:
    if args.processes < 1:
        raise UsageError(f"--processes must be 1 or more, not {args.processes}")
    _say_containment(_launcher(args))
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
        raise UsageError(f"--max-watchers must be 1 or more, not {args.max_watchers}")
    if args.watchers_per_client < 1:
        raise UsageError(f"--watchers-per-client must be 1 or more, not {args.watchers_per_client}")
    if args.sandbox_pool < 0:
        raise UsageError(f"--sandbox-pool must be 0 (no pool) or more, not {args.sandbox_pool}")
    if args.caller_keepalive < 0.1:
        raise UsageError(f"--caller-keepalive must be 0.1 s or more, not {args.caller_keepalive}")


def _serve_referee(
    args: argparse.Namespace,
    siblings: Siblings | None = None,
    on_ready: Callable[[int], None] | None = None,
) -> None:
    with loading():
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
            watchers_per_client=args.watchers_per_client,
            read_token=token_from_flags(args.read_token_file, READ_TOKEN_ENV) or None,
            siblings=siblings,
            on_ready=on_ready,
            caller_keepalive_s=args.caller_keepalive,
        )
    except OSError as error:
        raise CliError(str(error)) from None


def _say_containment(launcher: Launcher) -> None:
    """One line at start where hosted bots will be refused, or run without a cgroup."""
    from arena.hosting import cgroups
    from arena.hosting.pool import Bubblewrap, uncontained

    if not isinstance(launcher, Bubblewrap) or (missing := cgroups.why_not()) is None:
        return
    if launcher.unsafe_no_cgroups:
        print(f"arena: warning: hosted bots run without a cgroup ({missing})", file=sys.stderr)
    else:
        print(f"arena: hosted bots are refused: {uncontained(missing)}", file=sys.stderr)


def _launcher(args: argparse.Namespace) -> Launcher:
    """What starts hosted bots: ``--launcher`` and the pod launcher's flags."""
    from arena.hosting.pool import Bubblewrap

    pod_flags = args.hosted_image or args.pod_template or args.kubernetes_namespace
    if args.launcher != "kubernetes":
        if pod_flags:
            raise UsageError(
                "--hosted-image, --pod-template and --kubernetes-namespace need "
                "--launcher kubernetes"
            )
        return Bubblewrap(unsafe_no_cgroups=args.unsafe_no_cgroups)
    if args.unsafe_no_cgroups:
        raise UsageError("--unsafe-no-cgroups is for --launcher bubblewrap: pods have limits")
    from arena.hosting.kubernetes import (
        POD_RUNTIMES,
        KubernetesApi,
        KubernetesError,
        PodLauncher,
        load_templates,
    )
    from arena.hosting.sandbox import SandboxError

    if args.sandbox_pool:
        raise UsageError("--sandbox-pool needs --launcher bubblewrap: pods start per match")
    images = {}
    for item in args.hosted_image:
        name, equals, image = item.partition("=")
        if not equals or not image or name not in POD_RUNTIMES:
            raise UsageError(
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


def api_serve(args: argparse.Namespace) -> None:
    os.environ["ARENA_REDIS_URL"] = args.redis  # the Celery app that queues matches reads it
    with loading():
        from arena.api.service import serve
        from arena.throttle import Throttle

    tls, bot_credentials = tls_from_flags(args)
    token = token_from_flags(args.token_file, API)
    read_token = token_from_flags(args.read_token_file, READ_TOKEN_ENV)
    if read_token and read_token == token:
        raise UsageError(
            "the read token is the operator's: the client given it (the leaderboard site) "
            "could change the arena; give it a token of its own"
        )
    referees = _referees(args)
    quotas = _quotas(args)
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
            quotas=quotas,
            read_token=read_token or None,
            reads_per_s=args.reads_per_s,
            read_burst=args.read_burst,
            joins=Throttle(rate_per_s=args.joins_per_minute / 60, burst=args.join_burst),
        )
    except OSError as error:
        raise CliError(str(error)) from None


def _quotas(args: argparse.Namespace) -> AuthorQuotas:
    """Authors' quotas from ``--author-max-*`` (whose defaults are the variables)."""
    try:
        return AuthorQuotas(
            bots=parse_count(args.author_max_bots, f"--author-max-bots (${BOTS_ENV})"),
            versions=parse_count(
                args.author_max_versions, f"--author-max-versions (${VERSIONS_ENV})"
            ),
            bytes=parse_size(args.author_max_bytes, f"--author-max-bytes (${BYTES_ENV})"),
        )
    except ValueError as error:
        raise UsageError(str(error)) from None


def _referees(args: argparse.Namespace) -> Referees | None:
    """The referees that check submitted bots: ``--referee`` or $ARENA_REFEREES, with
    the token, CA and client certificate the workers use (their flags or variables)."""
    from arena.api.hosted import Referees
    from arena.referee.requests import InvalidRequest, check_address

    listed = args.referee or os.environ.get("ARENA_REFEREES", "").split(",")
    addresses = tuple(a.strip() for a in listed if a.strip())
    if not addresses:
        return None
    for address in addresses:
        try:
            check_address(address)
        except InvalidRequest as error:
            raise UsageError(f"--referee / ARENA_REFEREES: {error}") from None
    ca = args.referee_ca or os.environ.get("ARENA_REFEREE_CA", "")
    cert = args.referee_cert or os.environ.get("ARENA_REFEREE_CERT", "")
    key = args.referee_key or os.environ.get("ARENA_REFEREE_KEY", "")
    if (cert or key) and not ca:
        raise UsageError("--referee-cert and --referee-key need --referee-ca (TLS)")
    try:
        credentials = channel_credentials(ca, cert or None, key or None) if ca else None
    except (OSError, ValueError) as error:
        raise CliError(f"referee TLS: {error}") from None
    token = token_from_flags(args.referee_token_file, REFEREE)
    return Referees(addresses, token, credentials)


def worker(args: argparse.Namespace) -> None:
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
    with loading():
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
