"""The Arena service: the front door for bot authors, organisers and leaderboard readers.

It keeps nothing in memory: bots, tournaments and results live in Redis (``arena.store``),
matches are queued on Celery (``workers.dispatch``) and played by referees. The calls for
hosted bots and their authors live in ``arena.api.hosted``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
import time
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeAlias

import grpc
import redis
from google.protobuf import duration_pb2
from prometheus_client import start_http_server

from arena import limits, wire
from arena.access import API, TokenCheck, holds_token
from arena.api.boards import BoardCache
from arena.api.common import (
    deal_ended,
    deal_revealed,
    revealed,
    reveals_each_match,
    schedule_id,
    timestamp,
)
from arena.api.competition_board import CompetitionBoards
from arena.api.competition_final import FinalMarks
from arena.api.competitions import Competitions, joins_throttle
from arena.api.hosted import HostedBots, Referees, games_played, plays_none
from arena.api.metrics import REPLAYS, RequestCounter
from arena.api.paging import InvalidPage, PageRequest, page_request
from arena.api.probe import Probe, Unregistrable
from arena.api.reads import ReadBudget
from arena.api.store_down import StoreDown
from arena.bot_networks import DEFAULT, BotNetworks
from arena.games import game_names
from arena.grpc_server import abort, start_serving
from arena.quotas import AuthorQuotas
from arena.ratings.board import EXCLUDED, INCOMPLETE, PROVISIONAL, RANK_RULE, RATED, Row
from arena.ratings.collusion import FLAG_Z, MIN_OUTCOMES, PairReport, collusion_reports
from arena.ratings.compare import CannotCompare, compare, los_matrix
from arena.ratings.elo import PRIOR_SIGMA
from arena.ratings.history import Point, series
from arena.ratings.leaderboard import Intervals, Leaderboard, leaderboard, scaled
from arena.ratings.scale import BadScale, Scale
from arena.ratings.skill import SkillTable, skill_table
from arena.ratings.texts import every_row
from arena.ratings.versions import Folded, across_versions, folded
from arena.referee.requests import InvalidRequest, check_address
from arena.replay.match_log import decode, replay_document
from arena.replay.verify import ReplayMismatch
from arena.store import BotRegistry, RegisteredBot, TournamentRecord, TournamentStore
from arena.store.competitions import RedisRoster
from arena.store.history import RatingHistoryStore
from arena.store.leases import MatchLeases
from arena.store.live import LiveAttempt, LiveMatches
from arena.store.packages import PackageStore
from arena.store.reach import connect
from arena.store.results import MatchResult
from arena.store.tournaments import CANCELLED, FINISHED, RUNNING
from arena.throttle import BURST, READS_PER_S, Throttle
from arena.tls import ServerTls
from arena.tournament import formats
from arena.tournament.fair_play import PARTNERS_PROTO, PROTO, PUBLIC_ID
from arena.tournament.spec import InvalidSpec, TooLarge, TournamentPlan, plan
from arena.tournament.standings import spec_format, standings
from arena.v1 import arena_pb2, arena_pb2_grpc, referee_pb2

if TYPE_CHECKING:
    Context: TypeAlias = grpc.aio.ServicerContext[Any, Any]

WATCH_POLL_S = 0.3
CACHED_REPLAYS = 128
"""Replays the API keeps once re-run (a few MiB at most: a replay is tens of KiB)."""
STATES = {
    RUNNING: arena_pb2.TOURNAMENT_STATE_RUNNING,
    FINISHED: arena_pb2.TOURNAMENT_STATE_FINISHED,
    CANCELLED: arena_pb2.TOURNAMENT_STATE_CANCELLED,
}


def bot_message(bot: RegisteredBot, *, operator: bool = True) -> arena_pb2.RegisteredBot:
    """The registry entry; its address only for the ``operator`` (``arena.access``)."""
    return arena_pb2.RegisteredBot(
        name=bot.name,
        address=bot.address if operator else "",
        games=list(bot.games),
        hello_name=bot.hello_name,
        version=bot.version,
        registered_at=timestamp(bot.registered_at),
        hosted=bot.hosted,
        author=bot.author,
    )


def seed_message(record: TournamentRecord) -> arena_pb2.SeedCommitment:
    seed = record.spec.seed
    message = arena_pb2.SeedCommitment(
        # As stored at submission, never worked out again from the seed the store holds now.
        commitment=record.spec.published_commitment,
        source=arena_pb2.SEED_SOURCE_OPERATOR if seed.operator else arena_pb2.SEED_SOURCE_ARENA,
        revealed=revealed(record),
    )
    if message.revealed:
        message.master_seed = seed.value
        message.salt = seed.salt
    return message


def tournament_message(record: TournamentRecord) -> arena_pb2.Tournament:
    spec = record.spec
    deadline = duration_pb2.Duration()
    deadline.FromNanoseconds(int(spec.move_deadline_ms * 1e6))
    bank = None
    if spec.time_bank_ms:
        bank = duration_pb2.Duration()
        bank.FromNanoseconds(int(spec.time_bank_ms * 1e6))
    message_spec = arena_pb2.TournamentSpec(
        entries=spec.entries,
        games=spec.games,
        deals=spec.deals,
        move_deadline=deadline,
        max_faults=spec.max_faults,
        name=spec.name,
        time_bank=bank,
        fair_play=PROTO[spec.fair_play],
        broadcast_delay=wire.duration(spec.broadcast_delay_ms / 1000)
        if spec.broadcast_delay_ms
        else None,
        partners=PARTNERS_PROTO[spec.partners],
        max_entries_per_author=spec.author_limit() or 0,
        game_options={
            game: arena_pb2.GameOptions(options=options)
            for game, options in spec.game_options.items()
        },
    )
    spec_format(message_spec, spec.format, spec.format_params)
    return arena_pb2.Tournament(
        id=record.id,
        spec=message_spec,
        standings=standings(record),
        matches_issued=record.issued,
        state=STATES[record.state],
        matches_total=record.total,
        matches_done=record.done,
        forfeits=record.forfeits,
        created_at=timestamp(record.created_at),
        games=list(record.games),
        seed=seed_message(record),
        fair_play=PROTO[spec.fair_play],
        waiting=(
            arena_pb2.TournamentWait(
                since=timestamp(record.waiting.since), reason=record.waiting.reason
            )
            if record.waiting is not None and record.state == RUNNING
            else None
        ),
        results_digest=record.results_digest if record.state == FINISHED else "",
        caveats=spec.caveats(),
        partners=PARTNERS_PROTO[spec.partners],
        stranded=(
            arena_pb2.TournamentStranded(
                since=timestamp(record.stranded.since),
                count=record.stranded.count,
                match_ids=[spec.seed.public_id(m) for m in record.stranded.matches],
            )
            if record.stranded is not None and record.state == RUNNING
            else None
        ),
    )


def leaderboard_message(
    board: Leaderboard, tournament_id: str, older: Mapping[str, tuple[Row, ...]] | None = None
) -> arena_pb2.Leaderboard:
    """The board as served; ``older``: what ``arena.ratings.versions.folded`` folded
    under each bot's newest version."""
    folded = older or {}
    return arena_pb2.Leaderboard(
        tournament_id=tournament_id,
        game=board.game,
        draw_elo=board.draw_elo,
        matches=board.matches,
        caveats=board.caveats,
        rows=[
            _row_message(row, [_row_message(o) for o in folded.get(row.bot, ())])
            for row in board.rows
        ],
        min_pairs=board.min_pairs,
    )


