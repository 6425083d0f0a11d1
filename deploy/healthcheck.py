#!/usr/bin/env python3
"""Container healthcheck for the arena image, installed as ``arena-healthcheck``.

    arena-healthcheck grpc HOST:PORT   the standard gRPC health service says SERVING
                                       (referee, API)
    arena-healthcheck tcp HOST:PORT    something accepts connections (bots, worker
                                       metrics, leaderboard web)

Exit status 0 when healthy, 1 when not, 2 for a bad command line; one line on stderr
says why.
"""

from __future__ import annotations

import socket
import sys

TIMEOUT_S = 3.0


def check_grpc(address: str) -> str | None:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(address) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=TIMEOUT_S
            )
        except grpc.RpcError as error:
            return f"{address}: {error.code().name}"
    if reply.status != health_pb2.HealthCheckResponse.SERVING:
        return f"{address}: {health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)}"
    return None


def check_tcp(address: str) -> str | None:
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=TIMEOUT_S):
            return None
    except (OSError, ValueError) as error:
        return f"{address}: {error}"


CHECKS = {"grpc": check_grpc, "tcp": check_tcp}


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in CHECKS or ":" not in argv[1]:
        print("usage: arena-healthcheck grpc|tcp HOST:PORT", file=sys.stderr)
        return 2
    problem = CHECKS[argv[0]](argv[1])
    if problem is not None:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
