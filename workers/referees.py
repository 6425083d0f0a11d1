"""How the workers reach the referees (``ARENA_REFEREES``): a channel that notices a hung
referee, the referees' token, why a call failed in the workers' words, and the calls
that send a referee the packages it lacks (``arena.hosting.referee_calls``), with the
packages from the arena's store. Matches (``workers.tasks``) and the watchdog's checks
of suspended ladder entries (``workers.watchdog_probes``) use them alike."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from typing import TYPE_CHECKING, TypeVar

import grpc

from arena.access import bearer
from arena.hosting.referee_calls import call_with_packages
from arena.tls import channel_credentials
from workers.settings import current
from workers.stores import packages

if TYPE_CHECKING:
    from arena.v1.referee_pb2_grpc import RefereeStub

Reply = TypeVar("Reply")

settings = current()

UPLOAD_TIMEOUT_S = 120.0
"""How long a referee may take to receive and unpack a package (16 MiB at most)."""


@cache
def _credentials() -> grpc.ChannelCredentials | None:
    if not settings.referee_ca:
        return None
    return channel_credentials(
        settings.referee_ca, settings.referee_cert or None, settings.referee_key or None
    )


def _channel_options() -> list[tuple[str, int]]:
    # A match may rightly last hours, so the call has no deadline; a referee that stops
    # answering HTTP/2 pings (hung, stopped, its host gone) fails it with UNAVAILABLE
    # instead, and the match moves to the next referee.
    keepalive_ms = int(settings.referee_keepalive_s * 1000)
    return [
        ("grpc.keepalive_time_ms", keepalive_ms),
        ("grpc.keepalive_timeout_ms", keepalive_ms),
        ("grpc.http2.ping_timeout_ms", keepalive_ms),  # without it a ping waits 60 s
        ("grpc.http2.min_time_between_pings_ms", keepalive_ms),
        ("grpc.http2.max_pings_without_data", 0),
    ]


@contextmanager
def channel(referee: str) -> Iterator[grpc.Channel]:
    """A channel to ``referee``, once HTTP/2 has started on it (a stopped referee's
    kernel still accepts the connection): grpc.FutureTimeoutError if it has not soon."""
    credentials = _credentials()
    options = _channel_options()
    opened = (
        grpc.insecure_channel(referee, options=options)
        if credentials is None
        else grpc.secure_channel(referee, credentials, options=options)
    )
    with opened as ready:
        grpc.channel_ready_future(ready).result(timeout=2 * settings.referee_keepalive_s)
        yield ready


def metadata() -> tuple[tuple[str, str], ...] | None:
    """What every call to a referee carries: its token, if the referees have one."""
    token = settings.referee_token
    return (bearer(token),) if token else None


def reason(referee: str, error: Exception) -> str:
    """Why a call to ``referee`` failed (a grpc.RpcError, or grpc.FutureTimeoutError from
    ``channel``), for the log and the match's last failure."""
    if isinstance(error, grpc.RpcError):
        return f"referee {referee}: {error.code().name}: {error.details()}"
    return (
        f"referee {referee}: UNAVAILABLE: no connection within "
        f"{2 * settings.referee_keepalive_s:g} s"
    )


def with_packages(call: Callable[[], Reply], stub: RefereeStub, uploads: int) -> Reply:
    """``call()``, first sending the referee behind ``stub`` each package it says it
    lacks, from the arena's store, at most ``uploads`` of them: one for each hosted bot
    the call names. ``arena.hosting.referee_calls.PackageGone`` (a RuntimeError) if the
    store has not got one."""
    return call_with_packages(
        call,
        stub,
        lambda sha256: packages().blob(sha256),
        uploads=uploads,
        metadata=metadata(),
        timeout=UPLOAD_TIMEOUT_S,
    )
