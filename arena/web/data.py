"""What the leaderboard shows, fetched from the Arena gRPC API, and replays from the
referee that played each match.

The web server keeps nothing of its own: every request asks the API again, so the page
is never staler than the API. A failure upstream becomes an ``HttpError`` that says
which service failed and why, for the reader of the page. Calls use grpcio's asyncio
client, so a slow API or referee holds up only the requests waiting for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any, Protocol, cast

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.access import bearer
from arena.games import game_names
from arena.v1 import arena_pb2, arena_pb2_grpc, referee_pb2, referee_pb2_grpc
from arena.web.errors import HttpError, TooMany

DEFAULT_LIMIT = 50
MAX_LIMIT = 500  # matches in one answer
RESULTS_PAGE_MAX = 1000
CACHED_REPLAYS = 128
"""Published replays a site keeps (each name of one counts: its id and its public id)."""
"""The most results one ListResults page holds (the API's ``page_size`` bound)."""
API_TIMEOUT_S = 10.0
READY_TIMEOUT_S = 2.0
WATCH_START_S = 15.0
"""How long a match listed as live may take to reach its referee: a worker lists its
match just before its PlayMatch call, so a watcher can ask first, and on a loaded
machine the call may take seconds. Only for a listed match: a finished one the referee
does not know any more is a 404 at once."""
WATCH_PAUSE_S = 0.05
API_SERVICE = "arena.v1.Arena"
# gRPC's reconnect backoff grows to two minutes by default: an API that comes back
# would look unreachable for that long. Five seconds at most keeps /readyz honest.
CHANNEL_OPTIONS = [("grpc.max_reconnect_backoff_ms", 5000)]


@dataclass(frozen=True)
class Match:
    """A stored result and the tournament it belongs to (a MatchRecord does not say)."""

    tournament_id: str
    tournament_name: str
    record: arena_pb2.MatchRecord


@dataclass(frozen=True)
class ResultsPage:
    """Some of a tournament's results, latest scheduled first (reversed match id order)."""

    results: list[arena_pb2.MatchRecord]
    more: bool
    """Whether results with lower match ids follow: read on from the last one."""


@dataclass(frozen=True)
class Replay:
    """A match's replay as the referee stores it: the JSON text and its parsed document."""

    tournament_id: str
    record: arena_pb2.MatchRecord
    text: str
    document: dict[str, Any]


@dataclass(frozen=True)
class Suspension:
    """One of a bot's entries that a running ladder does not pair for now."""

    tournament_id: str
    tournament_name: str
    suspension: arena_pb2.LadderSuspension


@dataclass(frozen=True)
class BotFacts:
    """What the registry knows of a bot: ``registered`` is None for a bot removed from
    it (its results stay); ``versions``, newest first, for a hosted bot only;
    ``suspensions``, its entries running ladders have suspended."""

    name: str
    registered: arena_pb2.RegisteredBot | None
    versions: list[arena_pb2.HostedBotVersion]
    suspensions: tuple[Suspension, ...] = ()


class Source(Protocol):
    """What the pages need; ``ArenaData`` in production, a fake in unit tests.

    ``games`` is the installed games, known without asking anyone, so it is the one
    call that does not wait (error pages need it even when the API is down)."""

    def games(self) -> list[str]: ...

    async def leaderboard(
        self,
        game: str = "",
        tournament_id: str = "",
        los: bool = False,
        scale: arena_pb2.GetLeaderboardRequest | None = None,
    ) -> arena_pb2.Leaderboard:
        """``scale``: a request holding only an anchor, prior_sd or bootstrap (the
        ``/api/leaderboard`` query's), merged into the one sent."""
        ...

    async def matches(self, limit: int, game: str = "") -> list[Match]: ...

    async def tournaments(self) -> list[arena_pb2.Tournament]: ...

    async def rating_history(self, bot: str, game: str = "") -> arena_pb2.RatingHistory: ...

    async def tournament(self, tournament_id: str) -> arena_pb2.Tournament: ...

    async def latest_results(self, tournament_id: str, before: str, count: int) -> ResultsPage:
        """Up to ``count`` (at most ``RESULTS_PAGE_MAX``) of a tournament's stored
        results with match ids below ``before`` ('' for from its last), latest first: one
        ListResults page."""
        ...

    async def bot(self, name: str) -> BotFacts:
        """The registry's facts; 404 for a bot neither registered nor ever rated."""
        ...

    async def replay(self, tournament_id: str, match_id: str) -> Replay: ...

    async def ready(self) -> str | None:
        """None when the API answers, else why not (for ``/readyz``)."""
        ...

    async def live_matches(self, tournament_id: str = "") -> arena_pb2.ListLiveMatchesResponse:
        """The matches being played that anyone may follow (one tournament's, or all)."""
        ...

    async def result(self, tournament_id: str, match_id: str) -> arena_pb2.MatchRecord | None:
        """The match's stored result, None while it has none."""
        ...

    def watch(
        self, referee: str, watch_id: str, starting: bool = False
    ) -> AsyncGenerator[referee_pb2.MatchEvent, None]:
        """The match's public events from its start, from the referee playing it; an
        HttpError (404, 502) before the first event when they cannot be had. ``starting``:
        the match is listed as live, so it may not have reached its referee yet."""
        ...

    async def competitions(self) -> arena_pb2.ListCompetitionsResponse:
        """Every competition, newest first (ListCompetitions)."""
        ...

    async def competition(self, name: str) -> arena_pb2.Competition:
        """One competition (GetCompetition); 404 for an unknown one."""
        ...

    async def competition_board(
        self, name: str, game: str = ""
    ) -> arena_pb2.CompetitionLeaderboard:
        """The competition's public board by author (GetCompetitionLeaderboard, never
        ``mine``); 404 for an unknown competition or one whose ladder has not started."""
        ...


def unknown_game(game: str) -> HttpError:
    return HttpError(404, f"unknown game {game!r}; the games are: {', '.join(game_names())}")


def upstream_message(error: grpc.RpcError, what: str, address: str) -> str:
    """Why a call to ``what`` failed, for a reader: unreachable, too slow, or its status."""
    code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    details = (error.details() if hasattr(error, "details") else None) or str(error)
    if code == grpc.StatusCode.UNAVAILABLE:
        return f"cannot reach {what} at {address} ({details})"
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return f"{what} at {address} did not answer in time"
    return f"{what} at {address} failed: {code.name}: {details}"


@contextlib.contextmanager
def _upstream(what: str, address: str, prefix: str = "", not_found: str = "") -> Iterator[None]:
    """Turn a failed gRPC call into an HttpError naming the service that failed."""
    try:
        yield
    except grpc.RpcError as error:
        code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
        details = (error.details() if hasattr(error, "details") else None) or str(error)
        if code == grpc.StatusCode.NOT_FOUND:
            raise HttpError(404, prefix + (not_found or details)) from None
        if code == grpc.StatusCode.INVALID_ARGUMENT:
            raise HttpError(400, f"{prefix}{details}") from None
        message = prefix + upstream_message(error, what, address)
        wait = _retry_after(error) if code == grpc.StatusCode.RESOURCE_EXHAUSTED else None
        if wait is not None:
            # The API's budget for this site's address (started without the read token,
            # or with a wrong one): not the reader's fault, and over in ``wait`` seconds.
            raise TooMany(503, message, wait) from None
        raise HttpError(502, message) from None


def _retry_after(error: grpc.RpcError) -> int | None:
    """The whole seconds a refusal's ``retry-after`` trailer asks for, if it has one."""
    trailers: Any = error.trailing_metadata() if hasattr(error, "trailing_metadata") else None
    for key, value in trailers or ():
        if key == "retry-after" and str(value).isdigit():
            return int(value)
    return None


class _Bearer(grpc.aio.UnaryUnaryClientInterceptor):  # type: ignore[type-arg]
    """Sends the API's read token with every call (``arena.api.reads``)."""

    def __init__(self, token: str) -> None:
        self.entry = bearer(token)

    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        metadata = grpc.aio.Metadata(*(details.metadata or ()), self.entry)
        return await continuation(details._replace(metadata=metadata), request)


class ArenaData:
    """Reads from the Arena API at ``api`` over one asyncio channel shared by every
    request, sending ``read_token`` with each call if given, and to the referees it
    watches: the site reads and watches for all its visitors, whom the API and the
    referees would otherwise count as one client. Make it
    inside the event loop that will use it (a grpc.aio channel belongs to one loop) and
    ``await close()`` it there."""

    def __init__(self, api: str, read_token: str = "") -> None:
        self.api = api
        self.read_token = read_token
        self._channel = grpc.aio.insecure_channel(
            api,
            options=CHANNEL_OPTIONS,
            interceptors=[cast(Any, _Bearer(read_token))] if read_token else None,
        )
        self._stub = arena_pb2_grpc.ArenaStub(self._channel)
        self._health = health_pb2_grpc.HealthStub(self._channel)
        self._replays: OrderedDict[tuple[str, str], Replay] = OrderedDict()
        """Published replays, which never change: a popular one is fetched once."""

    async def close(self) -> None:
        await self._channel.close(grace=None)

    def games(self) -> list[str]:
        return game_names()

    async def ready(self) -> str | None:
        """Ask the API's standard health service, with a short deadline: a load balancer
        wants a quick no, not a page that hangs."""
        try:
            reply = await self._health.Check(
                health_pb2.HealthCheckRequest(service=API_SERVICE), timeout=READY_TIMEOUT_S
            )
        except grpc.RpcError as error:
            return upstream_message(error, "the arena API", self.api)
        if reply.status != health_pb2.HealthCheckResponse.SERVING:
            status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
            return f"the arena API at {self.api} is {status}"
        return None

    async def leaderboard(
        self,
        game: str = "",
        tournament_id: str = "",
        los: bool = False,
        scale: arena_pb2.GetLeaderboardRequest | None = None,
    ) -> arena_pb2.Leaderboard:
        """Ratings of every stored result, or of one tournament's (404 if it is unknown);
        with ``los``, the top bots' likelihood-of-superiority matrix too; on ``scale``
        when given (the API's INVALID_ARGUMENT, a bad anchor or prior, is a 400)."""
        if game and game not in game_names():
            raise unknown_game(game)
        request = arena_pb2.GetLeaderboardRequest(game=game, tournament_id=tournament_id, los=los)
        if scale is not None:
            request.MergeFrom(scale)
        with _upstream("the arena API", self.api):
            board: arena_pb2.Leaderboard = await self._stub.GetLeaderboard(
                request, timeout=API_TIMEOUT_S
            )
        return board

    async def rating_history(self, bot: str, game: str = "") -> arena_pb2.RatingHistory:
        """The bot's rating over time, a series per board (only ``game``'s when given);
        the API's NOT_FOUND for an unknown bot is a 404."""
        if game and game not in game_names():
            raise unknown_game(game)
        with _upstream("the arena API", self.api):
            history: arena_pb2.RatingHistory = await self._stub.GetRatingHistory(
                arena_pb2.GetRatingHistoryRequest(bot=bot, game=game), timeout=API_TIMEOUT_S
            )
        return history

    async def tournaments(self) -> list[arena_pb2.Tournament]:
        """Every tournament, newest first."""
        with _upstream("the arena API", self.api):
            reply = await self._stub.ListTournaments(
                arena_pb2.ListTournamentsRequest(), timeout=API_TIMEOUT_S
            )
        return list(reply.tournaments)

    async def tournament(self, tournament_id: str) -> arena_pb2.Tournament:
        """One tournament with its standings; the API's NOT_FOUND is a 404."""
        with _upstream("the arena API", self.api):
            found: arena_pb2.Tournament = await self._stub.GetTournament(
                arena_pb2.GetTournamentRequest(id=tournament_id), timeout=API_TIMEOUT_S
            )
        return found

    async def bot(self, name: str) -> BotFacts:
        """From ListBots (``name@version`` is its bot's) and, for a hosted bot, its
        versions; a bot not in the registry is known if it was ever rated (its results
        outlive its removal)."""
        base = name.split("@", 1)[0]
        with _upstream("the arena API", self.api):
            listed = await self._stub.ListBots(arena_pb2.ListBotsRequest(), timeout=API_TIMEOUT_S)
        registered = next((b for b in listed.bots if b.name == base), None)
        versions: list[arena_pb2.HostedBotVersion] = []
        if registered is None:
            with _upstream("the arena API", self.api, not_found=f"no bot {name!r}"):
                await self._stub.GetRatingHistory(
                    arena_pb2.GetRatingHistoryRequest(bot=base), timeout=API_TIMEOUT_S
                )
        elif registered.hosted:
            with _upstream("the arena API", self.api):
                reply = await self._stub.ListBotVersions(
                    arena_pb2.ListBotVersionsRequest(name=base), timeout=API_TIMEOUT_S
                )
            versions = list(reply.versions)
        suspensions = await self._suspensions(name) if registered is not None else ()
        return BotFacts(name, registered, versions, suspensions)

    async def _suspensions(self, name: str) -> tuple[Suspension, ...]:
        """The bot's entries (``name``, or any version of it unless ``name`` names one)
        that running ladders have suspended, as their standings show them."""
        found = []
        for t in await self.tournaments():
            if t.state != arena_pb2.TOURNAMENT_STATE_RUNNING:
                continue
            for held in t.standings.ladder.suspended:
                if held.entry == name or ("@" not in name and held.entry.startswith(name + "@")):
                    found.append(Suspension(t.id, t.spec.name, held))
        return tuple(found)

    async def latest_results(self, tournament_id: str, before: str, count: int) -> ResultsPage:
        with _upstream("the arena API", self.api):
            response = await self._stub.ListResults(
                arena_pb2.ListResultsRequest(
                    tournament_id=tournament_id,
                    page_size=count,
                    order_by="match_id desc",
                    after_match_id=before,
                ),
                timeout=API_TIMEOUT_S,
            )
        return ResultsPage(list(response.results), bool(response.next_page_token))

    async def _results(self, tournament_id: str) -> list[arena_pb2.MatchRecord]:
        with _upstream("the arena API", self.api):
            response = await self._stub.ListResults(
                arena_pb2.ListResultsRequest(tournament_id=tournament_id), timeout=API_TIMEOUT_S
            )
        return list(response.results)

    async def matches(self, limit: int, game: str = "") -> list[Match]:
        """The last ``limit`` results: newest tournament first and, within a tournament,
        the latest scheduled first (workers play roughly in schedule order, so this is
        close to the order they finished in), or while it runs the latest finished first."""
        if game and game not in game_names():
            raise unknown_game(game)
        found: list[Match] = []
        for tournament in await self.tournaments():
            if tournament.matches_done == 0 or (game and game not in tournament.games):
                continue
            async for record in self._latest_first(tournament, game, limit - len(found)):
                if not game or record.game == game:
                    found.append(Match(tournament.id, tournament.spec.name, record))
                    if len(found) >= limit:
                        return found
        return found

    async def _latest_first(
        self, tournament: arena_pb2.Tournament, game: str, wanted: int
    ) -> AsyncIterator[arena_pb2.MatchRecord]:
        if tournament.state == arena_pb2.TOURNAMENT_STATE_RUNNING:
            # Named by public ids, whose order says nothing of the schedule: read them
            # all (as the API must, to page them) and take the latest finished.
            records = await self._results(tournament.id)
            records.sort(key=lambda r: r.finished_at.ToNanoseconds(), reverse=True)
            for record in records:
                yield record
            return
        before, more = "", True
        while more:  # a page at a time: a tournament may hold tens of thousands
            # Another game's matches may come between: then read as much as a page holds.
            count = RESULTS_PAGE_MAX if game else wanted
            page = await self.latest_results(tournament.id, before, count)
            for record in page.results:
                yield record
            more = page.more and bool(page.results)
            before = page.results[-1].match_id if page.results else ""

    async def live_matches(self, tournament_id: str = "") -> arena_pb2.ListLiveMatchesResponse:
        with _upstream("the arena API", self.api):
            reply: arena_pb2.ListLiveMatchesResponse = await self._stub.ListLiveMatches(
                arena_pb2.ListLiveMatchesRequest(tournament_id=tournament_id),
                timeout=API_TIMEOUT_S,
            )
        return reply

    async def competitions(self) -> arena_pb2.ListCompetitionsResponse:
        with _upstream("the arena API", self.api):
            found: arena_pb2.ListCompetitionsResponse = await self._stub.ListCompetitions(
                arena_pb2.ListCompetitionsRequest(), timeout=API_TIMEOUT_S
            )
        return found

    async def competition(self, name: str) -> arena_pb2.Competition:
        with _upstream("the arena API", self.api):
            found: arena_pb2.Competition = await self._stub.GetCompetition(
                arena_pb2.GetCompetitionRequest(name=name), timeout=API_TIMEOUT_S
            )
        return found

    async def competition_board(
        self, name: str, game: str = ""
    ) -> arena_pb2.CompetitionLeaderboard:
        """Asked with the site's read token at most, so the answer is the public board:
        ``mine`` would need an author's token, which the public pages never hold."""
        if game and game not in game_names():
            raise unknown_game(game)
        with _upstream("the arena API", self.api):
            try:
                board: arena_pb2.CompetitionLeaderboard = (
                    await self._stub.GetCompetitionLeaderboard(
                        arena_pb2.GetCompetitionLeaderboardRequest(name=name, game=game),
                        timeout=API_TIMEOUT_S,
                    )
                )
            except grpc.RpcError as error:
                code = error.code() if hasattr(error, "code") else None
                if code == grpc.StatusCode.FAILED_PRECONDITION:  # no ladder yet: no board
                    raise HttpError(404, str(error.details())) from None
                raise
        return board

    async def result(self, tournament_id: str, match_id: str) -> arena_pb2.MatchRecord | None:
        results = await self._results(tournament_id)
        return next((r for r in results if match_id in (r.match_id, r.public_id)), None)

    def watch(
        self, referee: str, watch_id: str, starting: bool = False
    ) -> AsyncGenerator[referee_pb2.MatchEvent, None]:
        start_s = WATCH_START_S if starting else 0.0
        return watch_match(referee, watch_id, start_s, self.read_token)

    async def replay(self, tournament_id: str, match_id: str) -> Replay:
        cached = self._replays.get((tournament_id, match_id))
        if cached is not None:
            self._replays.move_to_end((tournament_id, match_id))
            return cached
        replay = await self._fetch_replay(tournament_id, match_id)
        # Published (the record shows the seed) once its tournament has ended, or in an
        # open ladder once the match has: for good either way.
        for name in {replay.record.match_id, replay.record.public_id} - {""}:
            self._replays[(tournament_id, name)] = replay
        while len(self._replays) > CACHED_REPLAYS:
            self._replays.popitem(last=False)
        return replay

    async def _fetch_replay(self, tournament_id: str, match_id: str) -> Replay:
        results = await self._results(tournament_id)
        record = next((r for r in results if match_id in (r.match_id, r.public_id)), None)
        if record is None:
            raise HttpError(
                404, f"tournament {tournament_id} has no result for match {match_id!r} (yet)"
            )
        if not record.HasField("seed"):
            # The API shows the seed with the record once the replay may be read
            # (``arena.api.common.deal_revealed``).
            raise HttpError(
                404,
                f"the replay of {match_id} is not published yet: it shows the whole deal, "
                f"which tournament {tournament_id} keeps secret until it ends (an open "
                "ladder publishes each match's as soon as that match has ended)",
            )
        # Built by the API from the record stored with the result: no referee is asked.
        with _upstream("the arena API", self.api, "replay unavailable: "):
            reply: referee_pb2.Replay = await self._stub.GetMatchReplay(
                arena_pb2.GetMatchReplayRequest(
                    tournament_id=tournament_id, match_id=record.match_id
                ),
                timeout=API_TIMEOUT_S,
            )
        return Replay(tournament_id, record, reply.json, json.loads(reply.json))


async def watch_match(
    referee: str, watch_id: str, start_s: float = 0.0, read_token: str = ""
) -> AsyncGenerator[referee_pb2.MatchEvent, None]:
    """``WatchMatch`` on ``referee`` (any of a ``--processes N`` referee's processes
    relays the one playing the match), asked again while it says NOT_FOUND for up to
    ``start_s``, for a match not started yet. No deadline: a match may last hours; the
    caller ends the stream by closing this generator. With ``read_token`` the referee
    holds the site to no client's share of its streams: it watches for all its viewers."""
    gone = (
        f"the referee at {referee} has no events of {watch_id}: it keeps those of running "
        "matches and of the last 512 it finished"
    )
    request = referee_pb2.WatchMatchRequest(match_id=watch_id)
    give_up = time.monotonic() + start_s
    async with grpc.aio.insecure_channel(referee) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)
        while True:
            call = stub.WatchMatch(request, metadata=(bearer(read_token),) if read_token else None)
            sent = False
            try:
                with _upstream("the referee playing this match", referee, not_found=gone):
                    async for event in call:
                        sent = True
                        yield event
                return
            except HttpError as error:
                if error.status != 404 or sent or time.monotonic() > give_up:
                    raise
            finally:
                call.cancel()
            await asyncio.sleep(WATCH_PAUSE_S)
