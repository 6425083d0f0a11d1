"""The Arena API calls of the author's view, over a channel of its own.

The site's other channel (``data.ArenaData``) sends the read token with every call; this
one sends nothing by itself. An author's call carries that author's token, given per
call, and public reads (their bots, versions, competitions) carry none: the read token
and the operator's never act for an author, and the API's own checks (a bot's logs for
its author only, submissions in the author's name and within their quotas) decide what
the token may do.

Who a token belongs to, and what a competition's daily limit leaves its author, the API
says itself (WhoAmI): the site counts nothing of its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import grpc

from arena.access import bearer
from arena.hosting.transfer import submission
from arena.v1 import arena_pb2, arena_pb2_grpc
from arena.web.data import API_TIMEOUT_S, CHANNEL_OPTIONS, upstream_message
from arena.web.errors import HttpError

SUBMIT_TIMEOUT_S = 120.0
"""As ``arena bot submit``: the API starts the bot and asks it Hello before answering."""
DEFAULT_DAILY = 5
"""A competition's daily submissions when its rules leave them unset (the proto's)."""
STATUS_OF = {
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.FAILED_PRECONDITION: 412,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
}
"""An API refusal as the page's status; anything else (unreachable, too slow) is 502."""


class Refused(HttpError):
    """The API refused an author's call: its message, shown to the author as it is."""


class SignInRefused(ValueError):
    """The token signs nobody in; the message says why, for the sign-in form."""


@dataclass(frozen=True)
class Daily:
    """What a competition's daily limit leaves an author now."""

    competition: str
    phase: int
    limit: int
    used: int
    next_at: float | None
    """When the next submission is allowed (Unix time), None for now."""

    @property
    def remaining(self) -> int:
        return max(0, self.limit - self.used)


def _refused(error: grpc.RpcError, api: str) -> Refused:
    code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    status = STATUS_OF.get(code)
    if status is None:
        return Refused(502, upstream_message(error, "the arena API", api))
    details = (error.details() if hasattr(error, "details") else None) or code.name
    return Refused(status, details)


def _code(error: grpc.RpcError) -> grpc.StatusCode:
    return error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN


