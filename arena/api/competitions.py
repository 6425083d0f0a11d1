"""The Arena API's competition calls (``docs/competitions.md``): create, read, list and
cancel competitions, issue invite codes, and join by invite.

Creating, cancelling and issuing invites are the operator's (``arena.access.API``
guards them); reads are open; JoinCompetition is anonymous, which is its point, so each
address gets a budget of joins (``arena.throttle``) spent before the code is looked at:
guessing codes costs the guesser time, and a code is 128 random bits anyway. As with
AddAuthor, an API without an operator token issues no invites and lets no one join:
there every caller acts as the operator, and an author's token would protect nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

import grpc
import redis

from arena.api.common import timestamp
from arena.api.competition_final import add_final
from arena.competition import invites, phases
from arena.competition.invites import Invite, code_hash, new_code
from arena.competition.spec import CompetitionSpec, InvalidCompetition, check, duration, seconds
from arena.grpc_server import abort
from arena.limits import BOT_NAME
from arena.store.authors import new_token, token_hash
from arena.store.bots import BotRegistry
from arena.store.competitions import (
    CANCELLED_NOW,
    JOINED,
    NOT_JOINABLE,
    TAKEN,
    CompetitionRecord,
    CompetitionStore,
)
from arena.store.packages import PackageStore
from arena.throttle import JOIN_BURST, JOINS_PER_MINUTE, Throttle, peer_host
from arena.tournament.fair_play import PARTNERS_PROTO, PROTO
from arena.v1 import arena_pb2

if TYPE_CHECKING:
    Context: TypeAlias = grpc.aio.ServicerContext[Any, Any]

PHASE_PROTO = {
    phases.SCHEDULED: arena_pb2.COMPETITION_PHASE_SCHEDULED,
    phases.OPEN: arena_pb2.COMPETITION_PHASE_OPEN,
    phases.CLOSED: arena_pb2.COMPETITION_PHASE_CLOSED,
    phases.FINAL: arena_pb2.COMPETITION_PHASE_FINAL,
    phases.FINISHED: arena_pb2.COMPETITION_PHASE_FINISHED,
    phases.CANCELLED: arena_pb2.COMPETITION_PHASE_CANCELLED,
}
_NO_TOKEN = (
    "this API has no operator token, so every caller acts as the operator and an author's "
    "token would protect nothing. Start the API with a token (`arena token new --out "
    "op-token`, then `arena api serve --token-file op-token`)"
)


def joins_throttle(per_minute: float = JOINS_PER_MINUTE, burst: int = JOIN_BURST) -> Throttle:
    """The budget of joins per address."""
    return Throttle(rate_per_s=per_minute / 60, burst=burst)


def competition_message(record: CompetitionRecord) -> arena_pb2.Competition:
    spec, rules, timeline = record.spec, record.spec.rules, record.spec.timeline
    message = arena_pb2.Competition(
        spec=arena_pb2.CompetitionSpec(
            name=spec.name,
            description=spec.description,
            games=[arena_pb2.CompetitionGame(game=g, options=o) for g, o in spec.games],
            timeline=arena_pb2.CompetitionTimeline(
                opens_at=timestamp(timeline.opens_at),
                submissions_close_at=timestamp(timeline.submissions_close_at),
                final_ends_at=timestamp(timeline.final_ends_at),
            ),
            rules=arena_pb2.CompetitionRules(
                fair_play=PROTO[rules.fair_play],
                partners=PARTNERS_PROTO[rules.partners],
                daily_submissions=rules.daily_submissions,
                active_versions=rules.active_versions,
                final_deals=rules.final_deals,
                final_los=rules.final_los,
                move_deadline=duration(rules.move_deadline_ms),
                time_bank=duration(rules.time_bank_ms) if rules.time_bank_ms else None,
                max_faults=rules.max_faults,
            ),
        ),
        phase=PHASE_PROTO[record.phase],
        transitions=[
            arena_pb2.CompetitionTransition(
                phase=PHASE_PROTO[t.phase],
                due_at=timestamp(t.due_at),
                recorded_at=timestamp(t.recorded_at),
            )
            for t in record.transitions
        ],
        created_at=timestamp(record.created_at),
        competitors=list(record.competitors),
        ladder_tournament_id=record.ladder,
    )
    add_final(message, record)
    if rules.leagues is not None:
        message.spec.rules.leagues.extend(
            arena_pb2.CompetitionLeague(name=x.name, boss=x.boss) for x in rules.leagues.leagues
        )
        message.spec.rules.promotion_los = rules.leagues.promotion_los
        message.spec.rules.promotion_pairs = rules.leagues.promotion_pairs
    return message


class Competitions:
    """The competition calls, for ``ArenaService`` to delegate to."""

    def __init__(
        self,
        client: redis.Redis,
        token: str | None,
        joins: Throttle | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = CompetitionStore(client)
        self.bots = BotRegistry(client)
        self.packages = PackageStore(client)
        self.token = token
        self.joins = joins if joins is not None else joins_throttle()
        self.clock = clock

    async def _get(self, name: str, context: Context) -> CompetitionRecord:
        record = await asyncio.to_thread(self.store.get, name)
        if record is None:
            await abort(context, grpc.StatusCode.NOT_FOUND, f"no competition {name!r}")
        return record

    async def create(
        self, request: arena_pb2.CreateCompetitionRequest, context: Context
    ) -> arena_pb2.Competition:
        now = self.clock()
        try:
            spec = check(request.spec, now)
        except InvalidCompetition as error:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
        refused = await asyncio.to_thread(self._boss_refusal, spec)
        if refused:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, refused)
        if not await asyncio.to_thread(self.store.create, spec, now):
            await abort(
                context,
                grpc.StatusCode.ALREADY_EXISTS,
                f"a competition named {spec.name!r} exists: choose another name",
            )
        return competition_message(await self._get(spec.name, context))

    def _boss_refusal(self, spec: CompetitionSpec) -> str | None:
        """Why a league's boss cannot play, if one cannot: a boss is a version of a hosted
        bot the operator registered (sealed play seats only hosted bots; an author's
        version would be a competitor, not a boss)."""
        if spec.rules.leagues is None:
            return None
        for label in spec.rules.leagues.bosses():
            name, _, version = label.partition("@")
            bot = self.bots.get(name)
            if bot is None or not bot.hosted or bot.author:
                what = (
                    "is not registered"
                    if bot is None
                    else f"is {bot.author}'s"
                    if bot.author
                    else "is a remote bot"
                )
                return (
                    f"boss {label!r}: bot {name!r} {what}; a boss is a version of a hosted "
                    "bot the operator registered (`arena bot submit` with the operator's token)"
                )
            if self.packages.version(name, version) is None:
                return (
                    f"boss {label!r}: hosted bot {name!r} has no version {version!r}; "
                    f"`arena bot versions {name}` lists them"
                )
        return None

    async def get(
        self, request: arena_pb2.GetCompetitionRequest, context: Context
    ) -> arena_pb2.Competition:
        return competition_message(await self._get(request.name, context))

    async def list(
        self, request: arena_pb2.ListCompetitionsRequest, context: Context
    ) -> arena_pb2.ListCompetitionsResponse:
        records = await asyncio.to_thread(self.store.all)
        return arena_pb2.ListCompetitionsResponse(
            competitions=[competition_message(r) for r in records]
        )

    async def cancel(
        self, request: arena_pb2.CancelCompetitionRequest, context: Context
    ) -> arena_pb2.Competition:
        record = await self._get(request.name, context)
        now = self.clock()
        ended = record.phase if record.phase in phases.ENDED else None
        if ended is None and phases.phase_at(record.spec.timeline, now) == phases.FINISHED:
            ended = phases.FINISHED  # by the clock, though no worker has recorded it yet
        if ended is None:
            found = await asyncio.to_thread(self.store.cancel, record.name, now)
            ended = None if found == CANCELLED_NOW else found
        if ended is not None:
            await abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"competition {record.name!r} is {ended}: only one that has not finished "
                "or been cancelled may be cancelled",
            )
        return competition_message(await self._get(record.name, context))

    async def create_invites(
        self, request: arena_pb2.CreateInvitesRequest, context: Context
    ) -> arena_pb2.CreateInvitesResponse:
        if not self.token:
            await abort(context, grpc.StatusCode.FAILED_PRECONDITION, _NO_TOKEN)
        record = await self._get(request.competition, context)
        now = self.clock()
        count = request.count or 1
        uses = request.uses or 1
        if not 1 <= count <= invites.MAX_COUNT:
            await abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"count must be 1 to {invites.MAX_COUNT:,} codes (0 for 1), got {request.count}",
            )
        if not 1 <= uses <= invites.MAX_USES:
            await abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"uses must be 1 to {invites.MAX_USES:,} per code (0 for 1: single-use), got "
                f"{request.uses}",
            )
        closes = record.spec.timeline.submissions_close_at
        expires = seconds(request.expires_at) if request.HasField("expires_at") else closes
        if expires <= now:
            await abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"expires_at ({timestamp(expires).ToJsonString()}) must be after now "
                f"({timestamp(now).ToJsonString()}); unset, the codes expire when submissions "
                "close",
            )
        await self._joinable(record, now, context, "take invites")
        codes = [new_code() for _ in range(count)]
        invite = Invite(record.name, uses, uses, expires, now)
        await asyncio.to_thread(
            self.store.add_invites, record.name, [code_hash(c) for c in codes], invite
        )
        return arena_pb2.CreateInvitesResponse(
            competition=record.name, codes=codes, uses=uses, expires_at=timestamp(expires)
        )

    async def _joinable(
        self, record: CompetitionRecord, now: float, context: Context, what: str
    ) -> None:
        """Refuse FAILED_PRECONDITION unless the competition, as stored and by the clock
        (the workers record a phase within a watchdog round of it), takes competitors."""
        phase = record.phase
        if phase not in phases.ENDED:
            clock = phases.phase_at(record.spec.timeline, now)
            phase = max(phase, clock, key=phases.ORDER.index)
        if phase not in phases.JOINABLE:
            await abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"competition {record.name!r} is {phase}: it may {what} only while "
                f"{' or '.join(sorted(phases.JOINABLE, key=phases.ORDER.index))}",
            )

    async def join(
        self, request: arena_pb2.JoinCompetitionRequest, context: Context
    ) -> arena_pb2.JoinCompetitionResponse:
        wait = self.joins.take(peer_host(context.peer()))
        if wait is not None:
            context.set_trailing_metadata((("retry-after", str(wait)),))
            await abort(
                context,
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"JoinCompetition is limited to {self.joins.rate_per_s * 60:g} a minute (in "
                f"bursts of {self.joins.burst}) for each address; retry in {wait} s "
                "(retry-after)",
            )
        if not self.token:
            await abort(context, grpc.StatusCode.FAILED_PRECONDITION, _NO_TOKEN)
        if not BOT_NAME.match(request.author):
            await abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"bad author name {request.author!r}: use 1 to 40 letters, digits, '-', '_' or '.'",
            )
        hashed = code_hash(request.invite)
        invite = await asyncio.to_thread(self.store.invite, hashed)
        if invite is None:
            await abort(
                context,
                grpc.StatusCode.NOT_FOUND,
                "unknown invite code: check it was copied whole (it starts with "
                f"{invites.PREFIX!r}), or ask the organiser for another",
            )
        record = await self._get(invite.competition, context)
        now = self.clock()
        await self._refuse_invite(invite.refusal(now), invite, context)
        await self._joinable(record, now, context, "be joined")
        token = new_token()
        outcome = await asyncio.to_thread(
            self.store.join, hashed, record.name, request.author, token_hash(token), now
        )
        if outcome == TAKEN:
            await abort(
                context,
                grpc.StatusCode.ALREADY_EXISTS,
                f"the author name {request.author!r} is taken by another author: choose another",
            )
        if outcome.startswith(NOT_JOINABLE):  # cancelled or advanced since it was read
            phase = outcome.removeprefix(NOT_JOINABLE)
            await abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"competition {record.name!r} is {phase}: it may be joined only while "
                "scheduled or open",
            )
        if outcome != JOINED:
            await self._refuse_invite(outcome, invite, context)
        return arena_pb2.JoinCompetitionResponse(
            competition=record.name,
            author=arena_pb2.AuthorToken(name=request.author, token=token),
        )

    async def _refuse_invite(self, reason: str | None, invite: Invite, context: Context) -> None:
        if reason is None:
            return
        if reason == invites.UNKNOWN:
            await abort(context, grpc.StatusCode.NOT_FOUND, "unknown invite code")
        if reason == invites.USED_UP:
            message = (
                f"this invite code is used up: it brought in {invite.uses} "
                f"{'author' if invite.uses == 1 else 'authors'}; ask the organiser for another"
            )
        else:
            message = (
                f"this invite code expired at {timestamp(invite.expires_at).ToJsonString()}; "
                "ask the organiser for another"
            )
        await abort(context, grpc.StatusCode.FAILED_PRECONDITION, message)
