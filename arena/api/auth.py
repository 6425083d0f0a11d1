"""Who may change the arena: the one access policy of the Arena API.

Reads are open to anyone who can reach the API. Calls that change what is stored
(registering or removing a bot, submitting, resuming or cancelling a tournament) need
the operator's token in the ``authorization`` metadata, as ``Bearer TOKEN``. An API
started without a token leaves writes open, for a laptop; it says so when it starts.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from typing import Any

import grpc

WRITE_METHODS = frozenset(
    {"RegisterBot", "RemoveBot", "SubmitTournament", "ResumeTournament", "CancelTournament"}
)
TOKEN_ENV = "ARENA_API_TOKEN"
HOW = f"pass --token or set {TOKEN_ENV}"


def bearer(token: str) -> tuple[str, str]:
    """The metadata entry that carries ``token``."""
    return ("authorization", f"Bearer {token}")


class TokenCheck(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """Refuses write calls that do not carry the token, before they reach the service."""

    def __init__(self, token: str) -> None:
        if not token:
            raise ValueError("the API token must not be empty")
        self._expected = f"Bearer {token}".encode()

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Any]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Any:
        method = handler_call_details.method.rsplit("/", 1)[-1]
        if method not in WRITE_METHODS:
            return await continuation(handler_call_details)
        sent = dict(handler_call_details.invocation_metadata or ()).get("authorization")
        if not sent:
            return _refusal(
                grpc.StatusCode.UNAUTHENTICATED,
                f"{method} changes the arena and needs a token: {HOW}",
            )
        if not hmac.compare_digest(str(sent).encode(), self._expected):
            return _refusal(grpc.StatusCode.PERMISSION_DENIED, f"{method}: the token is not valid")
        return await continuation(handler_call_details)


def _refusal(code: grpc.StatusCode, message: str) -> Any:
    async def refuse(request: bytes, context: Any) -> None:
        await context.abort(code, message)

    return grpc.unary_unary_rpc_method_handler(refuse)
