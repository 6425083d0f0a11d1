"""Who may make an arena server act: the operator's token, checked the same way by the
Arena API and the referee.

Each server has a ``Guard``: the calls that make it act, which must carry the operator's
token in the ``authorization`` metadata as ``Bearer TOKEN``. The API guards its writes
(reads of bots, tournaments and results stay open); the referee guards ``PlayMatch``,
which plays a match and dials the bots it names, and ``CheckBot``, which starts a hosted
bot for the API's SubmitBot (``ListGames``, ``WatchMatch`` and
``GetReplay`` stay open: watchers see public events only, and a withheld deal's replay
is stored under an unguessable id). A server started without a token leaves its guarded
calls open, for a laptop, and says so when it starts. A referee that requires client
certificates (mutual TLS, ``arena.tls``) needs no token: TLS already refused every
caller without a certificate its CA signed.

Hosted bots add a second kind of token: an author's (``arena.store.authors``), issued
by the operator with AddAuthor. It never opens a guarded call; it lets SubmitBot,
GetBotLogs, RemoveBot and RemoveBotVersion, which are not in the API's guard, act for
that author alone, on bots of their own (the service checks who calls, and refuses
anyone without the operator's token or an author's: ``arena.api.hosted``). Without an
operator token configured, every caller is the operator there too.

The API has a third, its read token (``arena.api.reads``): it only spares a caller's
costly reads the budget of its address, for a client that reads for many people (the
web site). It opens no guarded call and acts for no author.

Where bots listen is the operator's to know: open reads never carry a bot's address
(ListBots shows it to token holders only; the referee's events and replays name bots
by name), since a rival who knew it could query the bot with positions of its choosing
or flood it during its matches.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc


@dataclass(frozen=True)
class Guard:
    """The calls of one server that need the token, and the words to refuse them with."""

    server: str
    methods: frozenset[str]
    acts: str
    """What a guarded call does, for the refusal: ``changes the arena``."""
    env: str
    client_flag: str
    open_to: str
    """What anyone may do without a token, for the warning at start."""
    acts_of: tuple[tuple[str, str], ...] = ()
    """Guarded calls that do something else than ``acts``, and what they do."""

    def does(self, method: str) -> str:
        """What the guarded call ``method`` does, for its refusal."""
        return dict(self.acts_of).get(method, self.acts)

    @property
    def how(self) -> str:
        return (
            "send the metadata 'authorization: Bearer TOKEN' "
            f"(the arena command: {self.client_flag} or ${self.env})"
        )

    def open_warning(self) -> str:
        return (
            f"{self.server}: no token set ({self.env} or --token-file): anyone who can reach "
            f"this port may {self.open_to}"
        )


API = Guard(
    server="arena api",
    methods=frozenset(
        {
            "RegisterBot",
            "SubmitTournament",
            "ResumeTournament",
            "CancelTournament",
            "AddAuthor",
            "GetCollusionReport",
            "CreateCompetition",
            "CancelCompetition",
            "CreateInvites",
        }
    ),
    acts="changes the arena",
    env="ARENA_API_TOKEN",
    client_flag="--token",
    open_to="register bots, run their code in sandboxes here, issue author tokens, run "
    "tournaments and competitions and read collusion reports",
    acts_of=(("GetCollusionReport", "reads a collusion report, which is for organisers"),),
)
REFEREE = Guard(
    server="arena referee",
    methods=frozenset({"PlayMatch", "CheckBot", "UploadPackage"}),
    acts="makes the referee play a match and dial its bots",
    env="ARENA_REFEREE_TOKEN",
    client_flag="--referee-token",
    open_to="make it play matches, start hosted bots and dial any bot address it allows",
    acts_of=(
        ("CheckBot", "makes the referee start a hosted bot"),
        ("UploadPackage", "gives the referee a hosted bot's package to keep"),
    ),
)


READ_TOKEN_ENV = "ARENA_READ_TOKEN"
"""Where ``arena api serve``, ``arena referee serve`` and ``arena leaderboard serve``
find the read token without ``--read-token-file``: the token of a site that reads and
watches for many people, which the API and the referees hold to no client's share and
which opens nothing else (``arena.api.reads``, ``Referee.WatchMatch``)."""


def bearer(token: str) -> tuple[str, str]:
    """The metadata entry that carries ``token``."""
    return ("authorization", f"Bearer {token}")


class TokenFileError(ValueError):
    """The token file cannot be read or holds nothing; the message says which."""


def read_token(path: str | None, env: str) -> str:
    """The token in the file at ``path`` (surrounding blanks dropped), else in ``$env``;
    empty for neither."""
    if not path:
        return os.environ.get(env, "").strip()
    try:
        token = Path(path).read_text().strip()
    except OSError as error:
        raise TokenFileError(f"cannot read the token file: {error}") from None
    if not token:
        raise TokenFileError(f"the token file {path} is empty")
    return token


class TokenCheck(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """Refuses the guarded calls that do not carry the token, before they reach the service."""

    def __init__(self, guard: Guard, token: str) -> None:
        if not token:
            raise ValueError(f"the {guard.server} token must not be empty")
        self._guard = guard
        self._expected = f"Bearer {token}".encode()

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Any]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Any:
        method = handler_call_details.method.rsplit("/", 1)[-1]
        handler = await continuation(handler_call_details)
        if method not in self._guard.methods or handler is None:
            return handler
        streaming = bool(handler.request_streaming)
        sent = _sent(handler_call_details.invocation_metadata)
        if not sent:
            return _refusal(
                grpc.StatusCode.UNAUTHENTICATED,
                f"{method} {self._guard.does(method)} and needs the operator's token: "
                f"{self._guard.how}",
                streaming,
            )
        if not hmac.compare_digest(sent.encode(), self._expected):
            return _refusal(
                grpc.StatusCode.PERMISSION_DENIED,
                f"{method}: the token is not valid; {self._guard.how}",
                streaming,
            )
        return handler


def holds_token(metadata: Iterable[tuple[str, Any]] | None, token: str | None) -> bool:
    """Whether a call's ``metadata`` carries ``token``; every caller holds no token."""
    return not token or holds_any(metadata, (token,))


def holds_any(metadata: Iterable[tuple[str, Any]] | None, tokens: Iterable[str | None]) -> bool:
    """Whether a call's ``metadata`` carries one of ``tokens``: a token a server was not
    given (None or empty) is held by nobody (the read token, the operator's on a server
    left open), unlike ``holds_token``'s."""
    sent = _sent(metadata).encode()
    return any(token and hmac.compare_digest(sent, f"Bearer {token}".encode()) for token in tokens)


def sent_token(metadata: Iterable[tuple[str, Any]] | None) -> str:
    """The token a call carries as ``Bearer TOKEN``; empty for none."""
    sent = _sent(metadata)
    return sent.removeprefix("Bearer ") if sent.startswith("Bearer ") else ""


def _sent(metadata: Iterable[tuple[str, Any]] | None) -> str:
    return str(dict(metadata or ()).get("authorization") or "")


def _refusal(code: grpc.StatusCode, message: str, streaming: bool) -> Any:
    """A handler that refuses at once: for a ``streaming`` method (its requests come as
    a stream), without reading one."""

    async def refuse(request: Any, context: Any) -> None:
        await context.abort(code, message)

    if streaming:
        return grpc.stream_unary_rpc_method_handler(refuse)
    return grpc.unary_unary_rpc_method_handler(refuse)
