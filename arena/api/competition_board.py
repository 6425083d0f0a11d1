"""GetCompetitionLeaderboard: a competition's live board, read from its open ladder by
author (``arena.competition.board``).

The ratings are the ladder tournament's leaderboard, fitted and cached as every board is
(``ArenaService._board``); this module only says whose each version is and which are
active: the ladder's lineup as the arena would build it now
(``arena.tournament.spec.competition_lineup``), and for versions that have left it, the
lineup the ladder kept for their matches; with leagues, each version's league as the
ladder's state records it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeAlias

import grpc

from arena.access import API
from arena.api.competitions import PHASE_PROTO
from arena.api.hosted import Caller
from arena.competition.board import AuthorRow, by_author, in_leagues, versions_of, with_league
from arena.grpc_server import abort
from arena.ratings.board import Leaderboard
from arena.store import BotRegistry, TournamentStore
from arena.store.competitions import CompetitionStore, RedisRoster
from arena.tournament import formats
from arena.tournament.formats import ladder_leagues
from arena.v1 import arena_pb2

if TYPE_CHECKING:
    Context: TypeAlias = grpc.aio.ServicerContext[Any, Any]

Fit = Callable[[str, str, "Context"], Awaitable[Leaderboard]]
"""A tournament's board for a game ("" for all), as ``ArenaService._board`` gives it."""
RowMessage = Callable[[Leaderboard], list[arena_pb2.LeaderboardRow]]


class CompetitionBoards:
    def __init__(
        self,
        competitions: CompetitionStore,
        tournaments: TournamentStore,
        bots: BotRegistry,
        roster: RedisRoster,
    ) -> None:
        self.competitions = competitions
        self.tournaments = tournaments
        self.bots = bots
        self.roster = roster

    async def board(
        self,
        request: arena_pb2.GetCompetitionLeaderboardRequest,
        context: Context,
        caller: Caller,
        fit: Fit,
        rows_of: RowMessage,
    ) -> arena_pb2.CompetitionLeaderboard:
        if request.mine and not caller.operator and caller.author is None:
            code = (
                grpc.StatusCode.PERMISSION_DENIED
                if caller.sent_token
                else grpc.StatusCode.UNAUTHENTICATED
            )
            await abort(
                context,
                code,
                "GetCompetitionLeaderboard with mine needs the author's token (every version "
                f"of theirs) or the operator's (everyone's): {API.how}",
            )
        record = await asyncio.to_thread(self.competitions.get, request.name)
        if record is None:
            await abort(context, grpc.StatusCode.NOT_FOUND, f"no competition {request.name!r}")
        if not record.ladder:
            await abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"competition {record.name!r} is {record.phase}: its board comes from the "
                "ladder the arena starts as it opens",
            )
        board = await fit(record.ladder, request.game, context)
        authors, active, reached = await asyncio.to_thread(self._whose, record.ladder, record.name)
        leagues = record.spec.rules.leagues
        if leagues is None:
            rows = by_author(board, authors, active)
        else:
            rows = in_leagues(board, authors, active, leagues, reached)
        message = arena_pb2.CompetitionLeaderboard(
            competition=record.name,
            game=board.game,
            phase=PHASE_PROTO[record.phase],
            ladder_tournament_id=record.ladder,
            rows=self._messages(rows, board, rows_of),
            matches=board.matches,
        )
        if request.mine:
            who = None if caller.operator else {str(caller.author)}
            versions = versions_of(board, authors, active, who)
            if leagues is not None:
                versions = with_league(versions, leagues, reached)
            message.versions.extend(self._messages(versions, board, rows_of))
        return message

    def _whose(
        self, ladder: str, competition: str
    ) -> tuple[dict[str, str], set[str], dict[str, int]]:
        """Each version's author (every version the ladder has had), the active ones, and
        the leagues the ladder's versions have reached."""
        record = self.tournaments.get(ladder)
        authors = {label: e.author for label, e in self.tournaments.lineup(ladder).items()}
        if record is None:
            return authors, set(), {}
        reached = ladder_leagues.reached((record.scheduler or {}).get("format", {}))
        lineup = formats.get(record.spec.format).lineup
        now = lineup(record.spec, self.bots.all(), self.roster.packages.version, self.roster)
        authors |= {e.label: e.author for e in now}
        return authors, {e.label for e in now}, reached

    @staticmethod
    def _messages(
        rows: list[AuthorRow], board: Leaderboard, rows_of: RowMessage
    ) -> list[arena_pb2.CompetitionBoardRow]:
        by_bot = {r.bot: r for r in rows_of(board)}
        return [
            arena_pb2.CompetitionBoardRow(
                rank=r.rank,
                author=r.author,
                version=r.row.bot,
                active=r.active,
                rating=by_bot[r.row.bot],
                league=r.league,
                boss=r.boss,
            )
            for r in rows
        ]
