"""A competition's final as the API shows it, and MarkFinalVersion: an author picks which
of their active versions plays the final (``arena.competition.final``).

A mark is the author's own choice, for their own version only: the operator's token
marks nothing (it is no author's), and another author's bot is PERMISSION_DENIED. The
version must be one of the author's active versions as the ladder counts them
(``arena.tournament.active_versions``), the refusal naming those. A mark is stored only
while the competition takes submissions, by the clock and as stored, and before the
workers pick the final versions (one script: ``CompetitionStore.mark``), so a mark
accepted is a mark the final honours, unless a later submission retires the version.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

import grpc

from arena.access import API
from arena.api.common import timestamp
from arena.api.hosted import Caller
from arena.competition import phases
from arena.competition.final import BEST_RATED, MARKED, NEWEST, FinalVersion
from arena.competition.final_board import FinalBoard
from arena.grpc_server import abort
from arena.store import BotRegistry
from arena.store.competitions import MARKED as STORED
from arena.store.competitions import NOT_JOINABLE, CompetitionRecord, CompetitionStore
from arena.store.packages import PackageStore
from arena.tournament.active_versions import by_author
from arena.v1 import arena_pb2

if TYPE_CHECKING:
    Context: TypeAlias = grpc.aio.ServicerContext[Any, Any]

CHOICE_PROTO = {
    MARKED: arena_pb2.FINAL_CHOICE_MARKED,
    BEST_RATED: arena_pb2.FINAL_CHOICE_BEST_RATED,
    NEWEST: arena_pb2.FINAL_CHOICE_NEWEST,
}


def version_message(version: FinalVersion) -> arena_pb2.FinalVersion:
    return arena_pb2.FinalVersion(
        author=version.author, version=version.version, chosen=CHOICE_PROTO[version.chosen]
    )


def board_message(board: FinalBoard) -> arena_pb2.FinalBoard:
    return arena_pb2.FinalBoard(
        tournament_id=board.tournament_id,
        frozen_at=timestamp(board.frozen_at),
        matches=board.matches,
        unplayed=board.unplayed,
        results_digest=board.results_digest,
        tie_los=board.tie_los,
        rows=[
            arena_pb2.FinalBoardRow(
                rank=r.rank,
                author=r.author,
                version=r.version,
                chosen=CHOICE_PROTO[r.chosen],
                elo=r.elo,
                elo_ci95=r.elo_ci95,
                los_next=r.los_next,
                tied_with_next=r.tied_with_next,
                pairs=r.pairs,
                wins=r.wins,
                draws=r.draws,
                losses=r.losses,
                matches=r.matches,
                matches_won=r.matches_won,
                status=r.status,
            )
            for r in board.rows
        ],
    )


def add_final(message: arena_pb2.Competition, record: CompetitionRecord) -> None:
    """The final's fields of ``message``, from what is recorded."""
    message.final_tournament_id = record.final
    message.final_seed_commitment = record.final_commitment
    message.final_versions.extend(version_message(v) for v in record.final_versions or ())
    message.final_deals = record.final_deals
    message.final_deals_reason = record.final_deals_reason
    if record.final_board is not None:
        message.final_board.CopyFrom(board_message(record.final_board))


class FinalMarks:
    def __init__(
        self,
        competitions: CompetitionStore,
        bots: BotRegistry,
        packages: PackageStore,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.competitions = competitions
        self.bots = bots
        self.packages = packages
        self.clock = clock

    async def mark(
        self, request: arena_pb2.MarkFinalVersionRequest, context: Context, caller: Caller
    ) -> arena_pb2.MarkFinalVersionResponse:
        author = caller.author
        if author is None:
            if not caller.operator and not caller.sent_token:
                await abort(
                    context,
                    grpc.StatusCode.UNAUTHENTICATED,
                    f"MarkFinalVersion needs the author's token: {API.how}",
                )
            await abort(
                context,
                grpc.StatusCode.PERMISSION_DENIED,
                "MarkFinalVersion: a final version is its author's choice, made with their "
                "own token" + ("" if caller.operator else " (this token is no author's)"),
            )
        record = await asyncio.to_thread(self.competitions.get, request.competition)
        if record is None:
            await abort(
                context, grpc.StatusCode.NOT_FOUND, f"no competition {request.competition!r}"
            )
        if author not in record.competitors:
            await abort(
                context,
                grpc.StatusCode.PERMISSION_DENIED,
                f"author {author!r} is not a competitor of {record.name!r}: only its "
                "competitors mark final versions in it",
            )
        await self._takes_submissions(record, record.phase, context)
        name = request.version.partition("@")[0]
        bot = await asyncio.to_thread(self.bots.get, name)
        if bot is not None and bot.author != author:
            await abort(
                context,
                grpc.StatusCode.PERMISSION_DENIED,
                f"{request.version!r} is a version of {name!r}, which is not author "
                f"{author!r}'s: an author marks only a version of their own",
            )
        spec = record.spec
        games = [game for game, _ in spec.games]
        active = await asyncio.to_thread(
            lambda: by_author(
                self.bots.all(), self.packages.versions, {author}, spec.rules.active_versions, games
            ).get(author, [])
        )
        labels = [v.label for v in active]
        if request.version not in labels:
            allowed = (
                f"one of your active versions: {', '.join(labels)}"
                if labels
                else "one of your active versions, and you have none: submit one with "
                "`arena bot submit`"
            )
            await abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"{request.version!r} is not one of author {author!r}'s active versions in "
                f"{record.name!r} (their newest {spec.rules.active_versions} that play one of "
                f"its games); mark {allowed}",
            )
        found = await asyncio.to_thread(
            self.competitions.mark, record.name, author, request.version
        )
        if found.startswith(NOT_JOINABLE):  # moved on since it was read
            await self._takes_submissions(record, found.removeprefix(NOT_JOINABLE), context)
        if found != STORED:
            await abort(
                context, grpc.StatusCode.NOT_FOUND, f"no competition {request.competition!r}"
            )
        return arena_pb2.MarkFinalVersionResponse(
            competition=record.name, author=author, version=request.version
        )

    async def _takes_submissions(
        self, record: CompetitionRecord, stored: str, context: Context
    ) -> None:
        """Refuse FAILED_PRECONDITION unless the competition, as ``stored`` and by the
        clock, takes submissions."""
        phase = phases.current(stored, record.spec.timeline, self.clock())
        if phase not in phases.SUBMITTING:
            closed = timestamp(record.spec.timeline.submissions_close_at).ToJsonString()
            await abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"competition {record.name!r} is {phase}: final versions are marked only "
                f"while it takes submissions (scheduled or open; submissions closed at "
                f"{closed})",
            )
