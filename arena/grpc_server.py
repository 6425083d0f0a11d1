"""What every arena gRPC server does the same way: the standard health and reflection
services, binding with a clear error, reporting SERVING once started, and error statuses
that always reach the caller."""

from __future__ import annotations

from typing import Any, NoReturn

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from arena.tls import ServerTls, bind


async def start_serving(
    server: grpc.aio.Server, service: str, host: str, port: int, tls: ServerTls | None = None
) -> int:
    """Add health and reflection for ``service`` (a full name), listen (with TLS if
    given), start; returns the bound port."""
    health_servicer = health.aio.HealthServicer()  # type: ignore[attr-defined]
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (service, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    bound = bind(server, f"{host}:{port}", tls)
    if bound == 0:
        raise OSError(f"cannot listen on {host}:{port}")
    await server.start()
    for name in ("", service):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return bound


MAX_DETAILS_CHARS = 1000
"""Status details travel in HTTP/2 trailers, which have a size limit: a message quoting a
megabyte of hostile input would itself fail. Longer messages are cut."""


def fit(message: str, limit: int = MAX_DETAILS_CHARS) -> str:
    """``message`` within ``limit`` characters, cut in the middle: a bot's last words
    (the end of a traceback) matter most, and its first ones say where it failed."""
    if len(message) <= limit:
        return message
    marker = "\n[...]\n"
    head = message.rfind("\n", 0, limit // 4)  # whole lines where there are lines
    head = head if head > 0 else limit // 4
    tail = message[-(limit - head - len(marker)) :]
    cut = tail.find("\n")
    return message[:head] + marker + (tail[cut + 1 :] if 0 <= cut < len(tail) // 4 else tail)


async def abort(
    context: grpc.aio.ServicerContext[Any, Any], code: grpc.StatusCode, message: str
) -> NoReturn:
    if len(message) > MAX_DETAILS_CHARS:
        message = message[: MAX_DETAILS_CHARS - 12] + " [truncated]"
    await context.abort(code, message)
    raise AssertionError("unreachable")  # context.abort raises