def _row_message(
    row: Row, older: list[arena_pb2.LeaderboardRow] | None = None
) -> arena_pb2.LeaderboardRow:
    return arena_pb2.LeaderboardRow(
        rank=row.rank,
        bot=row.bot,
        elo=row.elo,
        elo_ci95=row.elo_ci95,
        pairs=row.pairs,
        wins=row.wins,
        draws=row.draws,
        losses=row.losses,
        matches=row.matches,
        game_elo=row.game_elo,
        status=STATUS_PROTO[row.status],
        note=row.note,
        group=row.group,
        bound=BOUND_PROTO[row.bound],
        elo_bound=row.elo_bound,
        shared_partners=row.shared_partners,
        older_versions=older,
    )


STATUS_PROTO = {
    RATED: arena_pb2.RATING_STATUS_RATED,
    PROVISIONAL: arena_pb2.RATING_STATUS_PROVISIONAL,
    INCOMPLETE: arena_pb2.RATING_STATUS_INCOMPLETE,
    EXCLUDED: arena_pb2.RATING_STATUS_EXCLUDED,
}
BOUND_PROTO = {
    "": arena_pb2.RATING_BOUND_UNSPECIFIED,
    "at least": arena_pb2.RATING_BOUND_AT_LEAST,
    "at most": arena_pb2.RATING_BOUND_AT_MOST,
}


def point_message(point: Point) -> arena_pb2.RatingPoint:
    """A stored point; a status or bound this version does not know is UNSPECIFIED."""
    return arena_pb2.RatingPoint(
        recorded_at=timestamp(point.time),
        event=point.event,
        elo=point.elo,
        elo_ci95=point.elo_ci95,
        pairs=point.pairs,
        status=STATUS_PROTO.get(point.status, arena_pb2.RATING_STATUS_UNSPECIFIED),
        bound=BOUND_PROTO.get(point.bound, arena_pb2.RATING_BOUND_UNSPECIFIED),
        elo_bound=point.elo_bound,
        version=point.version,
    )


