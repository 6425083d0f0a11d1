"""The Arena API's Prometheus metrics: calls by method and status code."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import grpc
from prometheus_client import Counter

REQUESTS = Counter(
    "arena_api_requests",
    "Unary Arena API calls by method and gRPC status code (OK, INVALID_ARGUMENT, ...).",
    ["method", "code"],
)


class RequestCounter(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """Counts every unary call with the status it ended with."""

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Any]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Any:
        handler = await continuation(handler_call_details)
        if handler is None or handler.unary_unary is None:
            return handler
        method = handler_call_details.method.rsplit("/", 1)[-1]
        behaviour = handler.unary_unary

        async def counted(request: Any, context: Any) -> Any:
            try:
                response = await behaviour(request, context)
            except BaseException:
                code = context.code() or grpc.StatusCode.UNKNOWN
                REQUESTS.labels(method, getattr(code, "name", str(code))).inc()
                raise
            REQUESTS.labels(method, "OK").inc()
            return response

        return grpc.unary_unary_rpc_method_handler(
            counted,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )
