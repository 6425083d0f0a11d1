"""Hosted bots through the API: SubmitBot, ListBotVersions, GetBotLogs, AddAuthor, and
RemoveBot and RemoveBotVersion for every bot.

Who may do what. The operator (the API's token, or anyone when it has none) may do
everything. An author, whose token the operator issued (AddAuthor), may submit new bots,
which become theirs, and new versions of their own bots, within their quotas
(``arena.quotas``), remove them and their versions, and read their own bots' logs.
Anyone may list a hosted bot's versions. Author tokens open none of the operator's calls:
the API's guard (``arena.access``) checks those against the operator's token alone.

A submission is checked before anything is stored: its name and label, its runtime, its
package and command (``arena.hosting.package``), and then the bot itself, which must
start and answer Hello within seconds. With referees configured (``arena api serve
--referee``), a referee starts it, with its own launcher and limits, as it will for a
match (Referee.CheckBot): the API never runs a bot's code. Without, the API starts it in
a sandbox on its own host (see ``HostedBots._start``). An author learns there, with the
bot's own last words, that it does not start, rather than from a tournament of
forfeits. Then the package, the version and the registry entry are
stored together (``BotRegistry.publish``), or nothing is. An author's quotas are checked
before the bot is started (so one at a limit starts nothing) and again in that
transaction (so two submissions at once cannot both slip under a limit).

Removal deletes the versions and, at once or once no running tournament plays them any
more, their packages (``arena.store.removal``).

Logs are readable only once the match's tournament has ended (``revealed``): a log
written in one half of a duplicate pair could show the cards dealt in the other.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import re
import shutil
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeAlias

import grpc
import redis

from arena import limits
from arena.access import API, bearer, holds_token, sent_token
from arena.api.common import deal_ended, revealed, reveals_each_match, schedule_id, timestamp
from arena.competition import phases
from arena.competition.daily import DailyLimit
from arena.games import game_names
from arena.grpc_server import abort, fit
from arena.hosting import runtimes
from arena.hosting.elf import check_program
from arena.hosting.package import InvalidPackage, command_argv, digest, members
from arena.hosting.referee_calls import call_with_packages_async
from arena.hosting.runtimes import Runtime, RuntimeUnavailable
from arena.hosting.sandbox import Sandbox, SandboxError, Uncontained
from arena.hosting.store import PackageStore as UnpackedPackages
from arena.hosting.transfer import assemble
from arena.quotas import AuthorQuotas, OverQuota
from arena.referee.hosted import NOT_STARTED, NotStarted, greet
from arena.store import BotRegistry, RegisteredBot, TournamentRecord, TournamentStore
from arena.store.authors import AuthorStore
from arena.store.bot_logs import KEEP_DAYS, BotLogStore, SeatOutput
from arena.store.bots import Published
from arena.store.competitions import CompetitionStore
from arena.store.leases import MatchLeases
from arena.store.packages import HostedVersion, PackageStore
from arena.store.removal import Gone, Removal, Removed
from arena.store.tournaments import RUNNING
from arena.tournament.fair_play import PUBLIC_ID
from arena.tournament.spec import TournamentPlan
from arena.v1 import arena_pb2, bot_pb2, referee_pb2, referee_pb2_grpc

if TYPE_CHECKING:
    Context: TypeAlias = grpc.aio.ServicerContext[Any, Any]

log = logging.getLogger(__name__)
HELLO_TIMEOUT_S = 5.0
CHECKS_AT_ONCE = 4
"""Submissions started in sandboxes at once; more wait their turn, so a burst of them
cannot take the API's host."""
PUBLISH_TRIES = 3
SWEEP_EVERY_S = 60.0
"""How often the API deletes the packages of removed versions that tournaments kept."""
SCHEDULED_MATCH_ID = re.compile(r"^(t[0-9a-f]{12})-[a-z0-9-]{1,50}\Z")
"""A tournament's id, then its format's name of the match: ``t<12 hex>-<game>-<pairing>-
<deal>-<a|b>`` in a round robin, ``...-swiss-r1-t2-<game>-0-a``, ``...-knockout-...``,
``...-ladder-7-<game>-a`` (``arena.tournament.formats``); at most 64 characters, as every
match id (``arena.limits.MATCH_ID``). Whether the match exists is the schedule's to say."""
NAMES_ALLOWED = "1 to 40 letters, digits, '-', '_' or '.'"
REFEREE_CHECK_TIMEOUT_S = 120.0
"""How long a referee may take over CheckBot: a pod may wait for its node first."""
REFEREE_GONE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
"""A referee's answers that send the check to the next referee."""