class ArenaService(arena_pb2_grpc.ArenaServicer):
    def __init__(
        self,
        client: redis.Redis,
        probe: Probe,
        token: str | None = None,
        referees: Referees | None = None,
        quotas: AuthorQuotas | None = None,
        read_token: str | None = None,
        reads: Throttle | None = None,
        joins: Throttle | None = None,
    ) -> None:
        self.token = token
        self.competitions = Competitions(client, token, joins)
        """The competition calls (``arena.api.competitions``)."""
        self.competition_boards = CompetitionBoards(
            self.competitions.store,
            TournamentStore(client),
            BotRegistry(client),
            RedisRoster(client),
        )
        self.bots = BotRegistry(client)
        self.tournaments = TournamentStore(client)
        self.final_marks = FinalMarks(self.competitions.store, self.bots, PackageStore(client))
        """MarkFinalVersion (``arena.api.competition_final``)."""
        self.history = RatingHistoryStore(client)
        self.boards: BoardCache[Leaderboard] = BoardCache()
        self.skills: BoardCache[SkillTable] = BoardCache()
        self.scaled_boards: BoardCache[tuple[Leaderboard, Intervals]] = BoardCache(32)
        """Boards asked for on another scale (``arena.ratings.scale``), fewer kept."""
        self.probe = probe
        self.packages = PackageStore(client)
        self.leases = MatchLeases(client)
        self.live = LiveMatches(client)
        self.hosted = HostedBots(client, token, self.bots, self.tournaments, referees, quotas)
        self.reads = ReadBudget(
            reads if reads is not None else Throttle(), token, read_token, self.hosted.authors.who
        )
        """Anonymous callers' costly reads (``arena.api.reads``)."""
        self._replays: OrderedDict[bytes, str] = OrderedDict()
        """Replays re-run lately, by their record's SHA-256: a popular one costs once."""

    async def _tournament(self, tournament_id: str, context: Context) -> TournamentRecord:
        record = await asyncio.to_thread(self.tournaments.get, tournament_id)
        if record is None:
            await abort(context, grpc.StatusCode.NOT_FOUND, f"no tournament {tournament_id!r}")
        return record

    async def RegisterBot(
        self, request: arena_pb2.RegisterBotRequest, context: Context
    ) -> arena_pb2.RegisteredBot:
        if not limits.BOT_NAME.match(request.name):
            await abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"bad bot name {request.name!r}: use 1 to 40 letters, digits, '-', '_' or '.'",
            )
        try:
            check_address(request.address)
        except InvalidRequest as error:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
        if request.author and not await asyncio.to_thread(
            self.hosted.authors.exists, request.author
        ):
            await abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"unknown author {request.author!r}: add the author first (AddAuthor, `arena "
                "author add NAME`), or leave author empty for a house bot of the operator's",
            )
        existing = await asyncio.to_thread(self.bots.get, request.name)
        if existing is not None and existing.hosted:
            await abort(context, grpc.StatusCode.FAILED_PRECONDITION, _hosted_name(existing))
        try:
            hello = await self.probe.hello(request.address)
        except Unregistrable as refused:
            await abort(context, refused.code, str(refused))
        games = games_played(hello)
        if not games:
            await abort(
                context, grpc.StatusCode.FAILED_PRECONDITION, plays_none(request.name, hello)
            )
        bot = RegisteredBot(
            request.name,
            request.address,
            games,
            hello.name,
            hello.version,
            time.time(),
            author=request.author,
        )
        hosted = await asyncio.to_thread(self.bots.put_remote, bot)
        if hosted is not None:  # submitted while the bot was being probed
            await abort(context, grpc.StatusCode.FAILED_PRECONDITION, _hosted_name(hosted))
        return bot_message(bot)

    async def ListBots(
        self, request: arena_pb2.ListBotsRequest, context: Context
    ) -> arena_pb2.ListBotsResponse:
        bots = await asyncio.to_thread(self.bots.all)
        operator = holds_token(context.invocation_metadata(), self.token)
        return arena_pb2.ListBotsResponse(bots=[bot_message(b, operator=operator) for b in bots])

    async def RemoveBot(
        self, request: arena_pb2.RemoveBotRequest, context: Context
    ) -> arena_pb2.RemoveBotResponse:
        return await self.hosted.remove_bot(request, context)

    async def RemoveBotVersion(
        self, request: arena_pb2.RemoveBotVersionRequest, context: Context
    ) -> arena_pb2.RemoveBotVersionResponse:
        return await self.hosted.remove_version(request, context)

    async def SubmitTournament(
        self, request: arena_pb2.SubmitTournamentRequest, context: Context
    ) -> arena_pb2.Tournament:
        bots = {b.name: b for b in await asyncio.to_thread(self.bots.all)}
        try:
            # In a thread: fixing each hosted entry's version reads its versions.
            tournament_plan = await asyncio.to_thread(
                plan, request.spec, bots, self.packages.version
            )
        except TooLarge as error:
            await abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED, str(error))
        except InvalidSpec as error:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
        kind = formats.get(tournament_plan.format)
        if kind.seeded:  # by the arena's ratings, as they stand now
            boards = await asyncio.to_thread(self.tournaments.ratings)
            params = kind.with_seeding(
                tournament_plan.format_params,
                tournament_plan.entries,
                tournament_plan.games,
                boards,
            )
            tournament_plan = replace(tournament_plan, format_params=params)
        tournament_id = "t" + uuid.uuid4().hex[:12]
        await asyncio.to_thread(
            self.tournaments.create,
            tournament_id,
            tournament_plan,
            sorted(tournament_plan.played_games()),
            total=tournament_plan.total or 0,
        )
        await self._still_stored(tournament_id, tournament_plan, context)
        # The scheduler hands out the matches; submission returns at once.
        await asyncio.to_thread(_start, tournament_id, [])
        return tournament_message(await self._tournament(tournament_id, context))

    async def _still_stored(
        self, tournament_id: str, spec: TournamentPlan, context: Context
    ) -> None:
        """Cancel the tournament just stored if a version it fixed was removed, package and
        all, between planning and storing: once it is stored, removal keeps its packages
        (``arena.store.removal``), but not before."""
        hosted = {e.hosted.sha256: label for label, e in spec.lineup.items() if e.hosted}
        gone = await asyncio.to_thread(self.packages.missing, hosted)
        if gone:
            await asyncio.to_thread(self.tournaments.set_state, tournament_id, CANCELLED)
            await abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"{', '.join(sorted(hosted[d] for d in gone))} "
                f"{'was' if len(gone) == 1 else 'were'} removed while this tournament was "
                "being submitted: submit it again",
            )

    async def GetTournament(
        self, request: arena_pb2.GetTournamentRequest, context: Context
    ) -> arena_pb2.Tournament:
        return tournament_message(await self._tournament(request.id, context))

    async def ListTournaments(
        self, request: arena_pb2.ListTournamentsRequest, context: Context
    ) -> arena_pb2.ListTournamentsResponse:
        ids = await asyncio.to_thread(self.tournaments.ids)
        records = [await asyncio.to_thread(self.tournaments.get, i) for i in ids]
        return arena_pb2.ListTournamentsResponse(
            tournaments=[tournament_message(r) for r in records if r is not None]
        )

    async def ResumeTournament(
        self, request: arena_pb2.ResumeTournamentRequest, context: Context
    ) -> arena_pb2.Tournament:
        record = await self._tournament(request.id, context)
        if record.state != RUNNING:
            why = (
                "every match has a result"
                if record.state == FINISHED
                else "its seeds were revealed when it was cancelled, so its remaining deals "
                "are no longer secret; submit a new tournament"
            )
            await abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"tournament {request.id!r} is {record.state}: {why}",
            )
        unplayed = await asyncio.to_thread(self.tournaments.unplayed_ids, request.id)
        await asyncio.to_thread(_start, request.id, sorted(unplayed))
        return tournament_message(await self._tournament(request.id, context))

    async def CancelTournament(
        self, request: arena_pb2.CancelTournamentRequest, context: Context
    ) -> arena_pb2.Tournament:
        record = await self._tournament(request.id, context)
        if record.state == FINISHED:
            await abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"tournament {request.id!r} is already finished",
            )
        await asyncio.to_thread(self.tournaments.set_state, request.id, CANCELLED)
        await self.hosted.sweep()  # the packages of removed versions it alone played
        return tournament_message(await self._tournament(request.id, context))

    async def WatchTournament(
        self, request: arena_pb2.WatchTournamentRequest, context: Context
    ) -> AsyncIterator[arena_pb2.Tournament]:
        last: tuple[object, ...] | None = None
        while True:
            record = await self._tournament(request.id, context)
            if (record.done, record.state, record.waiting) != last:
                last = (record.done, record.state, record.waiting)
                yield tournament_message(record)
            if record.state != RUNNING:
                return
            await asyncio.sleep(WATCH_POLL_S)

    async def GetLeaderboard(
        self, request: arena_pb2.GetLeaderboardRequest, context: Context
    ) -> arena_pb2.Leaderboard:
        if request.openskill:
            await self.reads.spend("GetLeaderboard with openskill", context)
        try:
            scale = Scale(
                anchor=request.anchor,
                anchor_elo=request.anchor_elo,
                prior_sd=request.prior_sd if request.HasField("prior_sd") else PRIOR_SIGMA,
                bootstrap=request.bootstrap,
                seed=request.bootstrap_seed,
            )
        except BadScale as error:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
        intervals: Intervals = {}
        if scale == Scale():
            board = await self._board(request.tournament_id, request.game, context)
        else:
            await self.reads.spend("GetLeaderboard with an anchor, prior_sd or bootstrap", context)
            board, intervals = await self._scaled(
                request.tournament_id, request.game, scale, context
            )
        fold = Folded(board)
        if not request.every_version:
            entries = [row.bot for row in board.rows]
            fold = folded(board, await asyncio.to_thread(self.packages.submitted, entries))
        message = leaderboard_message(fold.board, request.tournament_id, fold.older)
        message.anchor, message.anchor_elo = scale.anchor, scale.anchor_elo
        message.prior_sd, message.bootstrap = scale.prior_sd, scale.bootstrap
        ranked_before = {row.bot for row in board.rows if row.rank}
        for row in every_row(message):
            if row.bot in ranked_before and row.bot in intervals:
                row.elo_low, row.elo_high = intervals[row.bot]
        if request.los and board.covariance:
            message.los.extend(
                arena_pb2.LosRow(bot=bot, los=row) for bot, row in los_matrix(fold.board)
            )
        if request.openskill:
            skill = (await self._skill(request.tournament_id, request.game)).by_player()
            for row in every_row(message):
                found = skill.get(row.bot)
                if found is not None:
                    row.openskill_mu, row.openskill_sigma = found.mu, found.sigma
                    row.openskill_ordinal = found.ordinal
        return message

    async def CompareBots(
        self, request: arena_pb2.CompareBotsRequest, context: Context
    ) -> arena_pb2.BotComparison:
        await self.reads.spend("CompareBots", context)
        board = await self._board(request.tournament_id, request.game, context)
        try:
            found = compare(board, request.a, request.b)
        except CannotCompare as error:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
        return arena_pb2.BotComparison(
            a=found.a, b=found.b, elo_difference=found.difference, ci95=found.ci95, los=found.los
        )

    async def GetRatingHistory(
        self, request: arena_pb2.GetRatingHistoryRequest, context: Context
    ) -> arena_pb2.RatingHistory:
        """The bot's points by board. A removed bot's history stays readable (its results
        stay rated); a name neither registered nor rated is most likely mistyped."""
        if not request.bot:
            await abort(
                context, grpc.StatusCode.INVALID_ARGUMENT, "name a bot: GetRatingHistory(bot=...)"
            )
        await self._check_game(request.game, context)
        points = await asyncio.to_thread(self._history, request.bot)
        if not points and await asyncio.to_thread(self.bots.get, request.bot) is None:
            await abort(
                context,
                grpc.StatusCode.NOT_FOUND,
                f"no bot {request.bot!r}: none is registered under that name and none was "
                "ever rated under it (names are as the leaderboard shows them, "
                "'name@version' for a hosted bot's version)",
            )
        by_game = series(points, request.game if request.game else None)
        return arena_pb2.RatingHistory(
            bot=request.bot,
            series=[
                arena_pb2.RatingSeries(game=game, points=[point_message(p) for p in found])
                for game, found in by_game.items()
            ],
        )

    def _history(self, bot: str) -> list[Point]:
        """The points of ``bot`` as the leaderboard names it; a hosted bot's name has
        its versions' points joined (``arena.ratings.versions.across_versions``)."""
        points = self.history.points(bot)
        labels = [] if "@" in bot else self.packages.labels(bot)
        if points or not labels:
            return points
        entries = [f"{bot}@{label}" for label in labels]
        return across_versions(
            {entry: self.history.points(entry) for entry in entries},
            self.packages.submitted(entries),
        )

    async def _check_game(self, game: str, context: Context) -> None:
        if game and game not in game_names():
            await abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"unknown game {game!r}; available games: {', '.join(game_names())}",
            )

    async def _board(self, tournament_id: str, game: str, context: Context) -> Leaderboard:
        """The ratings of one tournament or of all, overall or of one game; a finished
        tournament's as it finished (refitted if stored by an older arena: before
        covariances were kept, when the overall board was one pooled fit, or under an
        older ranking rule, whose notes read otherwise)."""
        await self._check_game(game, context)
        if tournament_id:
            record = await self._tournament(tournament_id, context)
            if record.state == FINISHED and not game:
                # The ratings the tournament finished with, fitted once when it finished.
                stored = await asyncio.to_thread(self.tournaments.leaderboard, record.id)
                if (
                    stored is not None
                    and stored.get("covariance")
                    and "min_pairs" in stored
                    and stored.get("rule") == RANK_RULE
                ):
                    return Leaderboard.from_json(stored)
        version = await asyncio.to_thread(self.tournaments.results_version)
        return await self.boards.get(
            (tournament_id, game),
            version,
            lambda: asyncio.to_thread(self._fit_leaderboard, tournament_id, game),
        )

    async def _scaled(
        self, tournament_id: str, game: str, scale: Scale, context: Context
    ) -> tuple[Leaderboard, Intervals]:
        """The board on ``scale`` (an anchor, a prior or a bootstrap asked for): always
        fitted from the results (a finished tournament's stored board is on the default
        scale), cached per results version like the default board. An anchor with no
        rating on the board is INVALID_ARGUMENT, naming those that may anchor it."""
        await self._check_game(game, context)
        if tournament_id:
            await self._tournament(tournament_id, context)
        version = await asyncio.to_thread(self.tournaments.results_version)
        try:
            return await self.scaled_boards.get(
                (tournament_id, game, scale),
                version,
                lambda: asyncio.to_thread(
                    lambda: scaled(self._results(tournament_id), game, scale)
                ),
            )
        except BadScale as error:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))

    def _fit_leaderboard(self, tournament_id: str, game: str) -> Leaderboard:
        """Ratings from one tournament's results, or from every tournament's."""
        return leaderboard(self._results(tournament_id), game)

    def _results(self, tournament_id: str) -> list[MatchResult]:
        ids = [tournament_id] if tournament_id else self.tournaments.ids()
        return [r for i in ids for r in self.tournaments.results(i)]

    async def _skill(self, tournament_id: str, game: str) -> SkillTable:
        """OpenSkill ratings from the results ``_board`` fits (the tournament and game
        were checked there). A finished tournament's results no longer change, so they
        give the ratings it finished with, like its stored board."""
        version = await asyncio.to_thread(self.tournaments.results_version)
        return await self.skills.get(
            (tournament_id, game),
            version,
            lambda: asyncio.to_thread(lambda: skill_table(self._results(tournament_id), game)),
        )

    async def ListResults(
        self, request: arena_pb2.ListResultsRequest, context: Context
    ) -> arena_pb2.ListResultsResponse:
        try:
            page = page_request(request)
        except InvalidPage as error:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
        record = await self._tournament(request.tournament_id, context)
        public = revealed(record)
        if request.with_logs and not request.page_size:
            await abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                "with_logs needs a page_size (1 to 1000): a big tournament's records do not "
                "fit in one message",
            )
        if request.with_logs and not public:
            await abort(context, grpc.StatusCode.FAILED_PRECONDITION, _unrevealed(record.id))
        if page.public_ids and public:
            await abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"page_token was given while tournament {record.id} ran, in the order of its "
                "public match ids; it has ended since, and its results are now in the order "
                "of the schedule's ids: start again from the first page",
            )
        if not request.page_size:
            await self.reads.spend("ListResults without a page_size (every result)", context)
        elif not public:
            await self.reads.spend(
                "ListResults of a running tournament (each page reads every result)", context
            )
        seed = record.spec.seed
        if public:
            results, more = await asyncio.to_thread(self._results_page, page)
        else:
            results, more = await asyncio.to_thread(self._public_page, page, seed.public_id)
        # An open ladder publishes each match's deal once it has ended (``deal_revealed``).
        playing: set[str] = set()
        if not public and reveals_each_match(record):
            playing = await asyncio.to_thread(self.leases.live, record.id)
        messages = [
            record_message(r, public, seed.public_id, deal_revealed(record, r, playing))
            for r in results
        ]
        if request.with_logs:
            logs = await asyncio.to_thread(
                self.tournaments.match_logs, record.id, [r.match_id for r in results]
            )
            for message, data in zip(messages, logs, strict=True):
                if data is not None:
                    try:
                        message.log.CopyFrom(decode(data))
                    except ReplayMismatch as error:
                        message.log_error = str(error)
        return arena_pb2.ListResultsResponse(
            results=messages,
            next_page_token=page.next_token(messages[-1].match_id, not public) if more else "",
        )

    async def GetMatchReplay(
        self, request: arena_pb2.GetMatchReplayRequest, context: Context
    ) -> referee_pb2.Replay:
        record = await self._tournament(request.tournament_id, context)
        public = revealed(record)
        if not public and not reveals_each_match(record):
            await abort(context, grpc.StatusCode.FAILED_PRECONDITION, _unrevealed(record.id))
        if not public and not PUBLIC_ID.fullmatch(request.match_id):
            # The schedule's ids say pairing, deal and half: secret while it runs.
            await abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"ladder {record.id} is running: name its match by its public id (as "
                "ListResults gives it, p and 20 hex digits)",
            )
        await self.reads.spend("GetMatchReplay", context)
        match_id = await asyncio.to_thread(schedule_id, self.tournaments, record, request.match_id)
        shown = match_id if public else request.match_id  # what the caller may know it by
        stored, data = await asyncio.to_thread(self._result_and_log, record.id, match_id)
        if not stored:
            await abort(
                context,
                grpc.StatusCode.NOT_FOUND,
                f"tournament {record.id} has no result for match {shown!r}",
            )
        if not public and not await asyncio.to_thread(
            deal_ended, self.tournaments, self.leases, record, match_id
        ):
            await abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"match {shown} of ladder {record.id} is still being played (an attempt at "
                "it holds its lease): its replay is published once it has ended",
            )
        if data is None:
            await abort(
                context,
                grpc.StatusCode.NOT_FOUND,
                f"the result of {shown} was stored without its record (before the arena "
                "kept them): `arena replay import` brings in a referee's replay files",
            )
        # Keyed by the record's bytes, so a record changed since is re-run, not trusted.
        key = hashlib.sha256(data).digest()
        text = self._replays.pop(key, None)
        REPLAYS.labels("rerun" if text is None else "cached").inc()
        if text is None:
            try:
                document = await asyncio.to_thread(replay_document, decode(data))
            except ReplayMismatch as error:
                await abort(
                    context,
                    grpc.StatusCode.DATA_LOSS,
                    f"the stored record of {shown} does not re-run: {error}",
                )
            text = json.dumps(document)
        self._replays[key] = text  # the newest last: the oldest goes first
        while len(self._replays) > CACHED_REPLAYS:
            self._replays.popitem(last=False)
        return referee_pb2.Replay(replay_id=shown, json=text)

    def _public_page(
        self, page: PageRequest, public_id: Callable[[str], str]
    ) -> tuple[list[MatchResult], bool]:
        """A page of a running tournament's results in the order of their public ids,
        which says nothing of the schedule (every result is read to sort them)."""
        keyed = sorted(
            ((public_id(r.match_id), r) for r in self.tournaments.results(page.tournament_id)),
            key=lambda pair: pair[0],
            reverse=page.descending,
        )
        if page.after:
            after = page.after
            keyed = [(k, r) for k, r in keyed if (k < after if page.descending else k > after)]
        if page.size == 0:
            return [r for _, r in keyed], False
        return [r for _, r in keyed[: page.size]], len(keyed) > page.size

    def _result_and_log(self, tournament_id: str, match_id: str) -> tuple[bool, bytes | None]:
        stored = self.tournaments.has_result(tournament_id, match_id)
        return stored, self.tournaments.match_logs(tournament_id, [match_id])[0]

    def _results_page(self, page: PageRequest) -> tuple[list[MatchResult], bool]:
        """The page's results and whether any follow it; a page of ``size`` reads
        ``size + 1`` from the order index (the one more says there is a next page)."""
        if page.size == 0:
            every = self.tournaments.results(page.tournament_id)
            if page.descending:
                every.reverse()
            if page.after:
                every = [
                    r
                    for r in every
                    if (r.match_id < page.after if page.descending else r.match_id > page.after)
                ]
            return every, False
        found = self.tournaments.results_page(
            page.tournament_id, page.after, page.size + 1, page.descending
        )
        return found[: page.size], len(found) > page.size

    async def ListLiveMatches(
        self, request: arena_pb2.ListLiveMatchesRequest, context: Context
    ) -> arena_pb2.ListLiveMatchesResponse:
        if request.tournament_id:
            records = [await self._tournament(request.tournament_id, context)]
        else:
            records = await asyncio.to_thread(self._running)
        reply = arena_pb2.ListLiveMatchesResponse()
        for record in records:
            if record.state != RUNNING:
                continue
            attempts = await asyncio.to_thread(self._attempts, record.id)
            shown_from = time.time() - record.spec.broadcast_delay_ms / 1000
            for attempt in attempts:
                if attempt.paired or attempt.started_at > shown_from:
                    reply.withheld += 1
                else:
                    reply.matches.append(live_message(record, attempt))
        return reply

    def _running(self) -> list[TournamentRecord]:
        states = self.tournaments.states()
        found = (self.tournaments.get(i) for i, s in states.items() if s == RUNNING)
        return [r for r in found if r is not None]

    def _attempts(self, tournament_id: str) -> list[LiveAttempt]:
        """The attempts being played: a killed worker's note stays until its lease lapses."""
        playing = self.leases.live(tournament_id)
        return [a for a in self.live.attempts(tournament_id) if a.match_id in playing]

    async def GetCollusionReport(
        self, request: arena_pb2.GetCollusionReportRequest, context: Context
    ) -> arena_pb2.CollusionReport:
        # Only the operator's with a token set (``arena.access``): counted without one.
        await self.reads.spend("GetCollusionReport", context)
        record = await self._tournament(request.tournament_id, context)
        public = revealed(record)
        results = await asyncio.to_thread(self.tournaments.results, record.id)
        reports = await asyncio.to_thread(collusion_reports, results)
        reply = arena_pb2.CollusionReport(
            tournament_id=record.id, flag_z=FLAG_Z, min_outcomes=MIN_OUTCOMES, partial=not public
        )
        pairs = [(game, pair) for game, found in reports.items() for pair in found]
        pairs.sort(key=lambda item: -abs(item[1].z or 0.0))
        reply.pairs.extend(collusion_message(game, pair) for game, pair in pairs)
        return reply

    async def SubmitBot(
        self, requests: AsyncIterator[arena_pb2.SubmitBotRequest], context: Context
    ) -> arena_pb2.HostedBotVersion:
        return await self.hosted.submit(requests, context)

    async def ListBotVersions(
        self, request: arena_pb2.ListBotVersionsRequest, context: Context
    ) -> arena_pb2.ListBotVersionsResponse:
        return await self.hosted.versions(request, context)

    async def GetBotLogs(
        self, request: arena_pb2.GetBotLogsRequest, context: Context
    ) -> arena_pb2.BotLogs:
        return await self.hosted.bot_logs(request, context)

    async def WhoAmI(
        self, request: arena_pb2.WhoAmIRequest, context: Context
    ) -> arena_pb2.WhoAmIResponse:
        return await self.hosted.who_am_i(context)

    async def AddAuthor(
        self, request: arena_pb2.AddAuthorRequest, context: Context
    ) -> arena_pb2.AuthorToken:
        return await self.hosted.add_author(request, context)

    async def CreateCompetition(
        self, request: arena_pb2.CreateCompetitionRequest, context: Context
    ) -> arena_pb2.Competition:
        return await self.competitions.create(request, context)

    async def GetCompetition(
        self, request: arena_pb2.GetCompetitionRequest, context: Context
    ) -> arena_pb2.Competition:
        return await self.competitions.get(request, context)

    async def ListCompetitions(
        self, request: arena_pb2.ListCompetitionsRequest, context: Context
    ) -> arena_pb2.ListCompetitionsResponse:
        return await self.competitions.list(request, context)

    async def CancelCompetition(
        self, request: arena_pb2.CancelCompetitionRequest, context: Context
    ) -> arena_pb2.Competition:
        return await self.competitions.cancel(request, context)

    async def CreateInvites(
        self, request: arena_pb2.CreateInvitesRequest, context: Context
    ) -> arena_pb2.CreateInvitesResponse:
        return await self.competitions.create_invites(request, context)

    async def GetCompetitionLeaderboard(
        self, request: arena_pb2.GetCompetitionLeaderboardRequest, context: Context
    ) -> arena_pb2.CompetitionLeaderboard:
        caller = await self.hosted.caller(context)
        return await self.competition_boards.board(
            request,
            context,
            caller,
            self._board,
            lambda board: list(leaderboard_message(board, "").rows),
        )

    async def JoinCompetition(
        self, request: arena_pb2.JoinCompetitionRequest, context: Context
    ) -> arena_pb2.JoinCompetitionResponse:
        return await self.competitions.join(request, context)

    async def MarkFinalVersion(
        self, request: arena_pb2.MarkFinalVersionRequest, context: Context
    ) -> arena_pb2.MarkFinalVersionResponse:
        return await self.final_marks.mark(request, context, await self.hosted.caller(context))


