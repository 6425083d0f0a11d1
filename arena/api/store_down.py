"""Calls made while Redis is down end with UNAVAILABLE and a message that says so, not
with UNKNOWN and an exception's repr: a caller (or its retry policy) can tell "try again"
from "this is a bug". Calls that meet a record an earlier build stored end with
FAILED_PRECONDITION and the refusal, which names the command that upgrades it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import redis

from arena.records import StaleRecord
from arena.store.reach import unreachable

DOWN = (redis.ConnectionError, redis.TimeoutError)


class StoreDown(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    def __init__(self, client: redis.Redis) -> None:
        self.client = client

    def _message(self, error: Exception) -> str:
        return f"{unreachable(self.client, error)}; try again when it is back"

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Any]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Any:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                self._unary(handler.unary_unary),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(
                self._stream(handler.unary_stream),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        return handler

    def _unary(self, behaviour: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def call(request: Any, context: Any) -> Any:
            try:
                return await behaviour(request, context)
            except DOWN as error:
                await context.abort(grpc.StatusCode.UNAVAILABLE, self._message(error))
            except StaleRecord as error:
                await context.abort(grpc.StatusCode.FAILED_PRECONDITION, str(error))

        return call

    def _stream(self, behaviour: Callable[..., AsyncIterator[Any]]) -> Callable[..., Any]:
        async def call(request: Any, context: Any) -> AsyncIterator[Any]:
            try:
                async for item in behaviour(request, context):
                    yield item
            except DOWN as error:
                await context.abort(grpc.StatusCode.UNAVAILABLE, self._message(error))
            except StaleRecord as error:
                await context.abort(grpc.StatusCode.FAILED_PRECONDITION, str(error))

        return call