@dataclass(frozen=True)
class Referees:
    """The referees that check submitted bots (``Referee.CheckBot``), as the workers
    reach them: their addresses, their token and, for TLS, the channel's credentials."""

    addresses: tuple[str, ...]
    token: str = field(default="", repr=False)
    credentials: grpc.ChannelCredentials | None = None


@dataclass(frozen=True)
class Caller:
    """Who is calling, from the token the call carries."""

    operator: bool
    author: str | None = None
    """The author whose token the call carries, if any."""
    sent_token: bool = False
    """Whether the call carries a token at all (else it is anonymous)."""


class CheckFailed(Exception):
    """No referee could check the bot, or one refused to; ``code`` is the status to
    answer SubmitBot with, the message says why."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code


def plays_none(name: str, hello: bot_pb2.HelloResponse) -> str:
    """The refusal for a bot that plays none of the arena's games."""
    return (
        f"bot {name!r} plays none of the arena's games (it plays: "
        f"{', '.join(hello.games) or 'nothing'}; the arena has: {', '.join(game_names())})"
    )


def games_played(hello: bot_pb2.HelloResponse) -> tuple[str, ...]:
    """The arena's games that the bot says it plays, in the arena's order."""
    return tuple(g for g in game_names() if g in hello.games)


def version_message(version: HostedVersion) -> arena_pb2.HostedBotVersion:
    return arena_pb2.HostedBotVersion(
        name=version.name,
        version=version.version,
        runtime=version.runtime,
        command=version.command,
        package_sha256=version.sha256,
        package_bytes=version.size,
        author=version.author,
        submitted_at=timestamp(version.submitted_at),
        games=list(version.games),
        hello_name=version.hello_name,
        hello_version=version.hello_version,
    )


