"""What a gRPC call answered besides its message."""

from __future__ import annotations

from typing import Any

import grpc


def trailers(error: grpc.RpcError) -> dict[str, str]:
    found: Any = error.trailing_metadata()
    return {key: str(value) for key, value in found or ()}