def _hosted_name(bot: RegisteredBot) -> str:
    owner = f"author {bot.author!r}" if bot.author else "the operator"
    return (
        f"{bot.name!r} is a hosted bot (of {owner}), whose versions the arena runs itself: "
        "a bot registered at an address needs a name of its own (or remove "
        f"{bot.name!r} first)"
    )


def record_message(
    result: MatchResult,
    revealed: bool,
    public_id: Callable[[str], str],
    dealt: bool | None = None,
) -> arena_pb2.MatchRecord:
    """A stored result; while its tournament runs, without what would deal its cards
    or tie it to its pairing, deal and half (public ids stand for its ids). ``dealt``
    (by default ``revealed``): its seed, salt and replay id may be shown, as an open
    ladder shows those of a match that has ended (``arena.api.common.deal_revealed``)."""
    dealt = revealed if dealt is None else dealt
    message = arena_pb2.MatchRecord(
        match_id=result.match_id if revealed else public_id(result.match_id),
        public_id=public_id(result.match_id),
        game=result.game,
        pair_key=result.pair_key if revealed else public_id(result.pair_key),
        deal=result.deal if revealed else None,
        entries=result.entries,
        scores=result.scores,
        winner_team=result.winner_team,
        end=arena_pb2.ResultEnd.Value("RESULT_END_" + result.end.upper()),
        forfeit_team=result.forfeit_team,
        team_faults=result.team_faults,
        team_fault_kinds=[
            arena_pb2.TeamFaults(by_kind=kinds) for kinds in result.team_fault_kinds or ()
        ],
        decisions=result.decisions,
        duration_ms=result.duration_ms,
        referee=result.referee,
        deal_key=result.deal_key if revealed else "",
        deal_commitment=result.deal_commitment,
    )
    if result.finished_at is not None:
        message.finished_at.CopyFrom(timestamp(result.finished_at))
    if result.started_at is not None:
        message.started_at.CopyFrom(timestamp(result.started_at))
    if dealt or result.pair_key == result.match_id:
        # The referee's id opens the match's events (WatchMatch); a duplicate half's
        # would show the cards of its other half, which may still be played.
        message.referee_match_id = result.referee_match_id
    if dealt:
        message.seed = result.seed
        message.replay_id = result.replay_id
        message.deal_salt = result.deal_salt
    return message