class HostedBots:
    """The hosted-bot calls of the Arena service; ``token`` is the operator's."""

    def __init__(
        self,
        client: redis.Redis,
        token: str | None,
        bots: BotRegistry,
        tournaments: TournamentStore,
        referees: Referees | None = None,
        quotas: AuthorQuotas | None = None,
    ) -> None:
        self.token = token
        self.quotas = quotas if quotas is not None else AuthorQuotas()
        self.referees = referees if referees is not None and referees.addresses else None
        self._turn = itertools.count()
        self.bots = bots
        self.tournaments = tournaments
        self.packages = PackageStore(client)
        self.authors = AuthorStore(client)
        self.competitions = CompetitionStore(client)
        self.logs = BotLogStore(client)
        self.leases = MatchLeases(client)
        self.removal = Removal(client)
        self._sweeper: asyncio.Task[None] | None = None
        self._checks = asyncio.Semaphore(CHECKS_AT_ONCE)
        self._receiving: set[str] = set()
        """Authors with a SubmitBot in progress."""

    async def caller(self, context: Context) -> Caller:
        metadata = context.invocation_metadata()
        if holds_token(metadata, self.token):
            return Caller(operator=True)
        token = sent_token(metadata)
        if not token:
            return Caller(operator=False)
        author = await asyncio.to_thread(self.authors.who, token)
        return Caller(operator=False, author=author, sent_token=True)

    async def _known_caller(self, method: str, context: Context) -> Caller:
        """The operator or an author; refuses anyone else."""
        caller = await self.caller(context)
        if caller.operator or caller.author is not None:
            return caller
        if not caller.sent_token:
            await abort(
                context,
                grpc.StatusCode.UNAUTHENTICATED,
                f"{method} needs an author's token or the operator's: {API.how}; the "
                "operator issues author tokens (`arena author add NAME`)",
            )
        await abort(
            context,
            grpc.StatusCode.PERMISSION_DENIED,
            f"{method}: the token is neither the operator's nor an author's (adding an "
            f"author again replaces their token); {API.how}",
        )

    async def who_am_i(self, context: Context) -> arena_pb2.WhoAmIResponse:
        """WhoAmI: the caller's identity, and for a competitor what the daily limit
        leaves them (``arena.competition.daily``, counted as SubmitBot counts)."""
        caller = await self._known_caller("WhoAmI", context)
        if caller.operator or caller.author is None:
            return arena_pb2.WhoAmIResponse(operator=True)
        answer = arena_pb2.WhoAmIResponse(author=caller.author)
        record = await asyncio.to_thread(self.competitions.of_author, caller.author)
        if record is None:
            return answer
        answer.competition = record.name
        now = time.time()
        if phases.current(record.phase, record.spec.timeline, now) in phases.SUBMITTING:
            limit = DailyLimit(record.name, record.spec.rules.daily_submissions, now)
            times = await asyncio.to_thread(self.bots.submissions, caller.author, limit.since)
            answer.submissions_left = max(limit.limit - len(times), 0)
            if (when := limit.next_allowed(times)) is not None:
                answer.next_submission_at.CopyFrom(timestamp(when))
        return answer

    # SubmitBot

    async def submit(
        self, requests: AsyncIterator[arena_pb2.SubmitBotRequest], context: Context
    ) -> arena_pb2.HostedBotVersion:
        """SubmitBot: the caller is known before a piece of the package is read, and one
        caller sends one package at a time, so that no one can make the API hold more
        than a message (``arena.limits.MAX_REQUEST_BYTES``) without a token, nor an
        author more than one package at once."""
        caller = await self._known_caller("SubmitBot", context)
        if caller.operator:  # trusted: not held to one at a time
            return await self._submit(caller, requests, context)
        who = str(caller.author)
        if who in self._receiving:
            await abort(
                context,
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "another SubmitBot of yours is still in progress: one at a time; submit "
                "again once it has been answered",
            )
        self._receiving.add(who)
        try:
            return await self._submit(caller, requests, context)
        finally:
            self._receiving.discard(who)

    async def _submit(
        self,
        caller: Caller,
        requests: AsyncIterator[arena_pb2.SubmitBotRequest],
        context: Context,
    ) -> arena_pb2.HostedBotVersion:
        request = await anext(requests, None)
        if request is None:
            await abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                "SubmitBot got no message: the first names the bot (name, version, "
                "runtime, command) and carries the package's first piece",
            )
        name, label = request.name, request.version
        await _check_name(name, "bot name", context)
        await _check_name(label, "version", context)
        existing = await asyncio.to_thread(self.bots.get, name)
        author = await _claim(caller, name, existing, context)
        if await asyncio.to_thread(self.packages.version, name, label) is not None:
            await _label_taken(name, label, context)
        if await asyncio.to_thread(self.packages.label_removed, name, label):
            await abort(
                context,
                grpc.StatusCode.ALREADY_EXISTS,
                f"bot {name!r} had a version {label!r}, since removed: a label names one "
                "package for good (results and ratings name versions by it), give this one "
                f"a new label (`arena bot versions {name}` lists those in use)",
            )
        # Checked on a referee, a runtime need not exist here: the referee has it.
        runtime = await _runtime(request.runtime, context, local=self.referees is None)
        try:
            blob = await assemble(request.package, requests, _piece)
        except ValueError as error:  # Oversize too
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
        try:
            files = await asyncio.to_thread(members, blob)
            argv = command_argv(request.command, runtime, files)
        except InvalidPackage as error:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
        sha256 = await asyncio.to_thread(digest, blob)
        quotas = None if caller.operator else self.quotas
        if quotas is not None:
            usage = await asyncio.to_thread(self.bots.usage, author)
            why = quotas.refusal(author, usage, name, sha256, len(blob))
            if why is not None:
                await abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED, why)
        daily = await self._daily(caller, context)
        try:
            hello = await self._start(blob, sha256, runtime, argv, request.command)
        except NotStarted as error:
            await abort(context, grpc.StatusCode.FAILED_PRECONDITION, fit(f"{NOT_STARTED}{error}"))
        except CheckFailed as error:
            await abort(context, error.code, str(error))
        games = games_played(hello)
        if not games:
            await abort(context, grpc.StatusCode.FAILED_PRECONDITION, plays_none(name, hello))
        submitter = "" if caller.operator else str(caller.author)
        for _ in range(PUBLISH_TRIES):
            now = time.time()
            version = HostedVersion(
                name, label, runtime.name, request.command, sha256, len(blob), submitter,
                now, games, hello.name, hello.version,
            )  # fmt: skip
            entry = RegisteredBot(
                name, "", games, hello.name, hello.version, now, hosted=True, author=author
            )
            try:
                limit = None if daily is None else (daily[0], replace(daily[1], now=now))
                outcome = await asyncio.to_thread(
                    self.bots.publish, entry, version, blob, existing, quotas, limit
                )
            except OverQuota as over:
                await abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED, str(over))
            if outcome is Published.DONE:
                return version_message(version)
            if outcome is Published.LABEL_TAKEN:
                await _label_taken(name, label, context)
            # Someone else changed the bot meanwhile: decide again on what it is now.
            existing = await asyncio.to_thread(self.bots.get, name)
            author = await _claim(caller, name, existing, context)
        await abort(
            context,
            grpc.StatusCode.ABORTED,
            f"bot {name!r} kept changing while this version was being stored: submit again",
        )

    async def _daily(self, caller: Caller, context: Context) -> tuple[str, DailyLimit] | None:
        """The daily limit the caller's submission is held to: a competitor's, while
        their competition is scheduled or open (``arena.competition.daily``); refused
        FAILED_PRECONDITION once it is past open, RESOURCE_EXHAUSTED at the limit (the
        store checks the count again as it stores the version). None for the operator
        and for authors who joined no competition."""
        if caller.operator or caller.author is None:
            return None
        record = await asyncio.to_thread(self.competitions.of_author, caller.author)
        if record is None:
            return None
        now = time.time()
        phase = phases.current(record.phase, record.spec.timeline, now)
        if phase not in phases.SUBMITTING:
            await abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"competition {record.name!r} is {phase}: its competitors submit only while "
                "it is scheduled or open (submissions closed at "
                f"{timestamp(record.spec.timeline.submissions_close_at).ToJsonString()})",
            )
        limit = DailyLimit(record.name, record.spec.rules.daily_submissions, now)
        times = await asyncio.to_thread(self.bots.submissions, caller.author, limit.since)
        why = limit.refusal(caller.author, times)
        if why is not None:
            await abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED, why)
        return caller.author, limit

    async def _start(
        self, blob: bytes, sha256: str, runtime: Runtime, argv: list[str], command: str
    ) -> bot_pb2.HelloResponse:
        """Start the package as a referee would and ask it Hello: on a referee when the
        API has some (CheckBot), so that no bot code runs on the API's host and the bot
        starts with the launcher matches use (a pod, on Kubernetes, where the API could
        not run bubblewrap). Without referees (a laptop, a test) the API starts it in a
        bubblewrap sandbox of its own, as a referee on this host would: the check then
        needs nothing else running."""
        if self.referees is not None:
            return await self._check_on_referee(self.referees, blob, sha256, runtime, command)
        async with self._checks:
            workdir = Path(await asyncio.to_thread(tempfile.mkdtemp, prefix="arena-submit-"))
            try:
                unpacked = UnpackedPackages(workdir / "packages")
                await asyncio.to_thread(unpacked.add, blob, sha256)
                try:
                    check_program(runtime.name, unpacked.path(sha256), argv)
                except InvalidPackage as error:
                    raise CheckFailed(grpc.StatusCode.INVALID_ARGUMENT, str(error)) from None
                log = workdir / "bot.log"
                try:
                    # the limits it plays under: a stricter check (it was 10 s to listen
                    # against a match's 20) refused, on a busy host, bots that play fine
                    box = await Sandbox.start(unpacked.path(sha256), runtime, argv, log)
                except SandboxError as error:
                    raise NotStarted(str(error)) from None
                except Uncontained as error:
                    raise CheckFailed(
                        grpc.StatusCode.FAILED_PRECONDITION,
                        f"this API cannot check hosted bots on its own host: {error}; "
                        "give it a referee that can (arena api serve --referee)",
                    ) from None
                try:
                    return await greet(box, HELLO_TIMEOUT_S)
                finally:
                    await box.close()
            finally:
                await asyncio.to_thread(shutil.rmtree, workdir, ignore_errors=True)

    async def _check_on_referee(
        self, referees: Referees, blob: bytes, sha256: str, runtime: Runtime, command: str
    ) -> bot_pb2.HelloResponse:
        """CheckBot on one referee, the next in turn, moving on while one is unreachable."""
        bot = referee_pb2.HostedBot(package_sha256=sha256, runtime=runtime.name, command=command)
        addresses = referees.addresses
        first = next(self._turn) % len(addresses)
        failures = []
        for address in addresses[first:] + addresses[:first]:
            try:
                answer = await _check_bot(referees, address, bot, blob)
            except grpc.aio.AioRpcError as error:
                code, details = error.code(), error.details() or ""
                if code in REFEREE_GONE:
                    failures.append(f"referee {address}: {code.name}: {details}")
                    continue
                if code == grpc.StatusCode.FAILED_PRECONDITION and details.startswith(NOT_STARTED):
                    raise NotStarted(details.removeprefix(NOT_STARTED)) from None
                raise CheckFailed(
                    grpc.StatusCode.FAILED_PRECONDITION
                    if code == grpc.StatusCode.FAILED_PRECONDITION
                    else grpc.StatusCode.UNAVAILABLE,
                    f"the referee that checks bots refused this one: referee {address}: "
                    f"{code.name}: {details}",
                ) from None
            return bot_pb2.HelloResponse(
                name=answer.name,
                version=answer.version,
                games=list(answer.games),
                supports_stream=answer.supports_stream,
            )
        raise CheckFailed(
            grpc.StatusCode.UNAVAILABLE,
            f"no referee could check the bot, submit it again later: {'; '.join(failures)}",
        )

    # RemoveBot, RemoveBotVersion

    async def remove_bot(
        self, request: arena_pb2.RemoveBotRequest, context: Context
    ) -> arena_pb2.RemoveBotResponse:
        caller = await self._known_caller("RemoveBot", context)
        await _check_name(request.name, "bot name", context)
        for _ in range(PUBLISH_TRIES):
            bot = await self._removable(caller, request.name, context)
            removed = await asyncio.to_thread(self.removal.remove_bot, bot)
            if isinstance(removed, Removed):
                return arena_pb2.RemoveBotResponse(
                    versions=sorted(v.version for v in removed.versions),
                    packages=removed_message(removed),
                )
        await _kept_changing(request.name, context)

    async def remove_version(
        self, request: arena_pb2.RemoveBotVersionRequest, context: Context
    ) -> arena_pb2.RemoveBotVersionResponse:
        caller = await self._known_caller("RemoveBotVersion", context)
        name, label = request.name, request.version
        await _check_name(name, "bot name", context)
        await _check_name(label, "version", context)
        for _ in range(PUBLISH_TRIES):
            bot = await self._removable(caller, name, context)
            if not bot.hosted:
                await abort(
                    context,
                    grpc.StatusCode.FAILED_PRECONDITION,
                    f"{name!r} is a remote bot, registered at an address: it has no versions "
                    f"(`arena bot remove {name}` removes it)",
                )
            removed = await asyncio.to_thread(self.removal.remove_version, bot, label)
            if removed is Gone.NO_VERSION:
                await abort(
                    context,
                    grpc.StatusCode.NOT_FOUND,
                    f"bot {name!r} has no version {label!r} (`arena bot versions {name}` "
                    "lists them)",
                )
            if isinstance(removed, Removed):
                return arena_pb2.RemoveBotVersionResponse(
                    bot_removed=removed.bot_removed, packages=removed_message(removed)
                )
        await _kept_changing(name, context)

    async def _removable(self, caller: Caller, name: str, context: Context) -> RegisteredBot:
        """The bot ``name`` as it is now, if the caller may remove it."""
        bot = await asyncio.to_thread(self.bots.get, name)
        if bot is None:
            await abort(context, grpc.StatusCode.NOT_FOUND, f"no bot {name!r}")
        if not caller.operator and bot.author != caller.author:
            owner = f"author {bot.author!r}" if bot.author else "the operator"
            await abort(
                context,
                grpc.StatusCode.PERMISSION_DENIED,
                f"bot {name!r} belongs to {owner}: an author may remove bots of their own, "
                f"and their versions, only (you are {caller.author!r}); the operator's "
                "token removes any bot",
            )
        return bot

    async def sweep(self) -> None:
        """Delete the packages of removed versions that no running tournament plays any
        more; a failure leaves them to the next sweep."""
        try:
            await asyncio.to_thread(self.removal.sweep)
        except redis.RedisError as error:
            log.warning("cannot sweep the packages of removed versions: %s", error)

    def start_sweeping(self) -> None:
        """Sweep every ``SWEEP_EVERY_S``, so that the packages a tournament kept go once
        the workers finish it (nothing here hears of that)."""
        if self._sweeper is None:
            self._sweeper = asyncio.create_task(self._sweep_forever())

    async def _sweep_forever(self) -> None:
        try:  # once: packages of bots removed before removal deleted packages
            await asyncio.to_thread(self.removal.note_unused)
        except redis.RedisError as error:
            log.warning("cannot look for unused packages: %s", error)
        while True:
            try:
                await self.sweep()
            except Exception:  # a record it cannot read: say so, and go on sweeping
                log.exception("cannot sweep the packages of removed versions")
            await asyncio.sleep(SWEEP_EVERY_S)

    # ListBotVersions

    async def versions(
        self, request: arena_pb2.ListBotVersionsRequest, context: Context
    ) -> arena_pb2.ListBotVersionsResponse:
        await _check_name(request.name, "bot name", context)
        found = await asyncio.to_thread(self.packages.versions, request.name)
        if not found:
            bot = await asyncio.to_thread(self.bots.get, request.name)
            why = (
                f"{request.name!r} is a remote bot, registered at an address: it has no versions"
                if bot is not None
                else f"no hosted bot {request.name!r}"
            )
            await abort(context, grpc.StatusCode.NOT_FOUND, why)
        return arena_pb2.ListBotVersionsResponse(versions=[version_message(v) for v in found])

    # GetBotLogs

    async def bot_logs(
        self, request: arena_pb2.GetBotLogsRequest, context: Context
    ) -> arena_pb2.BotLogs:
        caller = await self._known_caller("GetBotLogs", context)
        name, match_id = request.bot, request.match_id
        await _check_name(name, "bot name", context)
        public = PUBLIC_ID.fullmatch(match_id) is not None
        parsed = SCHEDULED_MATCH_ID.match(match_id)
        if public and not request.tournament_id:
            await abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"{match_id!r} is a public id, which does not name its tournament: give the "
                "tournament's id too (arena bot logs BOT MATCH --tournament ID)",
            )
        if parsed is None and not public:
            await abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"bad match id {match_id!r}: a match id is its tournament's id and the "
                "match's name, as in t0123456789ab-GAME-0-0-a or "
                "t0123456789ab-swiss-r1-t2-GAME-0-a, or a public id (p and 20 hex digits) "
                "with the tournament's id (`arena tournament results ID` lists a tournament's)",
            )
        tournament_id = request.tournament_id if public else parsed.group(1)  # type: ignore[union-attr]
        bot = await asyncio.to_thread(self.bots.get, name)
        if bot is None:
            await abort(context, grpc.StatusCode.NOT_FOUND, f"no bot {name!r}")
        if not caller.operator and bot.author != caller.author:
            await abort(
                context,
                grpc.StatusCode.PERMISSION_DENIED,
                f"the logs of {name!r} are for its author ({bot.author!r}) and the operator only"
                if bot.author
                else f"the logs of {name!r} are for the operator only: it has no author",
            )
        if not bot.hosted:
            await abort(
                context,
                grpc.StatusCode.NOT_FOUND,
                f"{name!r} is a remote bot: the arena keeps the logs of the bots it hosts only",
            )
        record = await asyncio.to_thread(self.tournaments.get, tournament_id)
        if record is None:
            await abort(context, grpc.StatusCode.NOT_FOUND, f"no tournament {tournament_id!r}")
        shown = match_id  # what the caller knows the match by
        if public:
            match_id = await asyncio.to_thread(schedule_id, self.tournaments, record, match_id)
        if not revealed(record):
            if not public or not reveals_each_match(record):
                await abort(context, grpc.StatusCode.FAILED_PRECONDITION, _not_yet(record))
            if not await asyncio.to_thread(
                deal_ended, self.tournaments, self.leases, record, match_id
            ):
                await abort(
                    context,
                    grpc.StatusCode.FAILED_PRECONDITION,
                    f"match {shown} of ladder {record.id} is still being played (or has no "
                    "result yet): an open ladder gives a match's logs once it has ended",
                )
        match = await asyncio.to_thread(self.tournaments.scheduled, tournament_id, match_id)
        if match is None:
            await abort(
                context,
                grpc.StatusCode.NOT_FOUND,
                f"tournament {tournament_id} has no match {shown!r}",
            )
        played = [e for e in match.entries if _bot_of(e) == name]
        if not played:
            await abort(
                context,
                grpc.StatusCode.NOT_FOUND,
                f"{name!r} did not play match {shown} ({' against '.join(match.entries)})",
            )
        if not caller.operator:
            await self._same_bot(name, played, record.spec, context)
        seats = await asyncio.to_thread(self.logs.get, tournament_id, match_id)
        mine = [s for s in seats if _bot_of(s.entry) == name]
        if not mine:
            why = await self._why_none(tournament_id, match_id, shown)
            await abort(context, grpc.StatusCode.NOT_FOUND, why)
        return arena_pb2.BotLogs(
            bot=name,
            match_id=shown,
            version=", ".join(dict.fromkeys(_label_of(s) for s in mine)),
            seats=[
                arena_pb2.BotSeatLog(
                    seat=s.seat, output=s.output, truncated=s.truncated, exit=s.exit
                )
                for s in mine
            ],
        )

    async def _same_bot(
        self, name: str, played: list[str], spec: TournamentPlan, context: Context
    ) -> None:
        """Refuse an author the logs of a version they did not author: one of a bot that
        was removed, whose name they took afterwards (removal forgets its versions)."""
        for entry in played:
            _, _, label = entry.partition("@")
            version = await asyncio.to_thread(self.packages.version, name, label)
            seated = spec.lineup.get(entry)
            package = None if seated is None or seated.hosted is None else seated.hosted.sha256
            if version is None or version.sha256 != package:
                await abort(
                    context,
                    grpc.StatusCode.PERMISSION_DENIED,
                    f"{entry} is not a version of {name!r} as it is now (it was removed "
                    "since): its logs are the operator's only",
                )

    async def _why_none(self, tournament_id: str, match_id: str, shown: str) -> str:
        if not await asyncio.to_thread(self.tournaments.has_result, tournament_id, match_id):
            return f"match {shown} was never played (its tournament was cancelled first)"
        return (
            f"no logs of match {shown}: it may have ended before the bot's processes "
            f"started, or its logs were dropped ({KEEP_DAYS} days after the tournament's "
            "last match)"
        )

    # AddAuthor

    async def add_author(
        self, request: arena_pb2.AddAuthorRequest, context: Context
    ) -> arena_pb2.AuthorToken:
        if not self.token:
            await abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                "this API has no operator token, so every caller acts as the operator and an "
                "author's token would protect nothing: anyone could submit or remove bots in "
                "the author's name. Start the API with a token (`arena token new --out "
                "op-token`, then `arena api serve --token-file op-token`) and add authors "
                "with it (`arena author add NAME --token-file op-token`)",
            )
        await _check_name(request.name, "author name", context)
        token = await asyncio.to_thread(self.authors.add, request.name)
        return arena_pb2.AuthorToken(name=request.name, token=token)


