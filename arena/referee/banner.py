"""What a referee says once it serves: how it is guarded, where its metrics are, and
that it listens. Apart from ``arena.referee.service``, which loads the metrics: the
parent of ``--processes`` must not create metric files of its own."""

from __future__ import annotations

import sys

from arena.access import REFEREE
from arena.tls import ServerTls


def announce(
    host: str,
    port: int,
    detail: str = "",
    *,
    tls: ServerTls | None,
    token: str | None,
    metrics_port: int | None,
) -> None:
    """Say how the referee is guarded, where its metrics are, and last that it listens:
    the line ``arena.processes.start_service`` waits for (``detail`` follows it)."""
    if tls is not None and tls.mutual:
        print("arena referee: mutual TLS: every client needs a certificate", flush=True)
    elif not token:
        print(REFEREE.open_warning(), file=sys.stderr, flush=True)
    if metrics_port is not None:
        print(f"referee metrics on http://{host}:{metrics_port}/metrics", flush=True)
    print(f"referee listening on {host}:{port}{detail}", flush=True)