def collusion_message(game: str, pair: PairReport) -> arena_pb2.CollusionPair:
    return arena_pb2.CollusionPair(
        game=game,
        a=pair.a,
        b=pair.b,
        outcomes=pair.outcomes,
        wins=pair.wins,
        draws=pair.draws,
        losses=pair.losses,
        score=pair.score,
        expected=pair.expected,
        z=pair.z,
        flagged=pair.flagged,
        below=pair.below,
        above=pair.above,
    )


def _unrevealed(tournament_id: str) -> str:
    return (
        f"tournament {tournament_id} is still running: its match records (every card "
        "dealt) are published when it ends, as its seeds are"
    )


def live_message(record: TournamentRecord, attempt: LiveAttempt) -> arena_pb2.LiveMatch:
    """A match being played, with what a watcher needs and nothing that deals it."""
    return arena_pb2.LiveMatch(
        tournament_id=record.id,
        tournament_name=record.spec.name,
        match_id=record.spec.seed.public_id(attempt.match_id),
        game=attempt.game,
        entries=attempt.entries,
        referee=attempt.referee,
        watch_id=attempt.watch_id,
        started_at=timestamp(attempt.started_at),
    )


def _start(tournament_id: str, again: list[str]) -> None:
    from workers.dispatch import start  # Celery loads only where it is needed

    start(tournament_id, again)