async def _check_name(value: str, what: str, context: Context) -> None:
    if not limits.BOT_NAME.match(value):
        await abort(
            context,
            grpc.StatusCode.INVALID_ARGUMENT,
            f"bad {what} {value!r}: use {NAMES_ALLOWED}",
        )


async def _claim(
    caller: Caller, name: str, existing: RegisteredBot | None, context: Context
) -> str:
    """The author ``name`` will have once the caller submits to it; refuses a caller who
    may not submit to it."""
    if existing is not None and not existing.hosted:
        await abort(
            context,
            grpc.StatusCode.FAILED_PRECONDITION,
            f"{name!r} is a remote bot, registered at an address: a hosted bot needs a name "
            f"of its own (or the operator removes {name!r} first)",
        )
    if caller.operator:
        return existing.author if existing is not None else ""
    assert caller.author is not None
    if existing is None or existing.author == caller.author:
        return caller.author
    owner = f"author {existing.author!r}" if existing.author else "the operator"
    await abort(
        context,
        grpc.StatusCode.PERMISSION_DENIED,
        f"bot {name!r} belongs to {owner}: an author may submit new bots and new versions "
        f"of their own (you are {caller.author!r})",
    )


async def _label_taken(name: str, label: str, context: Context) -> None:
    await abort(
        context,
        grpc.StatusCode.ALREADY_EXISTS,
        f"bot {name!r} already has a version {label!r}: versions are never replaced, give "
        f"this one a new label (`arena bot versions {name}` lists them)",
    )