class AuthorData:
    """The author's view's calls to the Arena API at ``api``. Make it inside the event
    loop that will use it and ``await close()`` it there."""

    def __init__(self, api: str) -> None:
        self.api = api
        self._channel = grpc.aio.insecure_channel(api, options=CHANNEL_OPTIONS)
        self._stub = arena_pb2_grpc.ArenaStub(self._channel)

    async def close(self) -> None:
        await self._channel.close(grace=None)

    # Public reads: no token.

    async def bots_of(self, author: str) -> list[arena_pb2.RegisteredBot]:
        """The bots ``author`` owns, by name."""
        try:
            reply = await self._stub.ListBots(arena_pb2.ListBotsRequest(), timeout=API_TIMEOUT_S)
        except grpc.RpcError as error:
            raise _refused(error, self.api) from None
        return sorted((b for b in reply.bots if b.author == author), key=lambda b: b.name)

    async def versions(self, bot: str) -> list[arena_pb2.HostedBotVersion]:
        """A hosted bot's versions, newest first (none for a bot gone meanwhile)."""
        try:
            reply = await self._stub.ListBotVersions(
                arena_pb2.ListBotVersionsRequest(name=bot), timeout=API_TIMEOUT_S
            )
        except grpc.RpcError as error:
            if _code(error) == grpc.StatusCode.NOT_FOUND:
                return []
            raise _refused(error, self.api) from None
        return list(reply.versions)

    async def competitions_of(self, author: str) -> list[arena_pb2.Competition]:
        """The competitions ``author`` joined, newest first; none when the API has no
        competitions (an older API answers UNIMPLEMENTED)."""
        try:
            reply = await self._stub.ListCompetitions(
                arena_pb2.ListCompetitionsRequest(), timeout=API_TIMEOUT_S
            )
        except grpc.RpcError as error:
            if _code(error) == grpc.StatusCode.UNIMPLEMENTED:
                return []
            raise _refused(error, self.api) from None
        return [c for c in reply.competitions if author in c.competitors]

    # The author's own calls: their token, and the API's checks.

    async def logs(
        self, token: str, bot: str, match_id: str, tournament_id: str
    ) -> arena_pb2.BotLogs:
        """GetBotLogs as the author; the API's refusal (not theirs, not ended yet) is a
        ``Refused`` with its message."""
        try:
            reply: arena_pb2.BotLogs = await self._stub.GetBotLogs(
                arena_pb2.GetBotLogsRequest(
                    bot=bot, match_id=match_id, tournament_id=tournament_id
                ),
                metadata=(bearer(token),),
                timeout=API_TIMEOUT_S,
            )
        except grpc.RpcError as error:
            raise _refused(error, self.api) from None
        return reply

    async def submit(
        self, token: str, request: arena_pb2.SubmitBotRequest
    ) -> arena_pb2.HostedBotVersion:
        """SubmitBot as the author: the package in pieces, as ``arena bot submit`` sends
        it (``arena.hosting.transfer``)."""
        pieces: Iterator[arena_pb2.SubmitBotRequest] = submission(request)
        try:
            version: arena_pb2.HostedBotVersion = await self._stub.SubmitBot(
                pieces, metadata=(bearer(token),), timeout=SUBMIT_TIMEOUT_S
            )
        except grpc.RpcError as error:
            raise _refused(error, self.api) from None
        return version

    async def board(self, token: str, competition: str) -> arena_pb2.CompetitionLeaderboard:
        """The competition's board with every version of the author's (``mine``)."""
        try:
            reply: arena_pb2.CompetitionLeaderboard = await self._stub.GetCompetitionLeaderboard(
                arena_pb2.GetCompetitionLeaderboardRequest(name=competition, mine=True),
                metadata=(bearer(token),),
                timeout=API_TIMEOUT_S,
            )
        except grpc.RpcError as error:
            raise _refused(error, self.api) from None
        return reply

    async def who(self, token: str) -> arena_pb2.WhoAmIResponse:
        """WhoAmI with ``token``: whose it is, and what a competition's daily limit
        leaves them (counted by the API, as SubmitBot counts); the API's refusal (a token
        replaced since) is a ``Refused``."""
        try:
            reply: arena_pb2.WhoAmIResponse = await self._stub.WhoAmI(
                arena_pb2.WhoAmIRequest(), metadata=(bearer(token),), timeout=API_TIMEOUT_S
            )
        except grpc.RpcError as error:
            raise _refused(error, self.api) from None
        return reply

    async def identify(self, author: str, token: str) -> str:
        """``author``, if ``token`` is theirs; SignInRefused saying why not."""
        try:
            who = await self.who(token)
        except Refused as refused:
            if refused.status in (401, 403):
                raise SignInRefused(
                    "the arena does not know that token: it is no author's (adding an author "
                    "again replaces their token; ask the operator for a new one)"
                ) from None
            raise SignInRefused(f"cannot check the token now: {refused.message}") from None
        if who.operator:
            raise SignInRefused(
                "that is the operator's token (or the arena API has none, and then it has "
                "no authors either): the author's view signs in authors only; the operator "
                "uses the arena command"
            )
        if who.author != author:
            raise SignInRefused(
                f"that token is an author's, but not {author}'s: give the name the "
                "operator added you by (or that `arena author join` printed)"
            )
        return who.author


def daily_of(competition: arena_pb2.Competition, who: arena_pb2.WhoAmIResponse) -> Daily:
    """What ``competition``'s daily limit leaves the author ``who`` describes, as the API
    counts it (WhoAmI); nothing left once the competition takes no submissions."""
    limit = competition.spec.rules.daily_submissions or DEFAULT_DAILY
    counted = who.competition == competition.spec.name and who.HasField("submissions_left")
    left = who.submissions_left if counted else 0
    next_at = (
        who.next_submission_at.seconds + who.next_submission_at.nanos / 1e9
        if counted and who.HasField("next_submission_at")
        else None
    )
    return Daily(competition.spec.name, competition.phase, limit, limit - left, next_at)