async def start_server(
    *,
    redis_url: str,
    host: str = "127.0.0.1",
    port: int = 50050,
    token: str | None = None,
    tls: ServerTls | None = None,
    bot_credentials: grpc.ChannelCredentials | None = None,
    bot_networks: BotNetworks = DEFAULT,
    referees: Referees | None = None,
    quotas: AuthorQuotas | None = None,
    read_token: str | None = None,
    reads: Throttle | None = None,
    joins: Throttle | None = None,
) -> tuple[grpc.aio.Server, int]:
    """Start the API; with ``token``, write calls must carry it (``arena.access``), and
    RegisterBot's callers, who then hold it, learn why a bot did not answer. SubmitBot
    starts bots on one of ``referees`` (Referee.CheckBot), or without any in sandboxes
    on this host (``arena.hosting.sandbox``), and holds authors to ``quotas`` (the
    defaults of ``arena.quotas`` if None). From the start it sweeps the packages of
    removed versions every minute (``arena.store.removal``). Costly reads spend
    ``reads``, a budget per address (``arena.api.reads``; 10 a second in bursts of 60 if
    None), unless they carry ``token``, an author's or ``read_token``. JoinCompetition
    spends ``joins``, a budget per address (``arena.api.competitions``)."""
    client = await asyncio.to_thread(connect, redis_url)  # StoreUnreachable: say so, stop
    interceptors: list[Any] = [RequestCounter()]  # outermost: it counts refusals too
    if token:
        interceptors.append(TokenCheck(API, token))
    interceptors.append(StoreDown(client))
    server = grpc.aio.server(
        interceptors=interceptors,
        options=[("grpc.max_receive_message_length", limits.MAX_REQUEST_BYTES)],
    )
    probe = Probe(bot_networks, bot_credentials, detailed=bool(token))
    service = ArenaService(client, probe, token, referees, quotas, read_token, reads, joins)
    arena_pb2_grpc.add_ArenaServicer_to_server(service, server)
    name = arena_pb2.DESCRIPTOR.services_by_name["Arena"].full_name
    bound = await start_serving(server, name, host, port, tls)
    service.hosted.start_sweeping()
    return server, bound


def serve(
    redis_url: str,
    host: str = "127.0.0.1",
    port: int = 50050,
    metrics_port: int | None = None,
    token: str | None = None,
    tls: ServerTls | None = None,
    bot_credentials: grpc.ChannelCredentials | None = None,
    bot_networks: BotNetworks = DEFAULT,
    referees: Referees | None = None,
    quotas: AuthorQuotas | None = None,
    read_token: str | None = None,
    reads_per_s: float = READS_PER_S,
    read_burst: int = BURST,
    joins: Throttle | None = None,
) -> None:
    async def main() -> None:
        server, bound = await start_server(
            redis_url=redis_url,
            host=host,
            port=port,
            token=token,
            tls=tls,
            bot_credentials=bot_credentials,
            bot_networks=bot_networks,
            referees=referees,
            quotas=quotas,
            read_token=read_token,
            reads=Throttle(rate_per_s=reads_per_s, burst=read_burst),
            joins=joins if joins is not None else joins_throttle(),
        )
        if not token:
            print(API.open_warning(), file=sys.stderr, flush=True)
        if metrics_port is not None:
            start_http_server(metrics_port, addr=host)
            print(f"arena api metrics on http://{host}:{metrics_port}/metrics", flush=True)
        print(f"arena api listening on {host}:{bound}", flush=True)
        await server.wait_for_termination()

    asyncio.run(main())