async def _kept_changing(name: str, context: Context) -> NoReturn:
    await abort(
        context,
        grpc.StatusCode.ABORTED,
        f"bot {name!r} kept changing while it was being removed: remove it again",
    )


def _piece(request: arena_pb2.SubmitBotRequest) -> bytes:
    """A later message of SubmitBot's stream: a piece of the package, nothing else."""
    if request.name or request.version or request.runtime or request.command:
        raise ValueError(
            "only SubmitBot's first message names the bot (name, version, runtime, "
            "command); later ones carry only the next piece of the package"
        )
    return request.package


def removed_message(removed: Removed) -> arena_pb2.RemovedPackages:
    return arena_pb2.RemovedPackages(
        freed_bytes=removed.freed_bytes,
        kept_bytes=removed.kept_bytes,
        kept_for=list(removed.kept_for),
    )


async def _check_bot(
    referees: Referees, address: str, bot: referee_pb2.HostedBot, blob: bytes
) -> referee_pb2.CheckBotResponse:
    """CheckBot on the referee at ``address``: the package is uploaded only when the
    referee says it has not got it, as the workers do (``arena.hosting.referee_calls``)."""
    metadata = (bearer(referees.token),) if referees.token else None
    channel = (
        grpc.aio.insecure_channel(address)
        if referees.credentials is None
        else grpc.aio.secure_channel(address, referees.credentials)
    )
    async with channel:
        stub = referee_pb2_grpc.RefereeStub(channel)

        async def check() -> referee_pb2.CheckBotResponse:
            answer: referee_pb2.CheckBotResponse = await stub.CheckBot(
                referee_pb2.CheckBotRequest(bot=bot),
                metadata=metadata,
                timeout=REFEREE_CHECK_TIMEOUT_S,
            )
            return answer

        return await call_with_packages_async(
            check,
            stub,
            {bot.package_sha256: blob}.get,
            uploads=1,
            metadata=metadata,
            timeout=REFEREE_CHECK_TIMEOUT_S,
        )


async def _runtime(name: str, context: Context, *, local: bool) -> Runtime:
    """The runtime ``name``: as this host runs it (``local``), or as declared."""
    try:
        if not local:
            return runtimes.declared(name)
        return await asyncio.to_thread(runtimes.runtime, name)
    except RuntimeUnavailable as error:  # before ValueError, which it is
        await abort(
            context,
            grpc.StatusCode.FAILED_PRECONDITION,
            f"this arena cannot run {name!r}: {error}; choose another of "
            f"{', '.join(runtimes.NAMES)}",
        )
    except ValueError as error:
        await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))


def _not_yet(record: TournamentRecord) -> str:
    if record.state == RUNNING:
        return (
            f"tournament {record.id} is still running ({record.done} of {record.total} "
            "matches played): its logs are readable once it has finished or been "
            "cancelled, since a log could show a deal still to be played"
        )
    return (
        f"tournament {record.id} is {record.state} but {record.playing} of its matches "
        "are still being played: its logs are readable once they have ended"
    )


def _bot_of(entry: str) -> str:
    """The bot an entry (``name`` or ``name@version``) is."""
    return entry.partition("@")[0]


def _label_of(seat: SeatOutput) -> str:
    return seat.entry.partition("@")[2]
