"""The Arena API's Prometheus metrics: calls by method and status code, and how its
replays were made."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import grpc
from prometheus_client import Counter

REQUESTS = Counter(
    "arena_api_requests",
    "Arena API calls with one answer (unary, and SubmitBot's stream of pieces) by method "
    "and gRPC status code (OK, INVALID_ARGUMENT, ...).",
    ["method", "code"],
)
REPLAYS = Counter(
    "arena_api_replays",
    "GetMatchReplay answers by how they were made: re-run from the stored record "
    "(rerun) or the same record's replay kept from before (cached).",
    ["served"],
)


class RequestCounter(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """Counts every call with one answer with the status it ended with."""

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Any]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Any:
        handler = await continuation(handler_call_details)
        if handler is None or handler.response_streaming:
            return handler
        method = handler_call_details.method.rsplit("/", 1)[-1]
        streaming = bool(handler.request_streaming)
        behaviour = handler.stream_unary if streaming else handler.unary_unary

        async def counted(request: Any, context: Any) -> Any:
            try:
                response = await behaviour(request, context)
            except BaseException:
                code = context.code() or grpc.StatusCode.UNKNOWN
                REQUESTS.labels(method, getattr(code, "name", str(code))).inc()
                raise
            REQUESTS.labels(method, "OK").inc()
            return response

        wrap = (
            grpc.stream_unary_rpc_method_handler
            if streaming
            else grpc.unary_unary_rpc_method_handler
        )
        return wrap(
            counted,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )
